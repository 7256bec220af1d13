package inspect_test

import (
	"os"
	"path/filepath"
	"testing"

	"deskpilot/actions/inspect"
	"deskpilot/internal/proc"
)

// benchFiles are the files BenchmarkInspect reads, by format.
var benchFiles = []struct{ name, file string }{
	{"pdf-paper", "paper.pdf"},
	{"pdf-multicolumn", "pdf/multicolumn.pdf"},
	{"pdf-cjk", "pdf/cjk.pdf"},
	{"pdf-google-doc", "pdf/google-doc-document.pdf"},
	{"pdf-long-90pages", "pdf/long.pdf"},
	{"docx", "report.docx"},
	{"docx-comments", "comments.docx"},
	{"xlsx", "budget.xlsx"},
	{"pptx", "deck.pptx"},
	{"pptx-chart", "charts.pptx"},
	{"zip-inline", "bundle.zip"},
	{"rss", "feed.rss"},
	{"ipynb", "notebook.ipynb"},
	{"msg", "mail.msg"},
	{"html", "report.html"},
	{"csv", "sales.csv"},
}

// BenchmarkInspect measures reading each fixture as text, the whole file
// (MaxChars large enough), through the public path. It reports bytes of
// input per second and, on Linux, the process's peak resident memory
// (run one sub-benchmark per process to attribute it: see
// scripts/bench-documents.sh).
func BenchmarkInspect(b *testing.B) {
	dir, _ := filepath.Abs("testdata")
	in := inspect.New(inspect.Options{Roots: []string{dir}, Home: b.TempDir(), PDF: pdfEngine, MaxChars: 1 << 30})
	if _, err := pdfEngine.Start(); err != nil {
		b.Fatal(err)
	}
	for _, f := range benchFiles {
		b.Run(f.name, func(b *testing.B) {
			st, err := os.Stat(filepath.Join(dir, f.file))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			for b.Loop() {
				if _, err := in.Inspect(b.Context(), filepath.Join(dir, f.file), ""); err != nil {
					b.Fatal(err)
				}
			}
			if kb := proc.PeakRSS(); kb > 0 {
				b.ReportMetric(float64(kb)/1024, "peak-RSS-MiB")
			}
		})
	}
}

// BenchmarkPDFEngineStart measures starting PDFium: compiling the
// WebAssembly module with an empty code cache (a first start), with a warm
// cache (every later process), and taking an instance from a started pool.
func BenchmarkPDFEngineStart(b *testing.B) {
	b.Run("cold-cache", func(b *testing.B) {
		for b.Loop() {
			e := inspect.NewPDFEngine(inspect.PDFOptions{CacheDir: b.TempDir()})
			if _, err := e.Start(); err != nil {
				b.Fatal(err)
			}
			e.Close()
		}
	})
	b.Run("warm-cache", func(b *testing.B) {
		cache := b.TempDir()
		warm := inspect.NewPDFEngine(inspect.PDFOptions{CacheDir: cache})
		if _, err := warm.Start(); err != nil {
			b.Fatal(err)
		}
		warm.Close()
		for b.Loop() {
			e := inspect.NewPDFEngine(inspect.PDFOptions{CacheDir: cache})
			if _, err := e.Start(); err != nil {
				b.Fatal(err)
			}
			e.Close()
		}
	})
	b.Run("first-pdf-warm-cache", func(b *testing.B) {
		cache := b.TempDir()
		warm := inspect.NewPDFEngine(inspect.PDFOptions{CacheDir: cache})
		warm.Start()
		warm.Close()
		dir, _ := filepath.Abs("testdata")
		for b.Loop() {
			e := inspect.NewPDFEngine(inspect.PDFOptions{CacheDir: cache})
			in := inspect.New(inspect.Options{Roots: []string{dir}, Home: b.TempDir(), PDF: e})
			if _, err := in.Inspect(b.Context(), filepath.Join(dir, "paper.pdf"), ""); err != nil {
				b.Fatal(err)
			}
			e.Close()
		}
	})
}
