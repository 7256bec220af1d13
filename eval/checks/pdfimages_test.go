package checks

import (
	"path/filepath"
	"testing"
)

// TestComparePDFImages compares PDFs LibreOffice Draw made from images
// (testdata/make.sh), as multi_apps/a503b07f does: the same image converted
// twice renders alike though the files differ; a darker image, or PDFs of
// other pages and page counts, do not. The wants are what PyMuPDF 1.21.1
// gave rendering the same files as the metric does (without borb's rewrite).
func TestComparePDFImages(t *testing.T) {
	tests := []struct {
		result, expected string
		want             float64
	}{
		{"pdfimg-base.pdf", "pdfimg-base.pdf", 1},
		{"pdfimg-again.pdf", "pdfimg-base.pdf", 1},
		{"pdfimg-darker.pdf", "pdfimg-base.pdf", 0},
		{"pdf-gold.pdf", "pdfimg-base.pdf", 0},
		{"pdf-long.pdf", "pdf-gold.pdf", 0},
		{"", "pdfimg-base.pdf", 0},
	}
	m, _ := Lookup("compare_pdf_images")
	for _, tt := range tests {
		t.Run(tt.result+"/"+tt.expected, func(t *testing.T) {
			var res any
			if tt.result != "" {
				res = filepath.Join("testdata", tt.result)
			}
			s, err := m.Fn(t.Context(), Call{Result: res, Expected: filepath.Join("testdata", tt.expected)})
			if err != nil || s.Value != tt.want {
				t.Errorf("= %v (%s), %v; want %v", s.Value, s.Note, err, tt.want)
			}
		})
	}
	if _, err := m.Fn(t.Context(), Call{Result: filepath.Join("testdata", "html-gold.html"), Expected: filepath.Join("testdata", "pdfimg-base.pdf")}); err == nil {
		t.Error("an HTML file read as a PDF")
	}
}
