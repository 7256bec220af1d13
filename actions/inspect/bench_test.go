package inspect_test

import (
	"path/filepath"
	"testing"

	"deskpilot/actions/inspect"
)

// BenchmarkInspect measures reading each LibreOffice fixture as text.
func BenchmarkInspect(b *testing.B) {
	dir, _ := filepath.Abs("testdata")
	in := inspect.New(inspect.Options{Roots: []string{dir}, Home: b.TempDir()})
	for _, f := range []string{"paper.pdf", "report.docx", "budget.xlsx", "deck.pptx", "bundle.zip/docs/report.docx"} {
		b.Run(f, func(b *testing.B) {
			for b.Loop() {
				if _, err := in.Inspect(b.Context(), filepath.Join(dir, f), ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
