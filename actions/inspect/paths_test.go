package inspect_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/actions/inspect"
)

// home builds a fake home folder with documents, credentials and links.
func home(t *testing.T) (homeDir, configDir, outside string) {
	t.Helper()
	homeDir, outside = t.TempDir(), t.TempDir()
	configDir = filepath.Join(homeDir, ".config")
	files := map[string]string{
		"Documents/plan.txt":                  "the plan",
		".ssh/id_ed25519":                     "PRIVATE KEY",
		".gnupg/secring.gpg":                  "gpg",
		".local/share/keyrings/login.keyring": "keyring",
		".config/deskpilot/config.toml":       "api_key = 'sk-secret'",
		"Private/diary.txt":                   "dear diary",
	}
	for name, body := range files {
		p := filepath.Join(homeDir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(outside, "elsewhere.txt"), []byte("outside"), 0o644)
	links := map[string]string{
		"Documents/key-link.txt":   filepath.Join(homeDir, ".ssh/id_ed25519"),
		"Documents/config-link":    filepath.Join(homeDir, ".config/deskpilot"),
		"Documents/outside-link":   filepath.Join(outside, "elsewhere.txt"),
		"Documents/plan-link.txt":  filepath.Join(homeDir, "Documents/plan.txt"),
		"Documents/escape-dir":     outside,
		"Documents/keyrings-alias": filepath.Join(homeDir, ".local/share/keyrings"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(homeDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return homeDir, configDir, outside
}

func TestPathChecks(t *testing.T) {
	homeDir, configDir, outside := home(t)
	downloads := t.TempDir()
	os.WriteFile(filepath.Join(downloads, "fetched.txt"), []byte("downloaded"), 0o644)
	in := inspect.New(inspect.Options{Home: homeDir, ConfigDir: configDir, DownloadDir: downloads, Deny: []string{"~/Private"}})
	cases := []struct {
		path string
		want string // text, or the error it must wrap
		err  error
	}{
		{"~/Documents/plan.txt", "the plan", nil},
		{"Documents/plan.txt", "the plan", nil}, // relative to the first root (home)
		{filepath.Join(homeDir, "Documents/plan-link.txt"), "the plan", nil},
		{filepath.Join(downloads, "fetched.txt"), "downloaded", nil},
		{"~/.ssh/id_ed25519", "", inspect.ErrDenied},
		{"~/.ssh", "", inspect.ErrDenied},
		{"~/.gnupg/secring.gpg", "", inspect.ErrDenied},
		{"~/.local/share/keyrings/login.keyring", "", inspect.ErrDenied},
		{"~/.config/deskpilot/config.toml", "", inspect.ErrDenied},
		{"~/Private/diary.txt", "", inspect.ErrDenied},
		{"~/Documents/key-link.txt", "", inspect.ErrDenied},
		{"~/Documents/config-link/config.toml", "", inspect.ErrDenied},
		{"~/Documents/keyrings-alias/login.keyring", "", inspect.ErrDenied},
		{"~/Documents/../.ssh/id_ed25519", "", inspect.ErrDenied},
		{"~/.ssh/missing.zip/member", "", inspect.ErrDenied},
		{"~/Documents/outside-link", "", inspect.ErrOutsideRoots},
		{"~/Documents/escape-dir/elsewhere.txt", "", inspect.ErrOutsideRoots},
		{filepath.Join(outside, "elsewhere.txt"), "", inspect.ErrOutsideRoots},
		{"/etc/hostname", "", inspect.ErrOutsideRoots},
		{"/etc/nothing/here.txt", "", inspect.ErrOutsideRoots},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			got, err := in.Inspect(t.Context(), c.path, "")
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("error = %v, want %v", err, c.err)
				}
				if strings.Contains(err.Error(), "PRIVATE KEY") || strings.Contains(err.Error(), "sk-secret") {
					t.Errorf("error leaks file content: %v", err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("Inspect = %q, %v; want %q", got, err, c.want)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		_, err := in.Inspect(t.Context(), "~/Documents/nope.pdf", "")
		if err == nil || err.Error() != "inspect: no such file: ~/Documents/nope.pdf" {
			t.Errorf("error = %v", err)
		}
		_, err = in.Inspect(t.Context(), "~/Documents/plan.txt/inner", "")
		if err == nil || !strings.Contains(err.Error(), "is a file, not a zip archive") {
			t.Errorf("error = %v", err)
		}
	})
	t.Run("empty path", func(t *testing.T) {
		if _, err := in.Inspect(t.Context(), "  ", ""); err == nil {
			t.Error("empty path accepted")
		}
	})
}

func TestDefaultRootIsHome(t *testing.T) {
	homeDir, configDir, outside := home(t)
	in := inspect.New(inspect.Options{Home: homeDir, ConfigDir: configDir})
	if got, err := in.Inspect(t.Context(), "~/Documents/plan.txt", ""); err != nil || got != "the plan" {
		t.Errorf("home file: %q, %v", got, err)
	}
	if _, err := in.Inspect(t.Context(), filepath.Join(outside, "elsewhere.txt"), ""); !errors.Is(err, inspect.ErrOutsideRoots) {
		t.Errorf("outside file: %v", err)
	}
}
