package checks

import (
	"math"
	"testing"
)

// TestComparePdfs runs compare_pdfs on PDFs LibreOffice Writer 7.4 printed
// from testdata/src (make.sh). Each want is what OSWorld's compare_pdfs
// (metrics/chrome.py at eac51b51) gives for the same files with PyMuPDF
// 1.21.1's get_text() and rapidfuzz's fuzz.ratio (the normalised InDel
// similarity): chrome.py itself cannot be imported here (it needs borb and
// bs4, which Debian lacks), so its 15 lines were run with those two parts.
//
// One known difference: where a PDF places words apart without space
// glyphs, MuPDF writes a space per gap width and PDFium one space, so
// pdf-spaces.pdf ("Costs  fell.") reads as the gold here (1, not 0.991).
func TestComparePdfs(t *testing.T) {
	tests := []struct {
		name             string
		result, expected any
		want             float64
	}{
		{"same", td("pdf-gold.pdf"), td("pdf-gold.pdf"), 1},
		{"a word changed", td("pdf-word.pdf"), td("pdf-gold.pdf"), 0.9557522123893806},
		{"a blank line less", td("pdf-noblank.pdf"), td("pdf-gold.pdf"), 1},
		{"text added", td("pdf-long.pdf"), td("pdf-gold.pdf"), 0.650887573964497},
		{"not a PDF", td("xlsx-gold.xlsx"), td("pdf-gold.pdf"), 0},
		{"no result", nil, td("pdf-gold.pdf"), 0},
		{"lists", []any{td("pdf-gold.pdf"), td("pdf-word.pdf")}, []any{td("pdf-gold.pdf"), td("pdf-gold.pdf")}, 0.9778761061946903},
		{"a short list", []any{td("pdf-gold.pdf")}, []any{td("pdf-gold.pdf"), td("pdf-gold.pdf")}, 0.5},
	}
	m, _ := Lookup("compare_pdfs")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := m.Fn(t.Context(), Call{Result: tt.result, Expected: tt.expected})
			if err != nil || math.Abs(s.Value-tt.want) > 1e-12 {
				t.Errorf("compare_pdfs = %v (%s), %v; want %v", s.Value, s.Note, err, tt.want)
			}
		})
	}
}

// TestCheckPdfPages: check_pdf_pages counts pages (pypdf's len(reader.pages)
// is 1 for pdf-gold.pdf).
func TestCheckPdfPages(t *testing.T) {
	for _, tt := range []struct {
		rules, want string
	}{
		{`{"relation": "eq", "ref_value": 1}`, "1"},
		{`{"relation": "gt", "ref_value": 1}`, "0"},
		{`{"relation": "le", "ref_value": 2}`, "1"},
		{`{"relation": "contains", "ref_value": 2}`, "error"},
	} {
		checkScore(t, "check_pdf_pages", Call{Result: td("pdf-gold.pdf"), Expected: rulesOf(t, tt.rules)}, tt.want)
	}
}
