package checks

import (
	"path/filepath"
	"testing"
)

// td is a file of testdata.
func td(name string) string { return filepath.Join("testdata", name) }

// TestCompareTable runs compare_table on workbooks LibreOffice 7.4 wrote from
// testdata/src (make.sh). Each want is what OSWorld's compare_table
// (desktop_env/evaluators/metrics/table.py at commit eac51b51) returned for
// the same files and rules, with openpyxl 3.0.9 and pandas 1.5.3.
func TestCompareTable(t *testing.T) {
	sheetData := `{"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0"}]}`
	tests := []struct {
		name             string
		result, expected any
		opts             string
		want             float64
	}{
		{"same data", td("xlsx-same.xlsx"), td("xlsx-gold.xlsx"), sheetData, 1},
		{"a cell off by one", td("xlsx-offbyone.xlsx"), td("xlsx-gold.xlsx"), sheetData, 0},
		{"an int column turned float", td("xlsx-floatqty.xlsx"), td("xlsx-gold.xlsx"), sheetData, 0},
		{"a difference below the precision", td("xlsx-rounding.xlsx"), td("xlsx-gold.xlsx"), sheetData, 1},
		{"a difference above precision 6", td("xlsx-rounding.xlsx"), td("xlsx-gold.xlsx"),
			`{"rules": [{"type": "sheet_data", "sheet_idx0": 0, "sheet_idx1": "EI0", "precision": 6}]}`, 0},
		{"a row missing", td("xlsx-shortrow.xlsx"), td("xlsx-gold.xlsx"), sheetData, 0},
		{"no result", nil, td("xlsx-gold.xlsx"), sheetData, 0},
		{"a sheet the result lacks", td("xlsx-same.xlsx"), td("xlsx-gold.xlsx"),
			`{"rules": [{"type": "sheet_data", "sheet_idx0": "RNSheet9", "sheet_idx1": "EI0"}]}`, 0},
		{"sheet names differ", td("xlsx-offbyone.xlsx"), td("xlsx-gold.xlsx"), `{"rules": [{"type": "sheet_name"}]}`, 0},
		{"check_cell approx", td("xlsx-offbyone.xlsx"), nil,
			`{"rules": [{"type": "check_cell", "sheet_idx": 0, "coordinate": "C3", "props": {"value": {"method": "approx:0.1", "ref": 0.55}}}]}`, 1},
		{"check_cell off by one", td("xlsx-offbyone.xlsx"), nil,
			`{"rules": [{"type": "check_cell", "sheet_idx": 0, "coordinate": "B3", "props": {"value": {"method": "eq", "ref": 5}}}]}`, 0},
		{"sheet_fuzzy same text", td("xlsx-offbyone.xlsx"), td("xlsx-gold.xlsx"),
			`{"rules": [{"type": "sheet_fuzzy", "sheet_idx0": 0, "sheet_idx1": "EI0", "rules": [{"range": ["A1:A4", "D1:D4"], "type": "exact_match"}]}]}`, 1},
		{"sheet_fuzzy a number off", td("xlsx-offbyone.xlsx"), td("xlsx-gold.xlsx"),
			`{"rules": [{"type": "sheet_fuzzy", "sheet_idx0": 0, "sheet_idx1": "EI0", "rules": [{"range": ["B2:B4"], "type": "exact_match"}]}]}`, 0},
		{"freeze and zoom", td("xlsx-same.xlsx"), td("xlsx-gold.xlsx"),
			`{"rules": [{"type": "freeze", "sheet_idx0": 0, "sheet_idx1": "EI0"}, {"type": "zoom", "sheet_idx": 0, "method": "lt", "ref": 260}]}`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := Lookup("compare_table")
			opts := rulesOf(t, tt.opts).(map[string]any)
			if err := m.Validate(map[string]any{"type": "vm_file"}, nil, opts); err != nil {
				t.Fatal(err)
			}
			s, err := m.Fn(t.Context(), Call{Result: tt.result, Expected: tt.expected, Options: opts})
			if err != nil || s.Value != tt.want {
				t.Errorf("compare_table = %v (%s), %v; want %v", s.Value, s.Note, err, tt.want)
			}
			if s.Value < 1 && s.Note == "" {
				t.Error("a score below 1 without a note")
			}
		})
	}
}
