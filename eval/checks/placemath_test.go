package checks

import (
	"math"
	"path/filepath"
	"testing"
)

// TestFuzzyPlaceMath scores Writer documents of Futian addresses
// (testdata/make.sh) as multi_apps/7ff48d5b does. The wants are the words'
// best InDel ratios worked by hand (one address with 108 written 180 is
// 0.9 against its answer).
func TestFuzzyPlaceMath(t *testing.T) {
	answers := []any{"深圳市福田区益田路5055号信息枢纽大厦西门一楼", "深圳市福田区正义街1号", "福田区振兴路108号", "深圳市福田区振兴路108号"}
	tests := []struct {
		file string
		want float64
	}{
		{"place-three.docx", 1},
		{"place-near.docx", (1 + 1 + 0.9) / 3},
		{"place-four.docx", 0},
		{"place-two.docx", 0},
	}
	m, _ := Lookup("fuzzy_place_math")
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s, err := m.Fn(t.Context(), Call{Result: filepath.Join("testdata", tt.file), Expected: map[string]any{"expected": answers}})
			if err != nil || math.Abs(s.Value-tt.want) > 1e-12 {
				t.Errorf("= %v (%s), %v; want %v", s.Value, s.Note, err, tt.want)
			}
		})
	}
	if s, err := m.Fn(t.Context(), Call{Result: nil, Expected: map[string]any{"expected": answers}}); err != nil || s.Value != 0 {
		t.Errorf("None: = %v, %v; want 0", s.Value, err)
	}
	if _, err := m.Fn(t.Context(), Call{Result: filepath.Join("testdata", "html-gold.html"), Expected: map[string]any{"expected": answers}}); err == nil {
		t.Error("an HTML file read as a document")
	}
}
