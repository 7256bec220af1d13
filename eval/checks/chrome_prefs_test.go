package checks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestChromePrefGetters: the getters reading the browser's Preferences, on
// the file a new Chromium 156 profile writes (testdata/chrome-prefs-fresh.json)
// and on that file with one setting changed as Chrome stores it; no file
// gives each getter's default.
func TestChromePrefGetters(t *testing.T) {
	data, err := os.ReadFile("testdata/chrome-prefs-fresh.json")
	if err != nil {
		t.Fatal(err)
	}
	fresh := func() map[string]any {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	profile := func(m map[string]any) map[string]any { return m["profile"].(map[string]any) }
	tests := []struct {
		name   string
		getter string
		edit   func(map[string]any) // nil: the fresh file; no file when prefs is false
		noFile bool
		want   string
	}{
		{"fresh: only Chromium's marker", "data_delete_automacally", nil, false, "false"},
		{"clear cookies on exit", "data_delete_automacally", func(m map[string]any) {
			profile(m)["default_content_setting_values"].(map[string]any)["cookies"] = 4
		}, false, "true"},
		{"no default content settings", "data_delete_automacally", func(m map[string]any) {
			delete(profile(m), "default_content_setting_values")
		}, false, "false"},
		{"null default content settings", "data_delete_automacally", func(m map[string]any) {
			profile(m)["default_content_setting_values"] = nil
		}, false, "false"},
		{"no Preferences", "data_delete_automacally", nil, true, "Google"},
		{"fresh: no session", "new_startup_page", nil, false, "true"},
		{"start-up pages", "new_startup_page", func(m map[string]any) {
			m["session"] = map[string]any{"restore_on_startup": 4, "startup_urls": []any{"http://funbrain.com/"}}
		}, false, "false"},
		{"new tab page", "new_startup_page", func(m map[string]any) {
			m["session"] = map[string]any{"restore_on_startup": 5}
		}, false, "true"},
		{"fresh: do not track off", "enable_do_not_track", nil, false, "false"},
		{"do not track on", "enable_do_not_track", func(m map[string]any) { m["enable_do_not_track"] = true }, false, "true"},
		{"fresh: search engine", "default_search_engine", nil, false, "Google"},
		{"bing", "default_search_engine", func(m map[string]any) {
			m["default_search_provider_data"] = map[string]any{"template_url_data": map[string]any{"short_name": "Bing"}}
		}, false, "Bing"},
		{"fresh: standard protection", "enable_enhanced_safety_browsing", nil, false, "false"},
		{"enhanced protection", "enable_enhanced_safety_browsing", func(m map[string]any) {
			m["safebrowsing"].(map[string]any)["enhanced"] = true
		}, false, "true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newDirEnv(t)
			if !tt.noFile {
				m := fresh()
				if tt.edit != nil {
					tt.edit(m)
				}
				out, err := json.Marshal(m)
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(e.home, ".config", "google-chrome", "Default", "Preferences")
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, out, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			v, err := Get(t.Context(), e, map[string]any{"type": tt.getter})
			if err != nil {
				t.Fatal(err)
			}
			if v != tt.want {
				t.Errorf("%s = %#v, want %q", tt.getter, v, tt.want)
			}
		})
	}
}
