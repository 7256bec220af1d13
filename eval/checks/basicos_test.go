package checks

import (
	"strings"
	"testing"
)

// TestBasicOSMetrics runs basic_os.py's metrics on command output as the
// commands print it (gsettings 2.74's text-scaling-factor before and after a
// `gsettings set`, GNOME's favorite-apps list, timedatectl's status from
// the function's own docstring, xsel's clipboard). Each want is what
// OSWorld's function (metrics/basic_os.py at eac51b51) gave on the same
// input.
func TestBasicOSMetrics(t *testing.T) {
	tz := strings.Join([]string{
		"               Local time: Thu 2024-01-25 12:56:06 WET",
		"           Universal time: Thu 2024-01-25 12:56:06 UTC",
		"                 RTC time: Thu 2024-01-25 12:56:05",
		"                Time zone: Atlantic/Faroe (WET, +0000)",
		"System clock synchronized: yes"}, "\n")
	dir := func(names ...string) map[string]any {
		var ch []any
		for _, n := range names {
			ch = append(ch, map[string]any{"type": "file", "name": n})
		}
		return map[string]any{"type": "directory", "name": "cpjpg", "children": ch}
	}
	jpgs := map[string]any{"expected": []any{"b.jpg", "a.jpg"}}
	apps := map[string]any{"expected": []any{"google-chrome.desktop", "thunderbird.desktop"}}
	tests := []struct {
		metric           string
		result, expected any
		want             string
	}{
		{"check_gnome_favorite_apps", "['thunderbird.desktop', 'google-chrome.desktop']\n", apps, "1"},
		{"check_gnome_favorite_apps", "['thunderbird.desktop', 'vim.desktop', 'google-chrome.desktop']\n", apps, "0"},
		{"check_gnome_favorite_apps", "@as []\n", map[string]any{"expected": []any{}}, "error"},
		{"is_utc_0", tz, nil, "1"},
		{"is_utc_0", strings.Replace(tz, "Atlantic/Faroe (WET, +0000)", "Asia/Shanghai (CST, +0800)", 1), nil, "0"},
		{"is_utc_0", "Failed to connect to bus: Host is down", nil, "error"},
		{"check_text_enlarged", "1.0\n", nil, "0"},
		{"check_text_enlarged", "1.25\n", nil, "1"},
		{"check_text_enlarged", "x", nil, "error"},
		{"check_moved_jpgs", dir("a.jpg", "b.jpg"), jpgs, "1"},
		{"check_moved_jpgs", dir("a.jpg"), jpgs, "0"},
		{"is_in_vm_clickboard", map[string]any{"expected": "/home/user/Data3/List3/secret.docx"}, "/home/user/Data3/List3/secret.docx", "1"},
		{"is_in_vm_clickboard", map[string]any{"expected": []any{"None"}}, "something", "0"},
		{"is_in_vm_clickboard", map[string]any{"expected": []any{"None"}}, "None", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.metric, func(t *testing.T) {
			checkScore(t, tt.metric, Call{Result: tt.result, Expected: tt.expected}, tt.want)
		})
	}
}
