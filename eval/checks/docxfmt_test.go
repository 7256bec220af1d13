package checks

import (
	"fmt"
	"testing"
)

// TestDocxFormatMetrics runs compare_font_names, compare_line_spacing and
// has_page_numbers_in_footers on documents LibreOffice Writer 7.4 wrote
// (testdata/make.sh: src/doc-fmt.fodt and near misses: a paragraph in
// another font, at another line spacing, a footer without the page number).
// Each want is what OSWorld's function (metrics/docs.py at eac51b51,
// python-docx 0.8.11) gave on the same files.
func TestDocxFormatMetrics(t *testing.T) {
	serif := map[string]any{"font_name": "DejaVu Serif"}
	tests := []struct {
		metric           string
		result, expected any
		want             string
	}{
		{"compare_font_names", td("doc-fmt-gold.docx"), serif, "1"},
		{"compare_font_names", td("doc-fmt-font.docx"), serif, "0"},
		{"compare_font_names", td("doc-fmt-spacing.docx"), serif, "1"},
		{"compare_line_spacing", td("doc-fmt-gold.docx"), td("doc-fmt-gold.docx"), "1"},
		{"compare_line_spacing", td("doc-fmt-font.docx"), td("doc-fmt-gold.docx"), "1"},
		{"compare_line_spacing", td("doc-fmt-spacing.docx"), td("doc-fmt-gold.docx"), "0"},
		{"compare_line_spacing", td("doc-fmt-nofooter.docx"), td("doc-fmt-gold.docx"), "1"},
		{"compare_line_spacing", td("doc-word.docx"), td("doc-gold.docx"), "0"},
		{"compare_line_spacing", td("doc-gold.docx"), td("doc-gold.docx"), "1"},
		{"has_page_numbers_in_footers", td("doc-fmt-gold.docx"), nil, "1"},
		{"has_page_numbers_in_footers", td("doc-fmt-spacing.docx"), nil, "1"},
		{"has_page_numbers_in_footers", td("doc-fmt-nofooter.docx"), nil, "0"},
		{"has_page_numbers_in_footers", td("doc-gold.docx"), nil, "0"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%v", tt.metric, tt.result), func(t *testing.T) {
			checkScore(t, tt.metric, Call{Result: tt.result, Expected: tt.expected}, tt.want)
		})
	}
}
