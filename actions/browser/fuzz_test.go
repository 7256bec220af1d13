package browser

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzHTMLToText feeds arbitrary bytes through the HTML-to-markdown path and
// the pager. Seeds live in testdata/fuzz/FuzzHTMLToText.
func FuzzHTMLToText(f *testing.F) {
	f.Add([]byte(`<html><head><title>T</title></head><body><main><h1>A</h1><p>b <a href="/c">c</a></p><table><tr><td>1</td></tr></table></main></body></html>`))
	f.Add([]byte("<div><div><div><b><i><table><tr><td><ul><li>x</div></b>\xff\xfe"))
	f.Add([]byte(`<a href="javascript:alert(1)">j</a><img alt="a" src="data:x"><base href="//evil">`))
	base, _ := url.Parse("https://example.com/dir/page.html")
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		var doc Document
		var err error
		go func() {
			defer close(done)
			doc, err = HTMLToMarkdown(bytes.NewReader(data), "text/html", base)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("HTMLToMarkdown hangs on %q", data)
		}
		if err != nil {
			return
		}
		if !utf8.ValidString(doc.Text) || !utf8.ValidString(doc.Title) {
			t.Fatalf("invalid UTF-8 in output")
		}
		if strings.Contains(doc.Text, "](javascript:") {
			t.Fatalf("javascript link kept: %q", doc.Text)
		}
		p := newPage("https://example.com/", doc.Title, doc.Text, 64, true)
		var joined strings.Builder
		for i := 0; i < p.pages(); i++ {
			p.current = i
			joined.WriteString(p.viewport())
		}
		if joined.String() != doc.Text {
			t.Fatalf("viewports lose text")
		}
		lp := newLinkedPage("https://example.com/", doc.Title, doc.Text, 64)
		for i := 0; i < lp.pages(); i++ {
			lp.current = i
			if out := lp.render(); !utf8.ValidString(out) {
				t.Fatalf("invalid UTF-8 in a rendered viewport")
			}
		}
		for _, l := range lp.links {
			if u, err := url.Parse(l); err == nil && strings.EqualFold(u.Scheme, "javascript") {
				t.Fatalf("javascript link numbered: %q", l)
			}
		}
	})
}

// FuzzFind checks that any query compiles and that matches map back to a
// viewport of the page.
func FuzzFind(f *testing.F) {
	f.Add("the * fox", "The quick brown fox jumps.")
	f.Add("**a*", "ä a b")
	f.Add("\xff*", "x")
	f.Fuzz(func(t *testing.T, query, text string) {
		re := compileQuery(query)
		if re == nil {
			return
		}
		p := newPage("about:blank", "", text, 16, true)
		p.index = buildIndex(text)
		at, ok := p.index.search(re, 0)
		if !ok {
			return
		}
		if at < 0 || at > len(p.index.norm) {
			t.Fatalf("match at %d outside the text", at)
		}
		if v := p.viewportAt(p.index.origOffset(at)); v < 0 || v >= p.pages() {
			t.Fatalf("viewport %d of %d", v, p.pages())
		}
	})
}
