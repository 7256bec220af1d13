package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Config holds every setting of a run. The CLI and the app read the same Config:
// defaults, then the config file, then the environment, then flags (DESIGN.md §7).
// The zero value of each field means its documented default; Resolved fills them in.
// Config never holds an API key: it names the environment variable (or keyring entry)
// that holds it.
type Config struct {
	Preset      string  `toml:"preset"`          // model preset name (agent/llm presets); "" = custom
	BaseURL     string  `toml:"base_url"`        // OpenAI-compatible endpoint, e.g. http://localhost:11434/v1
	Model       string  `toml:"model"`           // model name sent to the endpoint
	APIKeyEnv   string  `toml:"api_key_env"`     // environment variable holding the key; default OPENAI_API_KEY
	CoordMode   string  `toml:"coord_mode"`      // "pixels" (default) or "norm1000"
	Dialect     string  `toml:"dialect"`         // reply format (agent/dialect); default "code"
	MaxSide     int     `toml:"image_max_side"`  // longest side of the image the model sees; default 1366
	ImageFormat string  `toml:"image_format"`    // "png" (default) or "jpeg"
	MaxSteps    int     `toml:"max_steps"`       // step limit; default 30
	KeepImages  int     `toml:"keep_images"`     // screenshots kept in the prompt; default 3
	PlanEvery   int     `toml:"plan_every"`      // planning interval in steps; 0 = no planning
	Display     int     `toml:"display"`         // index of the target monitor; default 0 (the primary)
	XDisplay    string  `toml:"x_display"`       // X display name; "" = $DISPLAY
	TraceDir    string  `toml:"trace_dir"`       // default $XDG_DATA_HOME/deskpilot/traces
	Temperature float64 `toml:"temperature"`     // sampling temperature; default 0
	MaxTokens   int     `toml:"max_tokens"`      // reply limit; default 2048
	TimeoutSec  int     `toml:"timeout_seconds"` // per model call; default 120
	Retries     int     `toml:"retries"`         // model call retries; default 4
	NoStream    bool    `toml:"no_stream"`       // turn streaming off for servers that lack it

	// Browser settings.
	SearchBackend string `toml:"search_backend"`        // "duckduckgo" (default), "searxng", "brave", "serper"
	SearchURL     string `toml:"search_url"`            // base URL of the search backend (SearXNG needs one)
	SearchKeyEnv  string `toml:"search_key_env"`        // environment variable holding the search API key
	AllowPrivate  bool   `toml:"browser_allow_private"` // let visit_page reach private/loopback addresses

	// Safety.
	Confirm      []string `toml:"confirm"`       // actions needing approval; default launch, open_url, close_combos
	AllowDomains []string `toml:"allow_domains"` // when set, open_url and the browser reach only these domains
	DenyDomains  []string `toml:"deny_domains"`  // domains open_url and the browser never reach
	DenyApps     []string `toml:"deny_apps"`     // programs launch refuses
}

// Defaults used when a field is zero.
const (
	DefaultMaxSide    = 1366
	DefaultMaxSteps   = 30
	DefaultKeepImages = 3
	DefaultMaxTokens  = 2048
	DefaultTimeout    = 120 * time.Second
	DefaultRetries    = 4
)

// Resolved returns a copy with every zero field set to its default.
func (c Config) Resolved() Config {
	if c.APIKeyEnv == "" {
		c.APIKeyEnv = "OPENAI_API_KEY"
	}
	if c.CoordMode == "" {
		c.CoordMode = "pixels"
	}
	if c.MaxSide <= 0 {
		c.MaxSide = DefaultMaxSide
	}
	if c.ImageFormat == "" {
		c.ImageFormat = "png"
	}
	if c.MaxSteps <= 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	if c.KeepImages <= 0 {
		c.KeepImages = DefaultKeepImages
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	if c.TimeoutSec <= 0 {
		c.TimeoutSec = int(DefaultTimeout / time.Second)
	}
	if c.Retries <= 0 {
		c.Retries = DefaultRetries
	}
	if c.TraceDir == "" {
		c.TraceDir = filepath.Join(dataHome(), "deskpilot", "traces")
	}
	if c.SearchBackend == "" {
		c.SearchBackend = "duckduckgo"
	}
	if c.Confirm == nil {
		c.Confirm = []string{"launch", "open_url", "close_combos"}
	}
	return c
}

// APIKey reads the key from the environment variable the config names. The key is
// never stored in Config, logged, or written to a trace.
func (c Config) APIKey() string {
	return os.Getenv(c.Resolved().APIKeyEnv)
}

// ConfigPath is $XDG_CONFIG_HOME/deskpilot/config.toml (~/.config when unset).
func ConfigPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "deskpilot", "config.toml")
}

func dataHome() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "share")
}

// LoadConfig reads the config file at path; a missing file yields the zero Config.
func LoadConfig(path string) (Config, error) {
	var c Config
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read config: %w", err)
	}
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		return c, fmt.Errorf("config %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return c, fmt.Errorf("config %s: unknown setting %q", path, und[0].String())
	}
	return c, nil
}

// SaveConfig writes c to path atomically (temp file + rename), creating the folder.
func SaveConfig(path string, c Config) error {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(c); err != nil {
		return fmt.Errorf("encode config: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("save config: %w", err)
	}
	return nil
}

// ApplyEnv overlays the environment (lookup is os.LookupEnv in production):
// OPENAI_BASE_URL, DESKPILOT_MODEL and DESKPILOT_<FIELD> for the other settings.
func (c Config) ApplyEnv(lookup func(string) (string, bool)) (Config, error) {
	str := func(name string, dst *string) {
		if v, ok := lookup(name); ok && v != "" {
			*dst = v
		}
	}
	num := func(name string, dst *int) error {
		if v, ok := lookup(name); ok && v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("%s: %q is not a whole number", name, v)
			}
			*dst = n
		}
		return nil
	}
	flag := func(name string, dst *bool) {
		if v, ok := lookup(name); ok && v != "" {
			*dst = v == "1" || strings.EqualFold(v, "true") || strings.EqualFold(v, "yes")
		}
	}
	str("OPENAI_BASE_URL", &c.BaseURL)
	str("DESKPILOT_BASE_URL", &c.BaseURL)
	str("DESKPILOT_MODEL", &c.Model)
	str("DESKPILOT_PRESET", &c.Preset)
	str("DESKPILOT_API_KEY_ENV", &c.APIKeyEnv)
	str("DESKPILOT_COORD_MODE", &c.CoordMode)
	str("DESKPILOT_IMAGE_FORMAT", &c.ImageFormat)
	str("DESKPILOT_TRACE_DIR", &c.TraceDir)
	str("DESKPILOT_X_DISPLAY", &c.XDisplay)
	str("DESKPILOT_SEARCH_BACKEND", &c.SearchBackend)
	str("DESKPILOT_SEARCH_URL", &c.SearchURL)
	str("DESKPILOT_SEARCH_KEY_ENV", &c.SearchKeyEnv)
	flag("DESKPILOT_BROWSER_ALLOW_PRIVATE", &c.AllowPrivate)
	flag("DESKPILOT_NO_STREAM", &c.NoStream)
	for name, dst := range map[string]*int{
		"DESKPILOT_IMAGE_MAX_SIDE": &c.MaxSide,
		"DESKPILOT_MAX_STEPS":      &c.MaxSteps,
		"DESKPILOT_KEEP_IMAGES":    &c.KeepImages,
		"DESKPILOT_PLAN_EVERY":     &c.PlanEvery,
		"DESKPILOT_DISPLAY":        &c.Display,
		"DESKPILOT_MAX_TOKENS":     &c.MaxTokens,
		"DESKPILOT_TIMEOUT":        &c.TimeoutSec,
		"DESKPILOT_RETRIES":        &c.Retries,
	} {
		if err := num(name, dst); err != nil {
			return c, err
		}
	}
	return c, nil
}
