package checks

import (
	"math"
	"strconv"
	"testing"
)

// TestThunderbirdMetrics runs thunderbird.py's metrics on prefs.js files
// Thunderbird 153 wrote (testdata/make.sh: a fresh profile, and one given
// preferences through user.js) and on a filter file and folder files in
// Thunderbird's formats. Each want is what OSWorld's function
// (metrics/thunderbird.py at eac51b51) gave on the same files.
func TestThunderbirdMetrics(t *testing.T) {
	tests := []struct {
		metric, result, expected, opts, want string
	}{
		{"check_thunderbird_prefs", `"tb-prefs.js"`, `{"expect": {"mail.identity.id1.htmlSigText": {"method": "re.S", "ref": "Anonym.+XYZ Lab"}}}`, `null`, "1.0"},
		{"check_thunderbird_prefs", `"tb-prefs-fresh.js"`, `{"expect": {"mail.identity.id1.htmlSigText": {"method": "re.S", "ref": "Anonym.+XYZ Lab"}}}`, `null`, "0.0"},
		{"check_thunderbird_prefs", `"tb-prefs.js"`, `{"expect": {"mail.identity.id1.htmlSigText": {"method": "re", "ref": "Anonym.+XYZ Lab"}}}`, `null`, "0.0"},
		{"check_thunderbird_prefs", `"tb-prefs.js"`, `{"expect": {"extensions.activeThemeID": {"method": "re", "ref": "dark"}}}`, `null`, "1.0"},
		{"check_thunderbird_prefs", `"tb-prefs-fresh.js"`, `{"expect": {"extensions.activeThemeID": {"method": "re", "ref": "dark"}}}`, `null`, "0.0"},
		{"check_thunderbird_prefs", `"tb-prefs.js"`, `{"expect": {"mail.identity.id1.auto_quote": {"method": "eq", "ref": false}}}`, `null`, "1.0"},
		{"check_thunderbird_prefs", `"tb-prefs-fresh.js"`, `{"expect": {"mail.identity.id1.auto_quote": {"method": "eq", "ref": false}}}`, `null`, "0.0"},
		{"check_thunderbird_prefs", `"tb-prefs.js"`, `{"expect": {"mail.server.default.applyIncomingFilters": {"method": "eq", "ref": true}, "mail.imap.use_status_for_biff": {"method": "eq", "ref": false}}, "unexpect": {"mail.server.default.autosync_offline_stores": {"method": "eq", "ref": false}}}`, `null`, "0.0"},
		{"check_thunderbird_prefs", `"tb-prefs.js"`, `{"expect": {"mail.server.default.applyIncomingFilters": {"method": "eq", "ref": true}, "mail.imap.use_status_for_biff": {"method": "eq", "ref": false}}}`, `null`, "1.0"},
		{"check_thunderbird_prefs", `"tb-prefs-fresh.js"`, `{"unexpect": {"mail.server.default.autosync_offline_stores": {"method": "eq", "ref": false}}}`, `null`, "1.0"},
		{"check_thunderbird_filter", `"tb-filters.dat"`, `{"expect": [{"enabled": "yes", "action": "Move to folder", "actionValue": "mailbox://nobody@Local%20Folders/Promotions", "condition": ["AND (subject,contains,discount)"]}]}`, `null`, "1.0"},
		{"check_thunderbird_filter", `"tb-filters.dat"`, `{"expect": [{"enabled": "yes", "action": "Forward", "actionValue": "anonym-x2024@gmail.com", "condition": ["ALL"]}]}`, `null`, "0.0"},
		{"check_thunderbird_filter", `"tb-filters.dat"`, `{"expect": [{"action": "Forward", "condition": ["ALL"]}]}`, `null`, "1.0"},
		{"check_thunderbird_filter", `"tb-filters.dat"`, `{"expect": [{"name": "Quoted \"sale\"", "condition": ["OR (from,is,\"Shop, Inc.\")", "OR (subject,doesn't contain,news)"]}]}`, `null`, "1.0"},
		{"check_thunderbird_filter", `"tb-filters.dat"`, `{"expect": [{"action": "Mark read"}], "unexpect": [{"enabled": "no"}]}`, `null`, "0.0"},
		{"check_thunderbird_folder", `"tb-inbox"`, `"tb-inbox"`, `null`, "1.0"},
		{"check_thunderbird_folder", `"tb-inbox"`, `"tb-empty"`, `null`, "0.0"},
		{"check_thunderbird_folder", `"tb-upper"`, `"tb-inbox"`, `{"remove_deleted": true}`, "0.0"},
		{"check_thunderbird_folder", `"tb-upper"`, `"tb-empty"`, `{"remove_duplicate": true}`, "1.0"},
		{"check_thunderbird_folder", `["tb-inbox", "tb-empty"]`, `["tb-upper", "tb-empty"]`, `null`, "0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.metric+"/"+tt.result, func(t *testing.T) {
			m, _ := Lookup(tt.metric)
			exp := rulesOf(t, tt.expected)
			if _, ok := exp.(map[string]any); !ok {
				exp = tdPaths(exp)
			}
			opts, _ := rulesOf(t, tt.opts).(map[string]any)
			s, err := m.Fn(t.Context(), Call{Result: tdPaths(rulesOf(t, tt.result)), Expected: exp, Options: opts})
			want, _ := strconv.ParseFloat(tt.want, 64)
			if err != nil || math.Abs(s.Value-want) > 0 {
				t.Errorf("= %v (%s), %v; want %v", s.Value, s.Note, err, want)
			}
		})
	}
}
