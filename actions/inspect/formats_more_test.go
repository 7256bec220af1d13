//go:build unix

package inspect_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/actions/inspect"
)

func TestMoreFormats(t *testing.T) {
	tmp := t.TempDir()
	in, dir := fixtures(t, inspect.Options{Roots: []string{tmp}})
	book := filepath.Join(tmp, "book.epub")
	writeZip(t, book, map[string]string{
		"mimetype":               "application/epub+zip",
		"META-INF/container.xml": `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
		"OEBPS/content.opf": `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>River Tales</dc:title><dc:creator>Ana Lima</dc:creator></metadata>` +
			`<manifest><item id="c2" href="text/two.xhtml" media-type="application/xhtml+xml"/><item id="c1" href="text/one.xhtml" media-type="application/xhtml+xml"/><item id="css" href="style.css" media-type="text/css"/></manifest>` +
			`<spine><itemref idref="c1"/><itemref idref="c2"/></spine></package>`,
		"OEBPS/text/one.xhtml": `<html xmlns="http://www.w3.org/1999/xhtml"><head><title>One</title></head><body><h1>The Spring</h1><p>It began in a <em>quiet</em> valley.</p></body></html>`,
		"OEBPS/text/two.xhtml": `<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Two</title></head><body><h1>The Sea</h1><p>It ended at the harbour.</p></body></html>`,
	})
	cases := []struct{ file, want string }{
		{filepath.Join(dir, "feed.rss"), "# Feed: Harbour News\n\n2 items:\n\n1. **Bridge reopens after repairs** (Tue, 19 Nov 2024 10:00:00 GMT)\n   https://news.example.org/bridge-reopens\n   The Harbour Bridge **reopened** on Tuesday after eleven weeks of work.\n\n2. **Ferry timetable changes** (Mon, 18 Nov 2024 08:30:00 GMT)\n   https://news.example.org/ferry\n   Winter sailings start on 1 December."},
		{filepath.Join(dir, "feed.atom"), "# Feed: Otter Survey Blog\n\n1 items:\n\n1. **Seven otters at Alpha** (2024-05-02T12:00:00Z)\n   https://otters.example.org/2024/alpha\n   The largest group yet."},
		{filepath.Join(dir, "notebook.ipynb"), "# Otter counts\n\nCounts per site in spring 2023.\n\n```python\ncounts = {\"Alpha\": 7, \"Beta\": 3}\nfor site, n in counts.items():\n    print(site, n)\n```\n\nOutput:\n\n```\nAlpha 7\nBeta 3\n```\n\n```python\nsum(counts.values())\n```\n\nOutput:\n\n```\n10\n<Figure size 640x480 with 1 Axes>\n[image/png output]\n```\n\n```python\ncounts[\"Gamma\"]\n```\n\nOutput:\n\n```\nKeyError: 'Gamma'\n```"},
		{book, "# River Tales\n\nBy Ana Lima\n\n<!-- Chapter 1 of 2: one.xhtml -->\n# The Spring\n\nIt began in a *quiet* valley.\n\n<!-- Chapter 2 of 2: two.xhtml -->\n# The Sea\n\nIt ended at the harbour."},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			r, err := in.Read(t.Context(), inspect.Request{Path: c.file})
			if err != nil {
				t.Fatal(err)
			}
			if r.Text != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", r.Text, c.want)
			}
		})
	}
	t.Run("feed in an .xml file", func(t *testing.T) {
		data, _ := os.ReadFile(filepath.Join(dir, "feed.rss"))
		os.WriteFile(filepath.Join(tmp, "news.xml"), data, 0o644)
		got, err := in.Inspect(t.Context(), filepath.Join(tmp, "news.xml"), "")
		if err != nil || !strings.HasPrefix(got, "# Feed: Harbour News") {
			t.Errorf("%q, %v", got, err)
		}
	})
}

func TestPPTXChart(t *testing.T) {
	in, dir := fixtures(t, inspect.Options{})
	got, err := in.Inspect(t.Context(), filepath.Join(dir, "charts.pptx"), "")
	if err != nil {
		t.Fatal(err)
	}
	want := "Chart (bar)\n\n| Category | Series 1 | Series 2 | Series 3 |\n|---|---|---|---|\n| Category 1 | 4.3 | 2.4 | 2.0 |\n| Category 2 | 2.5 | 4.4 | 2.0 |\n| Category 3 | 3.5 | 1.8 | 3.0 |\n| Category 4 | 4.5 | 2.8 | 5.0 |"
	if !strings.Contains(got, want) {
		t.Errorf("chart:\n%s\nwant it to hold:\n%s", got, want)
	}
}

func TestDOCXComments(t *testing.T) {
	in, dir := fixtures(t, inspect.Options{})
	got, err := in.Inspect(t.Context(), filepath.Join(dir, "comments.docx"), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Log(got)
	for _, want := range []string{
		"Some text worthy of note.[^1]",
		"Comments:\n\n[^1]: Steve Canny: Text with hyperlink https://google.com embedded.",
		"[^4]: (no author): Paragraph with Heading 2 paragraph style.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("text lacks %q", want)
		}
	}
}

func TestOutlookMessage(t *testing.T) {
	in, dir := fixtures(t, inspect.Options{})
	got, err := in.Inspect(t.Context(), filepath.Join(dir, "mail.msg"), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Log(got)
	for _, want := range []string{
		"# Testing Manuel Lemos' MIME E-mail composing and sending PHP class: HTML message\n",
		"\nFrom: mlemos@acm.org\nTo: Manuel Lemos\nDate: 2005-04-30 22:28 UTC\nAttachments: attachment.txt, logo.gif, background.gif\n\n",
		"Hello Manuel,",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("message lacks %q", want)
		}
	}
}
