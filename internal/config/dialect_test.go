package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// The dialect is chosen once, in Resolve: the one set, else the model name's,
// else code; the pyautogui coordinates likewise.
func TestResolveDialect(t *testing.T) {
	tests := []struct {
		name       string
		s          Settings
		dialect    string
		auto       bool
		pyCoords   string
		cuaCoords  string
		provider   string
		grounder   string // the grounder's dialect; "" = none
		wantErrSub string
	}{
		{name: "nothing set", s: Settings{}, dialect: "code", auto: true, pyCoords: "pixels"},
		{name: "ui-tars-1.5 by name", s: Settings{Model: "ui-tars-1.5-7b"}, dialect: "uitars-1.5", auto: true, pyCoords: "pixels"},
		{name: "ui-tars 1.0 with an org prefix", s: Settings{Model: "bytedance/UI-TARS-7B-DPO"}, dialect: "uitars-1.0", auto: true, pyCoords: "pixels"},
		{name: "the ollama preset's model", s: Settings{Preset: "ollama"}, dialect: "qwen2.5", auto: true, pyCoords: "pixels"},
		{name: "set beats the name", s: Settings{Model: "qwen3-vl-8b", Dialect: "Code"}, dialect: "code", pyCoords: "pixels"},
		{name: "opencua's smart pixels", s: Settings{Model: "xlangai/OpenCUA-7B"}, dialect: "opencua", auto: true, pyCoords: "pixels", cuaCoords: "smart"},
		{name: "opencua's fractions", s: Settings{Model: "OpenCUA-A3B"}, dialect: "opencua", auto: true, pyCoords: "pixels", cuaCoords: "unit"},
		{name: "opencua coordinates set", s: Settings{Model: "OpenCUA-A3B", PyAutoGUICoords: "smart"}, dialect: "opencua", auto: true, pyCoords: "smart", cuaCoords: "smart"},
		{name: "a vendor tool picks its provider", s: Settings{Model: "claude-opus-4-7", Dialect: "anthropic-computer", BaseURL: "http://h/v1"}, dialect: "anthropic-computer", pyCoords: "pixels", provider: "anthropic"},
		{name: "a vendor tool refuses another provider", s: Settings{Dialect: "gemini-computer", Provider: "chat"}, wantErrSub: "the gemini-computer dialect speaks through the gemini provider, not chat"},
		{name: "provider by base URL", s: Settings{BaseURL: "https://api.anthropic.com/v1", Model: "claude-sonnet-4-5"}, dialect: "code", auto: true, pyCoords: "pixels", provider: "anthropic"},
		{name: "bad provider", s: Settings{Provider: "telnet"}, wantErrSub: `--provider: "telnet" is not a provider`},
		{name: "holo3 over chat", s: Settings{Model: "Hcompany/Holo3-35B-A3B", BaseURL: "https://api.anthropic.com/v1"}, dialect: "holo3", auto: true, pyCoords: "pixels", provider: "chat"},
		{name: "coordinates set beat the name", s: Settings{Model: "aguvis-7b", PyAutoGUICoords: "pixels"}, dialect: "pyautogui", auto: true, pyCoords: "pixels"},
		{name: "unknown model", s: Settings{Model: "gpt-4.1"}, dialect: "code", auto: true, pyCoords: "pixels"},
		{name: "a grounder makes the planner code", s: Settings{Model: "ui-tars-1.5-7b", BaseURL: "http://h/v1", Grounder: GrounderSettings{Model: "GTA1-7B"}},
			dialect: "code", auto: true, pyCoords: "pixels", grounder: "gta1"},
		{name: "grounder by name", s: Settings{BaseURL: "http://h/v1", Grounder: GrounderSettings{Model: "ui-tars-1.5-7b"}},
			dialect: "code", auto: true, pyCoords: "pixels", grounder: "uitars-1.5"},
		{name: "unknown grounder model reads points", s: Settings{BaseURL: "http://h/v1", Grounder: GrounderSettings{Model: "my-grounder"}},
			dialect: "code", auto: true, pyCoords: "pixels", grounder: "point"},
		{name: "grounder with a non-code planner", s: Settings{BaseURL: "http://h/v1", Dialect: "qwen3", Grounder: GrounderSettings{Model: "gta1"}},
			wantErrSub: `--grounder: the planner of a grounder writes code (dialect "code"), but the dialect is "qwen3"`},
		{name: "bad pyautogui coordinates", s: Settings{PyAutoGUICoords: "polar"}, wantErrSub: `--pyautogui-coords: pyautogui_coords "polar"`},
		{name: "bad grounder dialect", s: Settings{BaseURL: "http://h/v1", Grounder: GrounderSettings{Model: "g", Dialect: "klingon"}},
			wantErrSub: `--grounder-dialect: unknown grounder "klingon"; grounders: doubao, gta1`},
		{name: "grounder table without a model", s: Settings{Grounder: GrounderSettings{BaseURL: "http://g/v1"}},
			wantErrSub: "no grounder model; set --grounder MODEL"},
		{name: "grounder without any endpoint", s: Settings{Grounder: GrounderSettings{Model: "gta1"}},
			wantErrSub: "grounder: no endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Resolve(tt.s)
			if tt.wantErrSub != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrSub) {
					t.Fatalf("err = %v, want %q", err, tt.wantErrSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Dialect != tt.dialect || c.DialectAuto != tt.auto || c.PyAutoGUICoords != tt.pyCoords {
				t.Errorf("dialect %q auto %v coords %q; want %q %v %q", c.Dialect, c.DialectAuto, c.PyAutoGUICoords, tt.dialect, tt.auto, tt.pyCoords)
			}
			if tt.cuaCoords != "" && c.OpenCUACoords != tt.cuaCoords {
				t.Errorf("opencua coords %q, want %q", c.OpenCUACoords, tt.cuaCoords)
			}
			if want := firstNonEmpty(tt.provider, "chat"); c.Provider != want {
				t.Errorf("provider %q, want %q", c.Provider, want)
			}
			if c.Grounder.Dialect != tt.grounder || c.HasGrounder() != (tt.grounder != "") {
				t.Errorf("grounder %+v; want dialect %q", c.Grounder, tt.grounder)
			}
		})
	}
}

// A grounder gets the planner's key only when it shares the planner's
// endpoint: a key is never sent to a server it was not configured for.
func TestGrounderKey(t *testing.T) {
	lookup := env(map[string]string{"PLANNER_KEY": "sk-planner", "GROUNDER_KEY": "sk-grounder"})
	tests := []struct {
		name string
		g    GrounderSettings
		env  string
		key  string
		url  string
	}{
		{"same endpoint", GrounderSettings{Model: "gta1"}, "PLANNER_KEY", "sk-planner", "http://planner/v1"},
		{"same endpoint written with a slash", GrounderSettings{Model: "gta1", BaseURL: "http://planner/v1/"}, "PLANNER_KEY", "sk-planner", "http://planner/v1"},
		{"another endpoint", GrounderSettings{Model: "gta1", BaseURL: "http://grounder:8000/v1"}, NoKey, "", "http://grounder:8000/v1"},
		{"another endpoint with its key", GrounderSettings{Model: "gta1", BaseURL: "http://grounder:8000/v1", APIKeyEnv: "GROUNDER_KEY"}, "GROUNDER_KEY", "sk-grounder", "http://grounder:8000/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Resolve(Settings{BaseURL: "http://planner/v1", Model: "m", APIKeyEnv: "PLANNER_KEY", Grounder: tt.g})
			if err != nil {
				t.Fatal(err)
			}
			if c.Grounder.APIKeyEnv != tt.env || c.GrounderAPIKey(lookup) != tt.key || c.Grounder.BaseURL != tt.url {
				t.Errorf("grounder key env %q key %q url %q; want %q %q %q",
					c.Grounder.APIKeyEnv, c.GrounderAPIKey(lookup), c.Grounder.BaseURL, tt.env, tt.key, tt.url)
			}
		})
	}
}

// The [grounder] table is read from the file, the DESKPILOT_GROUNDER_*
// variables and the --grounder* flags, in that precedence, like every setting.
func TestGrounderTableSources(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	file := "base_url = \"http://planner/v1\"\nmodel = \"m\"\n\n[grounder]\nmodel = \"from-file\"\ndialect = \"holo2\"\nbase_url = \"http://g/v1\"\n"
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	flags := AddFlags(fs)
	if err := fs.Parse([]string{"--grounder-dialect", "ui-venus"}); err != nil {
		t.Fatal(err)
	}
	c, err := Load(Sources{Path: path, Lookup: env(map[string]string{"DESKPILOT_GROUNDER_MODEL": "from-env"}), Flags: flags})
	if err != nil {
		t.Fatal(err)
	}
	if c.Grounder.Model != "from-env" || c.Grounder.Dialect != "ui-venus" || c.Grounder.BaseURL != "http://g/v1" {
		t.Errorf("grounder %+v; want the environment's model, the flag's dialect and the file's endpoint", c.Grounder)
	}
	for _, name := range []string{"grounder", "grounder-base-url", "grounder-dialect", "grounder-api-key-env", "pyautogui-coords"} {
		if fs.Lookup(name) == nil {
			t.Errorf("no --%s flag", name)
		}
	}
	if err := os.WriteFile(path, []byte("[grounder]\nmodle = \"x\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(path); err == nil || !strings.Contains(err.Error(), `unknown setting "grounder.modle"`) {
		t.Errorf("a misspelt grounder key gives %v", err)
	}
	// A saved file keeps the table.
	s := Settings{Model: "m", Grounder: GrounderSettings{Model: "gta1-7b", BaseURL: "http://g/v1"}}
	if err := SaveFile(path, s); err != nil {
		t.Fatal(err)
	}
	back, err := LoadFile(path)
	if err != nil || back.Grounder != s.Grounder {
		t.Errorf("round trip %+v %v", back.Grounder, err)
	}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
