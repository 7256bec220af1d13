package app

import (
	"fmt"
	"strconv"
	"strings"

	"deskpilot/agent/dialect"
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
	return settingsForm{
		Preset: c.Preset, BaseURL: c.BaseURL, Model: c.Model, KeyEnv: c.APIKeyEnv, Coords: coords, Dialect: d,
		MaxSide: num(c.MaxSide), MaxSteps: num(c.MaxSteps), Keep: num(c.KeepImages),
		Plan: num(c.PlanEvery), Display: num(c.Display),
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
	return c, nil
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
