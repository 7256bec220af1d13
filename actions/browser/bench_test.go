package browser

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
)

// BenchmarkHTMLToMarkdown measures turning pages into text: the fixture
// article and a 1 MB page of paragraphs, links and a table.
func BenchmarkHTMLToMarkdown(b *testing.B) {
	article, err := os.ReadFile("testdata/article.html")
	if err != nil {
		b.Fatal(err)
	}
	var big strings.Builder
	big.WriteString("<html><body><main>")
	for i := 0; big.Len() < 1<<20; i++ {
		fmt.Fprintf(&big, "<h2>Section %d</h2><p>Paragraph %d with <a href=\"/p/%d\">a link</a> and <b>bold</b> text.</p>", i, i, i)
		if i%50 == 0 {
			big.WriteString("<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>")
		}
	}
	big.WriteString("</main></body></html>")
	base, _ := url.Parse("https://example.com/a/b.html")
	for _, c := range []struct {
		name string
		data []byte
	}{{"article", article}, {"1MB", []byte(big.String())}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				if _, err := HTMLToMarkdown(bytes.NewReader(c.data), "text/html", base); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFind measures a find on a 1 MB page, index included.
func BenchmarkFind(b *testing.B) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 1<<20/45) + "needle in the haystack"
	re := compileQuery("needle * haystack")
	for b.Loop() {
		p := newPage("x", "", text, DefaultViewport, true)
		p.index = buildIndex(p.text)
		if _, ok := p.index.search(re, 0); !ok {
			b.Fatal("not found")
		}
	}
}
