package browser

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// webPage is one page of the web corpus: the saved page, the text of its
// article and its title as Mozilla's Readability test suite records them.
type webPage struct {
	name, source, article, title string
}

// loadWebCorpus reads both corpora of testdata/web: pages of Mozilla
// Readability's test suite (with titles) and of Scrapinghub's article
// extraction benchmark (human-written article text, no titles).
func loadWebCorpus(t testing.TB) (readab, scrapinghub []webPage) {
	t.Helper()
	dirs, _ := filepath.Glob("testdata/web/readability/*")
	sort.Strings(dirs)
	for _, d := range dirs {
		p := webPage{name: filepath.Base(d), source: gunzip(t, filepath.Join(d, "source.html.gz"))}
		exp := gunzip(t, filepath.Join(d, "expected.html.gz"))
		root, err := html.Parse(strings.NewReader(exp))
		if err != nil {
			t.Fatal(err)
		}
		p.article = textOf(root, maxText)
		meta, err := os.ReadFile(filepath.Join(d, "expected-metadata.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m struct{ Title string }
		if err := json.Unmarshal(meta, &m); err != nil {
			t.Fatal(err)
		}
		p.title = m.Title
		readab = append(readab, p)
	}
	truth, err := os.ReadFile("testdata/web/scrapinghub/ground-truth.json")
	if err != nil {
		t.Fatal(err)
	}
	var gt map[string]struct{ ArticleBody string }
	if err := json.Unmarshal(truth, &gt); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(gt))
	for k := range gt {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		scrapinghub = append(scrapinghub, webPage{name: k, source: gunzip(t, filepath.Join("testdata/web/scrapinghub", k+".html.gz")), article: gt[k].ArticleBody})
	}
	if len(readab) == 0 || len(scrapinghub) == 0 {
		t.Fatal("testdata/web is empty")
	}
	return readab, scrapinghub
}

func gunzip(t testing.TB, p string) string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var linkNum = regexp.MustCompile(`\]\[\d+\]`)

// webWords are the lower-case words of text as the model reads it (link
// numbers dropped).
func webWords(text string) []string {
	text = linkNum.ReplaceAllString(text, "]")
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// overlap counts the words of a found in b, as multisets.
func overlap(a, b []string) int {
	have := map[string]int{}
	for _, w := range b {
		have[w]++
	}
	n := 0
	for _, w := range a {
		if have[w] > 0 {
			have[w]--
			n++
		}
	}
	return n
}

// webScores are one extractor's figures over the corpus.
type webScores struct {
	precision, recall, pageRecall, titles float64
}

// scoreWeb measures an extractor: precision is the share of the words it
// shows first (the article part) that belong to the article; recall the
// share of the article's words in that part; pageRecall the share found
// anywhere in the page text; titles the share of exact titles.
func scoreWeb(t testing.TB, pages []webPage, extract func(source string) (first, all, title string)) webScores {
	var s webScores
	for _, p := range pages {
		first, all, title := extract(p.source)
		want := webWords(p.article)
		got, whole := webWords(first), webWords(all)
		if len(got) > 0 {
			s.precision += float64(overlap(got, want)) / float64(len(got))
		}
		if len(want) > 0 {
			s.recall += float64(overlap(want, got)) / float64(len(want))
			s.pageRecall += float64(overlap(want, whole)) / float64(len(want))
		}
		if collapseSpace(title) == collapseSpace(p.title) {
			s.titles++
		}
	}
	n := float64(len(pages))
	return webScores{s.precision / n, s.recall / n, s.pageRecall / n, s.titles / n}
}

// articleFirst is what the browser shows: HTMLToMarkdown's text with links
// numbered, split at RestHeading.
func articleFirst(source string) (first, all, title string) {
	doc, err := HTMLToMarkdown(strings.NewReader(source), "text/html; charset=utf-8", nil)
	if err != nil {
		return "", "", ""
	}
	text, _ := compactLinks(doc.Text)
	first, _, _ = strings.Cut(text, RestHeading)
	return first, text, doc.Title
}

// wholePage is the browser before the article came first: the body (or its
// <main>/<article>) without chrome, links as markdown, <title> verbatim.
func wholePage(source string) (first, all, title string) {
	root, err := html.Parse(strings.NewReader(source))
	if err != nil {
		return "", "", ""
	}
	flattenDeep(root, maxDepth)
	title = pageTitle(root)
	body := findFirst(root, atom.Body)
	if body == nil {
		body = root
	}
	content := mainContent(body)
	clean(content, content != body)
	md, _ := renderMarkdown(content, nil)
	md = tidyText(md)
	return md, md, title
}

// ownArticle is the extraction this package tried before choosing
// Readability: score each text block (length and commas, minus links),
// credit its parent and grandparent, take the best-scored container.
func ownArticle(source string) (first, all, title string) {
	root, err := html.Parse(strings.NewReader(source))
	if err != nil {
		return "", "", ""
	}
	flattenDeep(root, maxDepth)
	title = pageTitle(root)
	score := map[*html.Node]float64{}
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode || dropped[n.DataAtom] {
			return n.Type != html.ElementNode
		}
		switch n.DataAtom {
		case atom.P, atom.Pre, atom.Td, atom.Blockquote:
			text := strings.TrimSpace(textOf(n, maxText))
			if len(text) < 25 {
				return true
			}
			links := 0
			walk(n, func(c *html.Node) bool {
				if c.Type == html.ElementNode && c.DataAtom == atom.A {
					links += len(textOf(c, maxText))
					return false
				}
				return true
			})
			s := (1 + float64(strings.Count(text, ",")) + min(float64(len(text))/100, 3)) * (1 - float64(links)/float64(len(text)))
			if p := n.Parent; p != nil {
				score[p] += s
				if g := p.Parent; g != nil {
					score[g] += s / 2
				}
			}
		}
		return true
	})
	var best *html.Node
	for n, s := range score {
		if best == nil || s > score[best] {
			best = n
		}
	}
	if best == nil {
		return wholePage(source)
	}
	clean(best, true)
	md, _ := renderMarkdown(best, nil)
	text, _ := compactLinks(tidyText(md))
	_, all, _ = wholePage(source)
	return text, all, title
}

// TestWebCorpus holds the browser to the targets on saved real
// pages: the article part shows at least 85% article words (precision), the
// page loses no article text (recall), and at least 70% of titles are exact.
// It logs the other extractors measured on the same pages.
func TestWebCorpus(t *testing.T) {
	readab, sh := loadWebCorpus(t)
	for _, c := range []struct {
		name    string
		extract func(string) (string, string, string)
	}{{"whole page (before)", wholePage}, {"own block scoring", ownArticle}, {"article first (Readability)", articleFirst}} {
		r, s := scoreWeb(t, readab, c.extract), scoreWeb(t, sh, c.extract)
		t.Logf("%-28s readability pages (%d): precision %.3f recall %.3f page recall %.3f titles %.3f | scrapinghub pages (%d): precision %.3f recall %.3f page recall %.3f",
			c.name, len(readab), r.precision, r.recall, r.pageRecall, r.titles, len(sh), s.precision, s.recall, s.pageRecall)
	}
	before := scoreWeb(t, sh, wholePage)
	r, s := scoreWeb(t, readab, articleFirst), scoreWeb(t, sh, articleFirst)
	if r.precision < 0.85 || s.precision < 0.85 {
		t.Errorf("article precision %.3f / %.3f, want at least 0.85", r.precision, s.precision)
	}
	if r.titles < 0.70 {
		t.Errorf("exact titles %.3f, want at least 0.70", r.titles)
	}
	if s.pageRecall < before.pageRecall-0.01 {
		t.Errorf("page recall fell from %.3f to %.3f", before.pageRecall, s.pageRecall)
	}
}

var mdURL = regexp.MustCompile(`\]\([^)]*\)`)

// TestLinkShare logs how much of what the model reads is link addresses:
// markdown links in full before, numbered links with a shortened footer per
// viewport now. Numbered links must take less than half the share.
func TestLinkShare(t *testing.T) {
	readab, sh := loadWebCorpus(t)
	var before, after float64
	pages := append(readab, sh...)
	for _, p := range pages {
		doc, err := HTMLToMarkdown(strings.NewReader(p.source), "text/html; charset=utf-8", nil)
		if err != nil {
			t.Fatal(err)
		}
		urls := 0
		for _, m := range mdURL.FindAllString(doc.Text, -1) {
			urls += len(m) - 3
		}
		before += float64(urls) / float64(max(len(doc.Text), 1))
		pg := newLinkedPage("https://example.test/", doc.Title, doc.Text, DefaultViewport)
		total, footer := 0, 0
		for i := 0; i < pg.pages(); i++ {
			pg.current = i
			view := pg.viewport()
			f := linkFooter(view, pg.links, pg.address)
			total += len(view) + len(f)
			footer += len(f)
		}
		after += float64(footer) / float64(max(total, 1))
	}
	n := float64(len(pages))
	t.Logf("share of characters that are link addresses over %d pages: full markdown links %.3f, numbered links with footers %.3f", len(pages), before/n, after/n)
	if after/n > before/n/2 {
		t.Errorf("numbered links take %.3f of the text, full links %.3f", after/n, before/n)
	}
}
