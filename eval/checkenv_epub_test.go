//go:build linux

package eval

import (
	"archive/zip"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/eval/checks"
)

// TestCompareEpub: compare_epub reads the two epubs in the task's box with
// lxml, as OSWorld's process_epub: navPoint and dc:identifier lines and the
// HTML's line breaks and markup spelling do not count, the text does (a
// fraction); an archive that is not a zip scores 1, as in OSWorld; one
// without toc.ncx, or with its .html in a folder, is an error.
func TestCompareEpub(t *testing.T) {
	needPython(t, "lxml.html")
	b, m := boxMetric(t, "compare_epub")
	const toc = "<?xml version=\"1.0\"?>\n<ncx>\n<navMap>\n<navPoint id=\"%s\">\n</navMap>\n</ncx>\n"
	const opf = "<?xml version=\"1.0\"?>\n<package>\n<dc:title>Pass Through</dc:title>\n<dc:identifier>%s</dc:identifier>\n</package>\n"
	const ch1 = "<html><body><h1>Chapter 1</h1><p class=\"x\">The train left at noon.</p><p>Snow fell.</p></body></html>"
	epub := func(files ...string) []byte { // name, content, name, content...
		var buf bytes.Buffer
		z := zip.NewWriter(&buf)
		for i := 0; i < len(files); i += 2 {
			w, err := z.Create(files[i])
			if err == nil {
				_, err = w.Write([]byte(files[i+1]))
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	book := func(id, chapter string) []byte {
		return epub("toc.ncx", strings.ReplaceAll(toc, "%s", id), "content.opf", strings.ReplaceAll(opf, "%s", id), "chapter1.html", chapter)
	}
	gold := book("gold-id", ch1)
	one, none, part := [2]float64{1, 1}, [2]float64{0, 0}, [2]float64{math.SmallestNonzeroFloat64, math.Nextafter(1, 0)}
	tests := []struct {
		name    string
		result  []byte     // nil: no result file
		want    [2]float64 // the score's bounds
		wantErr string
	}{
		{"same book, other ids", book("other-id", ch1), one, ""},
		{"line breaks and markup spelling", book("x", "<html>\n<body>\r\n<h1>Chapter 1</h1>\n<p class=x>The train left at noon.</p>\n<p>Snow fell.</p></body></html>"), one, ""},
		{"other text", book("x", "<html><body><h1>Chapter 1</h1><p class=\"x\">The train left at dawn.</p><p>Snow fell.</p></body></html>"), part, ""},
		{"no result", nil, none, ""},
		{"not a zip", []byte("plain text, not an epub"), one, ""},
		{"no toc.ncx", epub("content.opf", opf, "chapter1.html", ch1), none, "toc.ncx"},
		{"html in a folder", epub("toc.ncx", toc, "content.opf", opf, "OEBPS/chapter1.html", ch1), none, "in a folder"},
		{"not UTF-8", book("x", "<html><body><p>\xff\xfe</p></body></html>"), none, "decode"},
	}
	exp := filepath.Join(b.cache, "Pass Through Gold.epub")
	if err := os.WriteFile(exp, gold, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res any
			if tt.result != nil {
				p := filepath.Join(b.cache, "Pass Through.epub")
				if err := os.WriteFile(p, tt.result, 0o600); err != nil {
					t.Fatal(err)
				}
				res = p
			}
			s, err := m.Fn(t.Context(), checks.Call{Env: b.checkEnv(""), Result: res, Expected: exp})
			wantScore(t, s, err, tt.wantErr, tt.want[0], tt.want[1])
			wantNoFolder(t, b, ".osworld-epub-")
		})
	}
}
