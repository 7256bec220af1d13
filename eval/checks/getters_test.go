package checks

import (
	"context"
	"errors"
	"fmt"
	"image"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dirEnv is an Env over a folder: the task's home is home, paths starting
// with ~ or /home/user map into it.
type dirEnv struct{ home, cache string }

func (e dirEnv) Path(p string) string {
	p = strings.TrimPrefix(strings.TrimPrefix(p, "/home/user"), "~")
	return filepath.Join(e.home, p)
}
func (e dirEnv) CacheDir() string { return e.cache }
func (e dirEnv) CloudFile(_ context.Context, url string) (string, error) {
	return "", ErrNotCached
}
func (e dirEnv) Exec(context.Context, any, bool) (ExecResult, error) {
	return ExecResult{}, os.ErrInvalid
}
func (e dirEnv) Dial(context.Context, int) (net.Conn, error)       { return nil, os.ErrInvalid }
func (e dirEnv) AccessibilityTree(context.Context) (string, error) { return "", ErrUnavailable }
func (e dirEnv) Accessibility(context.Context) (A11yReader, error) {
	return nil, errors.New("the folder has no accessibility bus")
}
func (e dirEnv) Windows(context.Context) ([]Window, error) { return nil, nil }
func (e dirEnv) Screen() image.Point                       { return image.Pt(1920, 1080) }
func (e dirEnv) Infeasible() bool                          { return false }

func newDirEnv(t *testing.T) dirEnv {
	e := dirEnv{home: t.TempDir(), cache: t.TempDir()}
	for name, text := range map[string]string{"a.txt": "A", "b.txt": "B"} {
		if err := os.WriteFile(filepath.Join(e.home, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// TestVMFile: get_vm_file's single, multi and gives forms, a missing file as
// None in its place.
func TestVMFile(t *testing.T) {
	e := newDirEnv(t)
	tests := []struct {
		name string
		cfg  string
		want []string // file contents; "None" for nil; one entry = a single path
	}{
		{"single", `{"type": "vm_file", "path": "/home/user/a.txt", "dest": "a.txt"}`, []string{"A"}},
		{"missing", `{"type": "vm_file", "path": "~/nope.txt", "dest": "n.txt"}`, []string{"None"}},
		{"multi gives first", `{"type": "vm_file", "multi": true, "path": ["~/a.txt", "~/b.txt"], "dest": ["1", "2"]}`, []string{"A"}},
		{"multi gives both", `{"type": "vm_file", "multi": true, "path": ["~/a.txt", "~/b.txt"], "dest": ["1", "2"], "gives": [0, 1]}`, []string{"A", "B"}},
		{"multi, one missing", `{"type": "vm_file", "multi": true, "path": ["~/nope", "~/b.txt"], "dest": ["1", "2"], "gives": [0, 1]}`, []string{"None", "B"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := rulesOf(t, tt.cfg).(map[string]any)
			v, err := Get(t.Context(), e, cfg)
			if err != nil {
				t.Fatal(err)
			}
			vals := []any{v}
			if len(tt.want) > 1 {
				vals, _ = v.([]any)
			}
			if len(vals) != len(tt.want) {
				t.Fatalf("got %v, want %d values", v, len(tt.want))
			}
			for i, w := range tt.want {
				if w == "None" {
					if vals[i] != nil {
						t.Errorf("value %d = %v, want None", i, vals[i])
					}
					continue
				}
				p, _ := vals[i].(string)
				data, err := os.ReadFile(p)
				if err != nil || string(data) != w || filepath.Dir(p) != e.cache {
					t.Errorf("value %d = %s (%q, %v), want a copy in the cache holding %q", i, p, data, err, w)
				}
			}
		})
	}
	if _, err := Get(t.Context(), e, map[string]any{"type": "vm_file", "path": "~/a.txt", "dest": "../x"}); err == nil {
		t.Error("a dest outside the cache folder was accepted")
	}
}

// TestCloudFileNotCached: an input the cache lacks is an error naming it.
func TestCloudFileNotCached(t *testing.T) {
	e := newDirEnv(t)
	_, err := Get(t.Context(), e, map[string]any{"type": "cloud_file", "path": "https://example.org/x.xlsx", "dest": "x.xlsx"})
	if err == nil || !strings.Contains(err.Error(), "https://example.org/x.xlsx") {
		t.Errorf("err = %v", err)
	}
	urls := CloudURLs(map[string]any{"type": "cloud_file", "multi": true, "path": []any{"u1", "u2"}, "dest": []any{"a", "b"}})
	if len(urls) != 2 || urls[1] != "u2" {
		t.Errorf("CloudURLs = %v", urls)
	}
}

// TestChromeMetrics: OSWorld's chrome.py metrics on the values its getters
// give (open tabs, bookmark roots).
func TestChromeMetrics(t *testing.T) {
	tabs := []any{map[string]any{"title": "A", "url": "https://www.example.org/"}, map[string]any{"title": "B", "url": "http://Docs.Example.org/x"}}
	roots := rulesOf(t, `{"bookmark_bar": {"children": [{"type": "folder", "name": "Work", "children": []}, {"type": "url", "name": "x", "url": "https://x.org/"}]}}`)
	tests := []struct {
		metric string
		result any
		rules  string
		want   float64
	}{
		{"is_expected_tabs", tabs, `{"type": "url", "urls": ["https://example.org", "http://docs.example.org/x"]}`, 1},
		{"is_expected_tabs", tabs, `{"type": "url", "urls": ["https://example.org"]}`, 0},
		{"is_expected_tabs", tabs, `{"type": "url", "urls": ["https://example.org", "http://docs.example.org/y"]}`, 0},
		{"is_expected_bookmarks", roots, `{"type": "bookmark_bar_folders_names", "names": ["Work"]}`, 1},
		{"is_expected_bookmarks", roots, `{"type": "bookmark_bar_folders_names", "names": ["Work", "Home"]}`, 0},
		{"is_expected_bookmarks", roots, `{"type": "bookmark_bar_websites_urls", "urls": ["https://x.org/"]}`, 1},
		{"is_expected_active_tab", map[string]any{"url": "https://www.x.org"}, `{"type": "url", "url": "https://x.org/"}`, 1},
		{"is_expected_url_pattern_match", "https://x.org/search?q=cats", `{"expected": ["q=cats", "^https://"]}`, 1},
		{"is_expected_url_pattern_match", "https://x.org/search?q=dogs", `{"expected": ["q=cats"]}`, 0},
		{"check_enabled_experiments", []any{"a@1", "b@2"}, `{"type": "names", "names": ["a", "b"]}`, 1},
		{"check_font_size", map[string]any{"default_font_size": int64(20)}, `{"type": "range", "min": 16, "max": 24}`, 1},
		{"check_font_size", map[string]any{"default_font_size": int64(16)}, `{"type": "range", "min": 16, "max": 24}`, 0},
	}
	for _, tt := range tests {
		m, _ := Lookup(tt.metric)
		s, err := m.Fn(t.Context(), Call{Result: tt.result, Expected: rulesOf(t, tt.rules)})
		if err != nil || s.Value != tt.want {
			t.Errorf("%s(%v, %s) = %v (%s), %v; want %v", tt.metric, tt.result, tt.rules, s.Value, s.Note, err, tt.want)
		}
	}
}

// shortcuts_on_desktop reads the .desktop files right in ~/Desktop by name
// (a shortcut as Chromium's "Create shortcut" writes one, a file of another
// kind and a folder beside it), and is_shortcut_on_desktop finds the one
// named; no desktop folder gives no shortcut.
func TestShortcutsOnDesktop(t *testing.T) {
	e := newDirEnv(t)
	get := func() any {
		t.Helper()
		v, err := Get(t.Context(), e, map[string]any{"type": "shortcuts_on_desktop"})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := get(); fmt.Sprint(v) != "map[]" {
		t.Errorf("no Desktop folder: %v", v)
	}
	desk := filepath.Join(e.home, "Desktop")
	for name, text := range map[string]string{
		"chrome-ifgcgkcbigkjgdhnfdmpnmjflkmdnekd-Default.desktop": "#!/usr/bin/env xdg-open\n[Desktop Entry]\nVersion=1.0\nTerminal=false\nType=Application\nName=Play Puzzle Game 2048\nExec=/usr/bin/chromium --profile-directory=Default --app-id=ifgcgkcbigkjgdhnfdmpnmjflkmdnekd\n",
		"notes.txt":                  "Name=Play Puzzle Game 2048\n",
		"old.desktop/readme.desktop": "Name=Play Puzzle Game 2048\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(desk, name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(desk, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	v := get()
	m, _ := v.(map[string]any)
	if len(m) != 1 || m["chrome-ifgcgkcbigkjgdhnfdmpnmjflkmdnekd-Default.desktop"] == nil {
		t.Fatalf("shortcuts: %v", v)
	}
	metric, _ := Lookup("is_shortcut_on_desktop")
	for name, want := range map[string]float64{"Play Puzzle Game 2048": 1, "Play Puzzle Game": 0} {
		s, err := metric.Fn(t.Context(), Call{Result: v, Expected: map[string]any{"type": "name", "name": name}})
		if err != nil || s.Value != want {
			t.Errorf("is_shortcut_on_desktop(%q) = %v (%s), %v; want %v", name, s.Value, s.Note, err, want)
		}
	}
}
