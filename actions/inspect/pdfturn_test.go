package inspect_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/actions/inspect"
)

// TestPDFTurnedText: a landscape page whose text is turned a quarter, half
// or three quarters in the file so that the page's /Rotate shows it upright
// reads line by line, as on an upright page. The near misses: upright text
// drawn through mirrored axes and a negative font size (which PDFium
// reports as turned a half turn) stays as it is, and so does an upright
// page with one label turned up its margin, which reads the label as a word.
func TestPDFTurnedText(t *testing.T) {
	lines := []string{"The first line of a landscape page reads here.", "A second line follows below it on the page.", "Third line closes the paragraph now."}
	want := strings.Join(lines, "\n")
	// Each turn: the page's /Rotate, the text matrix's axes, where line i
	// starts.
	cases := []struct {
		name   string
		rotate int
		matrix string
		at     func(i int) (int, int)
	}{
		{"upright", 0, "1 0 0 1", func(i int) (int, int) { return 72, 700 - 16*i }},
		{"up the sheet, /Rotate 90", 90, "0 1 -1 0", func(i int) (int, int) { return 100 + 16*i, 72 }},
		{"upside down, /Rotate 180", 180, "-1 0 0 -1", func(i int) (int, int) { return 540, 100 + 16*i }},
		{"down the sheet, /Rotate 270", 270, "0 -1 1 0", func(i int) (int, int) { return 500 - 16*i, 720 }},
	}
	dir := t.TempDir()
	in := inspect.New(inspect.Options{Roots: []string{dir}, Home: t.TempDir(), PDF: pdfEngine})
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var content strings.Builder
			for j, l := range lines {
				x, y := c.at(j)
				fmt.Fprintf(&content, "BT /F1 12 Tf %s %d %d Tm (%s) Tj ET\n", c.matrix, x, y, l)
			}
			p := filepath.Join(dir, fmt.Sprintf("turn%d.pdf", i))
			buildPDF(t, p, []string{
				"<< /Type /Catalog /Pages 2 0 R >>",
				"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
				fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate %d /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>", c.rotate),
				stream(content.String()),
				"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
			})
			got, err := in.Inspect(t.Context(), p, "")
			if err != nil || !strings.HasSuffix(got, "\n"+want) {
				t.Errorf("read %q, %v; want the lines %q", got, err, want)
			}
		})
	}
	t.Run("near miss: mirrored axes, a negative font size", func(t *testing.T) {
		// The page's y axis flipped, the font size negative, the
		// horizontal scaling -100 %: upright text (as pdftotext reads it)
		// whose characters PDFium reports turned a half turn.
		content := "1 0 0 -1 0 792 cm BT -100 Tz ET\n"
		for j, l := range lines {
			content += fmt.Sprintf("BT /F1 -12 Tf 1 0 0 1 72 %d Tm (%s) Tj ET\n", 100+16*j, l)
		}
		p := filepath.Join(dir, "mirrored.pdf")
		buildPDF(t, p, []string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			stream(content),
			"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		})
		got, err := in.Inspect(t.Context(), p, "")
		if err != nil || !strings.HasSuffix(got, "\n"+want) {
			t.Errorf("read %q, %v; want the lines %q", got, err, want)
		}
	})
	t.Run("near miss: one label turned", func(t *testing.T) {
		var content strings.Builder
		for j, l := range lines {
			fmt.Fprintf(&content, "BT /F1 12 Tf 72 %d Td (%s) Tj ET\n", 700-16*j, l)
		}
		content.WriteString("BT /F1 8 Tf 0 1 -1 0 40 300 Tm (Margin) Tj ET\n")
		p := filepath.Join(dir, "label.pdf")
		buildPDF(t, p, []string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			stream(content.String()),
			"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		})
		got, err := in.Inspect(t.Context(), p, "")
		if err != nil || !strings.Contains(got, want) || !strings.Contains(got, "Margin") {
			t.Errorf("read %q, %v; want the lines %q and the label", got, err, want)
		}
	})
}
