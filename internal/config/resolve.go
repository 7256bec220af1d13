package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"deskpilot/agent/convo"
	"deskpilot/agent/dialect/registry"
	"deskpilot/vision"
)

// Config is the settings of one run, resolved: every source applied in order,
// the preset's values filled in where nothing else set them, every default
// applied and every value checked. It is a value: copy it freely, never modify it
// after Resolve (its slices are its own).
type Config struct {
	Settings
	// File is the config file the settings were read from; "" when none was.
	File string
	// Coords is CoordMode parsed.
	Coords vision.CoordMode
	// ImageFormat is Format parsed.
	ImageFormat vision.Format
	// PriceIn and PriceOut are the preset's prices in USD per million tokens; 0 =
	// unknown (no cost is shown).
	PriceIn, PriceOut float64
	// DialectAuto says the dialect was not set: Resolve chose it from the model's
	// name (registry.ForModel), or chose the default.
	DialectAuto bool
	// ProviderAuto says the provider was not set: Resolve chose the
	// dialect's, or the base URL's.
	ProviderAuto bool
	// OpenCUACoords is the opencua dialect's coordinate space: pyautogui_coords
	// when set, else the model name's (smart for OpenCUA-7B/32B), else unit.
	OpenCUACoords string
}

// Resolve applies the preset and the defaults to s and checks every value. It is
// the one place settings become a Config.
func Resolve(s Settings) (Config, error) {
	c := Config{}
	if err := applyPreset(&s, &c); err != nil {
		return Config{}, err
	}
	for _, f := range fields() {
		if f.def != "" && f.value(&s).IsZero() {
			if err := f.set(&s, f.def, f.key); err != nil {
				return Config{}, err
			}
		}
		if f.isSlice { // a Config owns its slices
			v := f.value(&s)
			v.Set(reflect.ValueOf(slices.Clone(v.Interface().([]string))))
		}
	}
	if err := check(&s, &c); err != nil {
		return Config{}, err
	}
	c.Settings = s
	return c, nil
}

// applyPreset fills what s leaves empty from the named preset: the one rule by
// which a preset applies.
func applyPreset(s *Settings, c *Config) error {
	if s.Preset == "" {
		return nil
	}
	p, err := presetNamed(s.Preset)
	if err != nil {
		return err
	}
	s.Preset = p.Name
	fill := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	fill(&s.BaseURL, p.BaseURL)
	fill(&s.Model, p.Model)
	if p.KeyEnv == "" && p.BaseURL != "" {
		// A local server needs no key: never send it the default variable's
		// (an OpenAI key has no business at localhost:11434).
		fill(&s.APIKeyEnv, NoKey)
	}
	fill(&s.APIKeyEnv, p.KeyEnv)
	fill(&s.CoordMode, p.Coords)
	if s.MaxSide == 0 {
		s.MaxSide = p.MaxSide
	}
	c.PriceIn, c.PriceOut = p.PriceIn, p.PriceOut
	return nil
}

func presetNamed(name string) (Preset, error) {
	p, ok := PresetByName(name)
	if !ok {
		var names []string
		for _, p := range Presets() {
			names = append(names, p.Name)
		}
		return Preset{}, fmt.Errorf("unknown preset %q; presets: %s", name, strings.Join(names, ", "))
	}
	return p, nil
}

// WithPreset returns s switched to the named preset: the model settings a preset
// decides (endpoint, model, key variable, image size, coordinate mode) take the
// preset's values, the others are kept. An unknown name is an error.
func WithPreset(s Settings, name string) (Settings, error) {
	p, err := presetNamed(name)
	if err != nil {
		return s, err
	}
	s.Preset, s.BaseURL, s.Model, s.APIKeyEnv, s.MaxSide, s.CoordMode = p.Name, "", "", "", 0, ""
	var c Config
	if err := applyPreset(&s, &c); err != nil {
		return s, err
	}
	return s, nil
}

// Defaults is the Config of empty settings: every default.
func Defaults() Config {
	c, err := Resolve(Settings{})
	if err != nil {
		panic("config: the defaults do not resolve: " + err.Error())
	}
	return c
}

// MinCodeMemoryMB is the smallest code_memory_mb accepted: script.MinMemory,
// the smallest cap real code runs under (the CLI's tests check both).
const MinCodeMemoryMB = 64

// check validates and parses the resolved values.
func check(s *Settings, c *Config) error {
	var err error
	if c.Coords, err = vision.ParseCoordMode(s.CoordMode); err != nil {
		return fmt.Errorf("--coords: %q is not a coordinate mode (pixels, norm1000)", s.CoordMode)
	}
	s.CoordMode = string(c.Coords)
	if c.ImageFormat, err = vision.ParseFormat(s.Format); err != nil {
		return fmt.Errorf("--image-format: %w", err)
	}
	if err := resolveDialect(s, c); err != nil {
		return err
	}
	if err := resolveProvider(s, c); err != nil {
		return err
	}
	if err := resolveGrounder(s); err != nil {
		return err
	}
	if err := checkBaseURL("base_url", s.BaseURL); err != nil {
		return err
	}
	if err := checkBaseURL("grounder.base_url", s.Grounder.BaseURL); err != nil {
		return err
	}
	if err := s.MCP.check(); err != nil {
		return err
	}
	for _, r := range []struct {
		name      string
		v, lo, hi int
	}{
		{"max_steps", s.MaxSteps, 1, 10000},
		{"keep_images", s.KeepImages, 0, 100},
		{"image_max_side", s.MaxSide, 64, 8192},
		{"image_quality", s.Quality, 1, 100},
		{"max_tokens", s.MaxTokens, 1, 1 << 20},
		{"timeout_seconds", s.TimeoutSec, 1, 24 * 3600},
		{"plan_every", s.PlanEvery, 0, 10000},
		{"display", s.Display, 0, 64},
		{"code_memory_mb", s.CodeMemoryMB, MinCodeMemoryMB, 1 << 20},
	} {
		if r.v < r.lo || r.v > r.hi {
			return fmt.Errorf("%s is %d; it must be %d to %d", r.name, r.v, r.lo, r.hi)
		}
	}
	if s.Observe, err = observeLayers(s.Observe); err != nil {
		return err
	}
	if s.Sandbox != "process" && s.Sandbox != "none" {
		return fmt.Errorf("sandbox is %q; it must be process or none", s.Sandbox)
	}
	if s.TraceDir == "" {
		s.TraceDir = filepath.Join(DataHome(), "deskpilot", "traces")
	}
	if s.TraceDir, err = expandHome(s.TraceDir); err != nil {
		return err
	}
	if s.TraceDir, err = filepath.Abs(s.TraceDir); err != nil {
		return fmt.Errorf("trace_dir: %w", err)
	}
	return nil
}

// Observation layers (setting observe).
const (
	ObserveScreenshot = "screenshot" // the screenshot; always sent
	ObserveA11y       = "a11y"       // a table of the visible accessible elements
	ObserveOCR        = "ocr"        // the screen's text lines with positions
)

// observeLayers checks the observe setting: lower-cased, each layer once, the
// screenshot first.
func observeLayers(in []string) ([]string, error) {
	out := []string{ObserveScreenshot}
	for _, v := range in {
		v = strings.ToLower(strings.TrimSpace(v))
		switch v {
		case ObserveScreenshot, ObserveA11y, ObserveOCR:
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		default:
			return nil, fmt.Errorf("observe: %q is not a layer; layers: screenshot (always sent), a11y, ocr", v)
		}
	}
	return out, nil
}

// resolveDialect chooses the dialect and its options once for the run: an
// unset dialect is the one the model's name implies (the code dialect for a
// planner with a grounder, which describes elements in code), else the
// default; unset pyautogui_coords are the model's (OpenCUA, Aguvis), else
// pixels. The result is checked.
func resolveDialect(s *Settings, c *Config) error {
	grounded := s.Grounder.Model != ""
	c.OpenCUACoords = s.PyAutoGUICoords
	if c.OpenCUACoords == "" {
		c.OpenCUACoords = registry.OpenCUACoordsForModel(s.Model)
	}
	if c.OpenCUACoords == "" {
		c.OpenCUACoords = registry.PyAutoGUIUnit
	}
	if s.Dialect == "" {
		c.DialectAuto = true
		s.Dialect = registry.ForModel(s.Model)
		if s.Dialect == "" || grounded {
			s.Dialect = registry.Default
		}
	}
	if s.PyAutoGUICoords == "" {
		s.PyAutoGUICoords = registry.PyAutoGUICoordsForModel(s.Model)
	}
	if s.PyAutoGUICoords == "" {
		s.PyAutoGUICoords = registry.PyAutoGUIPixels
	}
	if err := registry.CheckPyAutoGUICoords(s.PyAutoGUICoords); err != nil {
		return fmt.Errorf("--pyautogui-coords: %w", err)
	}
	name, err := registry.Dialect(s.Dialect)
	if err != nil {
		return fmt.Errorf("--dialect: %w", err)
	}
	s.Dialect = name
	if grounded && s.Dialect != registry.Default {
		return fmt.Errorf("--grounder: the planner of a grounder writes code (dialect %q), but the dialect is %q; set --dialect %s or leave it unset",
			registry.Default, s.Dialect, registry.Default)
	}
	return nil
}

// DialectNote names the run's dialect and why it was chosen, for the terminal
// and the app: "uitars-1.5", "qwen2.5 (by model name)", "code (default)",
// "code (planner of the grounder)", "pyautogui, smart coordinates (by model
// name)".
func (c Config) DialectNote() string {
	n := c.Dialect
	switch n {
	case "pyautogui":
		n += ", " + c.PyAutoGUICoords + " coordinates"
	case "opencua":
		n += ", " + c.OpenCUACoords + " coordinates"
	}
	switch {
	case !c.DialectAuto:
		return n
	case c.HasGrounder():
		return n + " (planner of the grounder)"
	case registry.ForModel(c.Model) == c.Dialect:
		return n + " (by model name)"
	}
	return n + " (default)"
}

// resolveProvider chooses the wire format: the one set, else the one the
// dialect speaks through (the vendor tools), else the base URL's. A dialect
// that needs one provider refuses another.
func resolveProvider(s *Settings, c *Config) error {
	need := registry.Provider(s.Dialect)
	s.Provider = strings.ToLower(strings.TrimSpace(s.Provider))
	if s.Provider == "" {
		c.ProviderAuto = true
		s.Provider = need
		if s.Provider == "" || need == convo.ProviderChat {
			s.Provider = convo.ProviderFor(s.BaseURL)
		}
		if need == convo.ProviderChat {
			s.Provider = need
		}
	}
	if !slices.Contains(convo.Providers(), s.Provider) {
		return fmt.Errorf("--provider: %q is not a provider; providers: %s", s.Provider, strings.Join(convo.Providers(), ", "))
	}
	if need != "" && need != convo.ProviderChat && s.Provider != need {
		return fmt.Errorf("--provider: the %s dialect speaks through the %s provider, not %s; leave provider unset or set it to %s",
			s.Dialect, need, s.Provider, need)
	}
	return nil
}

// ProviderNote names the run's provider and why: "anthropic (by base
// URL)", "responses (the dialect's)", "chat".
func (c Config) ProviderNote() string {
	if !c.ProviderAuto {
		return c.Provider
	}
	if registry.Provider(c.Dialect) == c.Provider && c.Provider != convo.ProviderChat {
		return c.Provider + " (the dialect's)"
	}
	if c.Provider != convo.ProviderChat {
		return c.Provider + " (by base URL)"
	}
	return c.Provider
}

// resolveGrounder fills and checks the [grounder] table. Without a model the
// table must be empty. The grounder's dialect defaults to the one its name
// implies, else "point"; its endpoint to the planner's; its key to the
// planner's only when it shares the planner's endpoint, so a key is never sent
// to a server it was not configured for.
func resolveGrounder(s *Settings) error {
	g := &s.Grounder
	g.Model = strings.TrimSpace(g.Model)
	if g.Model == "" {
		if *g != (GrounderSettings{}) {
			return errors.New("grounder: base_url, dialect or api_key_env is set but no grounder model; set --grounder MODEL (grounder.model)")
		}
		return nil
	}
	if g.Dialect == "" {
		g.Dialect = registry.GrounderForModel(g.Model)
	}
	if g.Dialect == "" {
		g.Dialect = "point"
	}
	name, err := registry.Grounder(g.Dialect)
	if err != nil {
		return fmt.Errorf("--grounder-dialect: %w", err)
	}
	g.Dialect = name
	g.BaseURL = strings.TrimRight(strings.TrimSpace(g.BaseURL), "/")
	shared := g.BaseURL == "" || g.BaseURL == strings.TrimRight(s.BaseURL, "/")
	if g.BaseURL == "" {
		g.BaseURL = s.BaseURL
	}
	if g.BaseURL == "" {
		return errors.New("grounder: no endpoint; set --grounder-base-url or --base-url")
	}
	if g.APIKeyEnv == "" {
		g.APIKeyEnv = NoKey
		if shared {
			g.APIKeyEnv = s.APIKeyEnv
		}
	}
	return nil
}

// NoKey as api_key_env means the endpoint takes no key; local presets set it.
const NoKey = "none"

// APIKey reads the key from the environment variable the config names (lookup
// is os.LookupEnv in production; nil means it); "" for NoKey. The key is never
// stored in a Config, logged, or written to a trace.
func (c Config) APIKey(lookup func(string) (string, bool)) string {
	return readKey(c.APIKeyEnv, lookup)
}

// GrounderAPIKey reads the grounder's key as APIKey reads the planner's.
func (c Config) GrounderAPIKey(lookup func(string) (string, bool)) string {
	return readKey(c.Grounder.APIKeyEnv, lookup)
}

// HasGrounder reports whether a grounding model is configured.
func (c Config) HasGrounder() bool { return c.Grounder.Model != "" }

// readKey reads the variable env names; "" for NoKey or no name.
func readKey(env string, lookup func(string) (string, bool)) string {
	if env == NoKey || env == "" {
		return ""
	}
	if lookup == nil {
		lookup = os.LookupEnv
	}
	v, _ := lookup(env)
	return v
}

// HasModel reports whether an endpoint and a model are set.
func (c Config) HasModel() bool { return c.BaseURL != "" && c.Model != "" }

// ErrNoModel explains how to configure a model.
const ErrNoModel = "no model configured: set --base-url and --model (or OPENAI_BASE_URL and DESKPILOT_MODEL, or --preset), e.g. --preset ollama for a local Ollama"
