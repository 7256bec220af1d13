package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"deskpilot/vision"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestPrecedence(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte("preset = \"ollama\"\nmodel = \"from-file\"\nmax_steps = 7\nkeep_images = 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	flags := AddFlags(fs)
	if err := fs.Parse([]string{"--max-steps", "9", "--coords", "norm1000", "--marks", "--observe", "a11y,ocr"}); err != nil {
		t.Fatal(err)
	}
	c, err := Load(Sources{Path: path, Lookup: env(map[string]string{"DESKPILOT_MODEL": "from-env", "DESKPILOT_KEEP_IMAGES": ""}), Flags: flags})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case c.Model != "from-env":
		t.Errorf("model %q: the environment beats the file", c.Model)
	case c.MaxSteps != 9:
		t.Errorf("max steps %d: the flag beats the file", c.MaxSteps)
	case c.KeepImages != 2:
		t.Errorf("keep images %d: an empty variable is unset, the file's value stays", c.KeepImages)
	case c.BaseURL != "http://localhost:11434/v1" || c.MaxSide != 1288:
		t.Errorf("base URL %q side %d: the preset fills what nothing else set", c.BaseURL, c.MaxSide)
	case c.Coords != vision.CoordNorm1000:
		t.Errorf("coords %q", c.Coords)
	case c.MaxTokens != 2048 || c.Format != "png":
		t.Errorf("max tokens %d, format %q: defaults", c.MaxTokens, c.Format)
	case c.APIKeyEnv != NoKey || c.APIKey(env(map[string]string{"OPENAI_API_KEY": "sk-real"})) != "":
		t.Errorf("key env %q: a local preset sends no key, not even OPENAI_API_KEY's", c.APIKeyEnv)
	}
	if !c.Marks || !slices.Equal(c.Observe, []string{"screenshot", "a11y", "ocr"}) {
		t.Errorf("marks %v, observe %q: from the flags", c.Marks, c.Observe)
	}
	if c.File != path {
		t.Errorf("file %q", c.File)
	}
}

func TestResolveChecks(t *testing.T) {
	home, _ := os.UserHomeDir()
	tests := []struct {
		name string
		s    Settings
		want string // error text; "" = resolves
	}{
		{"defaults", Settings{}, ""},
		{"unknown preset", Settings{Preset: "nope"}, `unknown preset "nope"; presets: openai`},
		{"bad coords", Settings{CoordMode: "polar"}, `--coords: "polar" is not a coordinate mode`},
		{"bad format", Settings{Format: "gif"}, "--image-format"},
		{"bad dialect", Settings{Dialect: "klingon"}, `unknown dialect "klingon"; dialects: code`},
		{"negative steps", Settings{MaxSteps: -3}, "max_steps is -3; it must be 1 to 10000"},
		{"quality too high", Settings{Quality: 101}, "image_quality is 101"},
		{"huge side", Settings{MaxSide: 100000}, "image_max_side"},
		{"bad layer", Settings{Observe: []string{"a11y", "braille"}}, `observe: "braille" is not a layer; layers: screenshot`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Resolve(tt.s)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if c.MaxSteps != 30 || c.KeepImages != 0 || c.MaxSide != 1366 || c.Dialect != "code" || !c.DialectAuto ||
					c.APIKeyEnv != "OPENAI_API_KEY" || !strings.HasPrefix(c.TraceDir, "/") ||
					len(c.Confirm) != 4 || c.SearchBackend != "duckduckgo" {
					t.Errorf("defaults %+v", c)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if c := Defaults(); !slices.Equal(c.Observe, []string{"screenshot"}) || c.Marks {
		t.Errorf("observe %q, marks %v: by default the screenshot alone", c.Observe, c.Marks)
	}
	if c, err := Resolve(Settings{Observe: []string{" OCR", "a11y", "ocr"}}); err != nil || !slices.Equal(c.Observe, []string{"screenshot", "ocr", "a11y"}) {
		t.Errorf("observe %q, %v: the screenshot first, each layer once", c.Observe, err)
	}
	c, err := Resolve(Settings{TraceDir: "~/runs"})
	if err != nil || c.TraceDir != filepath.Join(home, "runs") {
		t.Errorf("~ not expanded: %q %v", c.TraceDir, err)
	}
}

func TestFileTraceDir(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	for text, want := range map[string]string{
		"trace_dir = \"runs\"\n":      "must be an absolute path or start with ~/",
		"trace_dir = \"~/runs\"\n":    "",
		"trace_dir = \"/srv/runs\"\n": "",
		"modle = \"x\"\n":             `unknown setting "modle"`,
	} {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := LoadFile(path)
		if want == "" {
			if err != nil || strings.HasPrefix(s.TraceDir, "~") {
				t.Errorf("%s: %q %v", text, s.TraceDir, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", text, err, want)
		}
	}
}

func TestWithPresetAndSave(t *testing.T) {
	s := Settings{Preset: "openai", BaseURL: "http://mine/v1", Model: "mine", MaxSteps: 12}
	s, err := WithPreset(s, "ollama")
	if err != nil {
		t.Fatal(err)
	}
	if s.BaseURL != "http://localhost:11434/v1" || s.Model != "qwen2.5vl:7b" || s.MaxSteps != 12 || s.APIKeyEnv != NoKey {
		t.Errorf("with preset: %+v", s)
	}
	path := filepath.Join(t.TempDir(), "sub", "config.toml")
	if err := SaveFile(path, s); err != nil {
		t.Fatal(err)
	}
	back, err := LoadFile(path)
	if err != nil || back.Model != s.Model || back.MaxSteps != 12 {
		t.Errorf("round trip %+v %v", back, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
}
