package checks

import (
	"math"
	"testing"
)

// TestCompareDocxFiles runs compare_docx_files on documents LibreOffice 7.4
// wrote from testdata/src (make.sh). Each want is what OSWorld's
// compare_docx_files (metrics/docs.py at eac51b51) returned for the same files
// with python-docx 0.8.11 (fuzz.ratio computed as rapidfuzz defines it: the
// normalized InDel similarity).
func TestCompareDocxFiles(t *testing.T) {
	tests := []struct {
		name   string
		result any
		opts   map[string]any
		want   float64
	}{
		{"same", td("doc-gold.docx"), nil, 1},
		{"same, blanks kept", td("doc-gold.docx"), map[string]any{"ignore_blanks": false}, 1},
		{"two spaces", td("doc-spaces.docx"), nil, 1},
		{"two spaces, blanks kept", td("doc-spaces.docx"), map[string]any{"ignore_blanks": false}, 0},
		{"a word changed", td("doc-word.docx"), nil, 0},
		{"a word changed, blanks kept", td("doc-word.docx"), map[string]any{"ignore_blanks": false}, 0},
		{"a word changed, content only", td("doc-word.docx"), map[string]any{"content_only": true}, 0.9557522123893806},
		{"an empty paragraph missing", td("doc-noblank.docx"), nil, 1},
		{"an empty paragraph missing, blanks kept", td("doc-noblank.docx"), map[string]any{"ignore_blanks": false}, 0},
		{"no result", nil, nil, 0},
		{"not a docx", td("xlsx-gold.xlsx"), nil, 0},
	}
	m, _ := Lookup("compare_docx_files")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := m.Fn(t.Context(), Call{Result: tt.result, Expected: td("doc-gold.docx"), Options: tt.opts})
			if err != nil || math.Abs(s.Value-tt.want) > 1e-12 {
				t.Errorf("compare_docx_files = %v (%s), %v; want %v", s.Value, s.Note, err, tt.want)
			}
		})
	}
}

// TestCompareDocxLinesAndTables: the same documents through the line-set and
// table metrics (the documents have no tables: equal, zero tables each).
func TestCompareDocxLinesAndTables(t *testing.T) {
	tests := []struct {
		metric string
		result any
		want   float64
	}{
		{"compare_docx_lines", td("doc-noblank.docx"), 1},
		{"compare_docx_lines", td("doc-word.docx"), 0},
		{"compare_docx_tables", td("doc-word.docx"), 1},
		{"compare_docx_tables", nil, 0},
	}
	for _, tt := range tests {
		m, _ := Lookup(tt.metric)
		s, err := m.Fn(t.Context(), Call{Result: tt.result, Expected: td("doc-gold.docx")})
		if err != nil || s.Value != tt.want {
			t.Errorf("%s(%v) = %v (%s), %v; want %v", tt.metric, tt.result, s.Value, s.Note, err, tt.want)
		}
	}
}
