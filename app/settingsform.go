package app

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"deskpilot/agent/dialect"
	"deskpilot/agent/script"
	"deskpilot/internal/config"
)

// autoDialect is the dialect choice that leaves it to the model's name.
const autoDialect = "auto (by model name)"

// dialectChoices are the Dialect select's options: auto, then every dialect.
func dialectChoices() []string { return append([]string{autoDialect}, dialect.Names()...) }

// autoDialectNote says which dialect auto picks for a model name.
func autoDialectNote(model string) string {
	model = strings.TrimSpace(model)
	if model == "" {
		return "Auto picks the reply format from the model's name; " + dialect.Default + " for models it does not know."
	}
	if d := dialect.ForModel(model); d != "" {
		return fmt.Sprintf("Auto: %s speaks the %s dialect.", model, d)
	}
	return fmt.Sprintf("Auto: %s is not a known family, so it gets the %s dialect (deskpilot's own prompt).", model, dialect.Default)
}

// settingsForm is the text of the settings fields, kept apart from the widgets so
// the conversion to and from config.Settings is testable without a window.
type settingsForm struct {
	Preset, BaseURL, Model, KeyEnv, Coords string
	Dialect                                string // a dialect's name or autoDialect
	MaxSide, MaxSteps, Keep, Plan, Display string

	// Grounding: the observation's layers (observe), set-of-marks (marks) and
	// the grounding model ([grounder]).
	ObserveA11y, ObserveOCR, Marks                  bool
	GrounderModel, GrounderBaseURL, GrounderDialect string // GrounderDialect: a name or autoDialect
	// Safety: the confirmation policy's entries that are on (confirm), the
	// domain and app lists (comma-separated), private addresses for the
	// browser, and the inspector's extra folders.
	Confirm                                          map[string]bool
	AllowDomains, DenyDomains, DenyApps, InspectDirs string
	AllowPrivate                                     bool
}

// confirmRisks are the confirmation policy's entries the settings offer, in
// the order shown.
var confirmRisks = []string{script.RiskLaunch, script.RiskOpenURL, script.RiskCloseCombos, script.RiskSendAfterRead}

// listText shows a list setting as the field holds it.
func listText(l []string) string { return strings.Join(l, ", ") }

// listOf reads a list field: entries separated by commas or spaces; none is nil
// (the default).
func listOf(s string) []string {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	if len(f) == 0 {
		return nil
	}
	return f
}

// formFrom fills the form from a config; zero numbers stay empty (= default).
func formFrom(c config.Settings) settingsForm {
	num := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	coords := c.CoordMode
	if coords == "" {
		coords = "pixels"
	}
	d := c.Dialect
	if d == "" {
		d = autoDialect
	}
	gd := c.Grounder.Dialect
	if gd == "" {
		gd = autoDialect
	}
	confirm := c.Confirm
	if confirm == nil {
		confirm = config.Defaults().Confirm
	}
	on := map[string]bool{}
	for _, r := range confirm {
		on[r] = true
	}
	return settingsForm{
		Preset: c.Preset, BaseURL: c.BaseURL, Model: c.Model, KeyEnv: c.APIKeyEnv, Coords: coords, Dialect: d,
		MaxSide: num(c.MaxSide), MaxSteps: num(c.MaxSteps), Keep: num(c.KeepImages),
		Plan: num(c.PlanEvery), Display: num(c.Display),
		ObserveA11y: slices.Contains(c.Observe, "a11y"), ObserveOCR: slices.Contains(c.Observe, "ocr"), Marks: c.Marks,
		GrounderModel: c.Grounder.Model, GrounderBaseURL: c.Grounder.BaseURL, GrounderDialect: gd,
		Confirm: on, AllowDomains: listText(c.AllowDomains), DenyDomains: listText(c.DenyDomains),
		DenyApps: listText(c.DenyApps), InspectDirs: listText(c.InspectFolders), AllowPrivate: c.AllowPrivate,
	}
}

// apply returns base with the form's values; every other setting is kept.
func (f settingsForm) apply(base config.Settings) (config.Settings, error) {
	c := base
	c.Preset = strings.TrimSpace(f.Preset)
	c.BaseURL = strings.TrimRight(strings.TrimSpace(f.BaseURL), "/")
	c.Model = strings.TrimSpace(f.Model)
	c.APIKeyEnv = strings.TrimSpace(f.KeyEnv)
	if c.APIKeyEnv != "" && !validEnvName(c.APIKeyEnv) {
		return base, fmt.Errorf("API key variable %q: use letters, digits and _ (e.g. OPENAI_API_KEY), not the key itself", c.APIKeyEnv)
	}
	switch f.Coords {
	case "", "pixels":
		c.CoordMode = ""
	case "norm1000":
		c.CoordMode = "norm1000"
	default:
		return base, fmt.Errorf("coordinate mode %q: want pixels or norm1000", f.Coords)
	}
	switch d := strings.TrimSpace(f.Dialect); d {
	case "", autoDialect:
		c.Dialect = ""
	default:
		dl, err := dialect.ByName(d)
		if err != nil {
			return base, err
		}
		c.Dialect = dl.Name()
	}
	if c.BaseURL != "" && !strings.HasPrefix(c.BaseURL, "http://") && !strings.HasPrefix(c.BaseURL, "https://") {
		return base, fmt.Errorf("base URL %q: it must start with http:// or https://", c.BaseURL)
	}
	for _, n := range []struct {
		name string
		text string
		dst  *int
		min  int
	}{
		{"image size", f.MaxSide, &c.MaxSide, 256},
		{"max steps", f.MaxSteps, &c.MaxSteps, 1},
		{"screenshots kept", f.Keep, &c.KeepImages, 1},
		{"planning interval", f.Plan, &c.PlanEvery, 0},
		{"target display", f.Display, &c.Display, 0},
	} {
		v, err := parseCount(n.text, n.min)
		if err != nil {
			return base, fmt.Errorf("%s: %w", n.name, err)
		}
		*n.dst = v
	}
	if err := f.applyGrounding(&c, base); err != nil {
		return base, err
	}
	f.applySafety(&c, base)
	return c, nil
}

// applyGrounding sets observe, marks and the [grounder] table from the form.
func (f settingsForm) applyGrounding(c *config.Settings, base config.Settings) error {
	var layers []string
	for _, l := range base.Observe { // layers the settings do not show are kept
		if l != "screenshot" && l != "a11y" && l != "ocr" {
			layers = append(layers, l)
		}
	}
	if f.ObserveA11y {
		layers = append(layers, "a11y")
	}
	if f.ObserveOCR {
		layers = append(layers, "ocr")
	}
	c.Observe = nil
	if len(layers) > 0 {
		c.Observe = append([]string{"screenshot"}, layers...)
	}
	c.Marks = f.Marks
	c.Grounder.Model = strings.TrimSpace(f.GrounderModel)
	c.Grounder.BaseURL = strings.TrimRight(strings.TrimSpace(f.GrounderBaseURL), "/")
	if u := c.Grounder.BaseURL; u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return fmt.Errorf("grounder base URL %q: it must start with http:// or https://", u)
	}
	switch d := strings.TrimSpace(f.GrounderDialect); d {
	case "", autoDialect:
		c.Grounder.Dialect = ""
	default:
		g, err := dialect.GrounderByName(d)
		if err != nil {
			return err
		}
		c.Grounder.Dialect = g.Name()
	}
	return nil
}

// applySafety sets confirm, the domain and app lists, browser_allow_private
// and inspect_folders from the form. Confirmation entries the settings do not
// show (a builtin's name) are kept; the default list stays unwritten.
func (f settingsForm) applySafety(c *config.Settings, base config.Settings) {
	var confirm []string
	for _, r := range confirmRisks {
		if f.Confirm[r] {
			confirm = append(confirm, r)
		}
	}
	for _, r := range base.Confirm {
		if !slices.Contains(confirmRisks, r) {
			confirm = append(confirm, r)
		}
	}
	switch {
	case base.Confirm == nil && slices.Equal(confirm, config.Defaults().Confirm):
		c.Confirm = nil
	case confirm == nil:
		c.Confirm = []string{} // written as confirm = []: nothing asks
	default:
		c.Confirm = confirm
	}
	c.AllowDomains, c.DenyDomains = listOf(f.AllowDomains), listOf(f.DenyDomains)
	c.DenyApps, c.InspectFolders = listOf(f.DenyApps), listOf(f.InspectDirs)
	c.AllowPrivate = f.AllowPrivate
}

// parseCount reads a whole number ≥ min; empty means 0 (the default).
func parseCount(s string, min int) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number", s)
	}
	if n < min {
		return 0, fmt.Errorf("%d is below the minimum %d", n, min)
	}
	return n, nil
}

// validEnvName reports whether s can name an environment variable. A value that
// looks like a key (sk-…) is refused so keys never land in the config file.
func validEnvName(s string) bool {
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

// envOverrides lists the environment variables that override the config file.
func envOverrides(lookup func(string) (string, bool)) []string {
	var set []string
	for _, name := range config.EnvNames() {
		if v, ok := lookup(name); ok && v != "" {
			set = append(set, name)
		}
	}
	return set
}
