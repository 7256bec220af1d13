package browser

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// Document is an HTML page rendered as markdown text.
type Document struct {
	// Title is the page's title from its metadata: og:title, a JSON-LD
	// headline, twitter:title, else <title> without a site-name suffix, else
	// the first <h1>; "" when the page has none.
	Title string
	// Text is markdown (headings, lists, tables and links kept): the article
	// first, when the page has one, then RestHeading and the rest of the page.
	Text string
}

// Limits that keep a hostile page from exhausting the stack or memory.
const (
	maxDepth  = 256      // elements nested deeper are flattened to their text
	maxURLLen = 2048     // longer link and image addresses are dropped
	maxTitle  = 300      // characters of a title kept
	mainShare = 0.25     // <main>/<article> must hold this share of the body's text to be used alone
	maxText   = 16 << 20 // bytes of text gathered from one element
)

// HTMLToMarkdown reads an HTML document and renders its readable content as
// markdown. The text is decoded from the charset named in contentType (the
// Content-Type header value, may be "") or in the document's <meta>, and
// invalid UTF-8 is replaced. Scripts, styles, forms and page chrome (navigation,
// sidebars, footers) are dropped; when the page marks its main content (<main>,
// role="main" or a single <article>) only that is kept. Relative links are
// resolved against baseURL (or the page's <base href>); javascript: and data:
// addresses are dropped. Elements nested deeper than 256 levels are flattened to
// their text, so a hostile page cannot exhaust the stack. It is safe for
// concurrent use.
func HTMLToMarkdown(r io.Reader, contentType string, baseURL *url.URL) (Document, error) {
	return htmlToMarkdown(r, contentType, baseURL, true)
}

// HTMLBodyToMarkdown is HTMLToMarkdown without the article extraction: the
// whole body (or its <main>) in document order, for HTML that is all content,
// such as an e-book chapter.
func HTMLBodyToMarkdown(r io.Reader, contentType string, baseURL *url.URL) (Document, error) {
	return htmlToMarkdown(r, contentType, baseURL, false)
}

func htmlToMarkdown(r io.Reader, contentType string, baseURL *url.URL, articleFirst bool) (doc Document, err error) {
	defer func() {
		if p := recover(); p != nil {
			doc, err = Document{}, fmt.Errorf("html: converter failed on this page: %v", p)
		}
	}()
	if dr, cerr := charset.NewReader(r, contentType); cerr == nil {
		r = dr
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return Document{}, fmt.Errorf("html: read: %w", err)
	}
	root, err := html.Parse(bytes.NewReader(limitNesting(data, maxDepth)))
	if err != nil {
		return Document{}, fmt.Errorf("html: parse: %w", err)
	}
	flattenDeep(root, maxDepth)
	if b := baseHref(root); b != "" && baseURL != nil {
		if u, err := baseURL.Parse(b); err == nil {
			baseURL = u
		}
	}
	var art *html.Node
	var artTitle string
	if articleFirst {
		art, artTitle = article(root, baseURL)
	}
	doc.Title = metaTitle(root, artTitle)
	body := findFirst(root, atom.Body)
	if body == nil {
		body = root
	}
	content := mainContent(body)
	clean(content, content != body)
	md, err := renderMarkdown(content, baseURL)
	if err != nil {
		return Document{}, err
	}
	doc.Text = tidyText(md)
	if art != nil {
		clean(art, true)
		if amd, err := renderMarkdown(art, baseURL); err == nil && strings.TrimSpace(amd) != "" {
			amd = dropLinkRuns(tidyText(amd))
			if doc.Title != "" && !strings.HasPrefix(amd, "#") {
				amd = "# " + doc.Title + "\n\n" + amd
			}
			if rest := withoutArticle(doc.Text, amd); rest != "" {
				amd += "\n\n" + RestHeading + "\n\n" + rest
			}
			doc.Text = amd
		}
	}
	return doc, nil
}

// renderMarkdown turns a cleaned node into markdown with the library converter.
func renderMarkdown(n *html.Node, baseURL *url.URL) (string, error) {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(
			commonmark.WithHeadingStyle(commonmark.HeadingStyleATX),
			commonmark.WithLinkEmptyHrefBehavior(commonmark.LinkBehaviorSkip),
			commonmark.WithLinkEmptyContentBehavior(commonmark.LinkBehaviorSkip),
		),
		table.NewTablePlugin(
			table.WithNewlineBehavior(table.NewlineBehaviorPreserve),
			table.WithSkipEmptyRows(true),
			table.WithHeaderPromotion(true),
			table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal),
		),
	))
	var opts []converter.ConvertOptionFunc
	if baseURL != nil {
		opts = append(opts, converter.WithDomain(baseURL.String()))
	}
	out, err := conv.ConvertNode(n, opts...)
	if err != nil {
		return "", fmt.Errorf("html: convert: %w", err)
	}
	return string(out), nil
}

var blankLines = regexp.MustCompile(`\n{3,}`)

// tidyText makes the text valid UTF-8, strips trailing spaces from lines and
// collapses runs of blank lines.
func tidyText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	s = strings.Join(lines, "\n")
	s = blankLines.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}

// flat are elements that never deepen the tree: void elements, elements whose
// end tag is implied by the next sibling, and raw-text elements.
var flat = map[atom.Atom]bool{
	atom.Area: true, atom.Base: true, atom.Br: true, atom.Col: true, atom.Embed: true, atom.Hr: true,
	atom.Img: true, atom.Input: true, atom.Link: true, atom.Meta: true, atom.Source: true, atom.Track: true,
	atom.Wbr: true, atom.Param: true, atom.Keygen: true,
	atom.P: true, atom.Li: true, atom.Dt: true, atom.Dd: true, atom.Option: true, atom.Optgroup: true,
	atom.Tr: true, atom.Td: true, atom.Th: true, atom.Tbody: true, atom.Thead: true, atom.Tfoot: true,
	atom.Colgroup: true, atom.Rb: true, atom.Rt: true, atom.Rp: true, atom.Rtc: true,
	atom.Script: true, atom.Style: true, atom.Textarea: true, atom.Title: true, atom.Xmp: true,
	atom.Iframe: true, atom.Noembed: true, atom.Noframes: true, atom.Noscript: true, atom.Plaintext: true,
}

// limitNesting drops start and end tags nested deeper than limit, keeping
// their text. The HTML parser checks the stack of open elements on every tag,
// so a page of millions of nested tags would take quadratic time; this linear
// pass over the tokens keeps the parse fast. Pages within the limit are
// returned unchanged.
func limitNesting(data []byte, limit int) []byte {
	if tagDepth(data) <= limit {
		return data
	}
	z := html.NewTokenizer(bytes.NewReader(data))
	out := make([]byte, 0, len(data))
	var n nester
	depth, skipped := 0, 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return out
		}
		name, _ := z.TagName()
		switch d := n.delta(tt, name); {
		case d > 0 && depth >= limit:
			if tt == html.StartTagToken {
				skipped++
			}
			continue
		case d > 0:
			depth++
		case d < 0 && skipped > 0:
			skipped--
			continue
		case d < 0:
			depth = max(depth-1, 0)
		}
		out = append(out, z.Raw()...)
	}
}

// tagDepth is the deepest nesting of tags in data, counted the way
// limitNesting counts.
func tagDepth(data []byte) int {
	z := html.NewTokenizer(bytes.NewReader(data))
	var n nester
	depth, deepest := 0, 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return deepest
		}
		name, _ := z.TagName()
		depth = max(depth+n.delta(tt, name), 0)
		deepest = max(deepest, depth)
	}
}

// nester counts nesting over a token stream: it knows which tags never nest
// and that "<x/>" opens an element in HTML but not inside <svg> or <math>.
type nester struct{ foreign int }

// delta is +1 for a token that opens an element, -1 for one that closes it,
// 0 otherwise.
func (n *nester) delta(tt html.TokenType, name []byte) int {
	a := atom.Lookup(name)
	isForeign := a == atom.Svg || a == atom.Math
	switch tt {
	case html.StartTagToken:
		if isForeign {
			n.foreign++
		}
	case html.EndTagToken:
		if isForeign && n.foreign > 0 {
			n.foreign--
		}
		if !flat[a] {
			return -1
		}
		return 0
	case html.SelfClosingTagToken:
		if n.foreign > 0 {
			return 0
		}
	default:
		return 0
	}
	if flat[a] {
		return 0
	}
	return 1
}

// flattenDeep replaces every element deeper than limit with a text node holding
// its text. It walks with an explicit stack so it never recurses.
func flattenDeep(root *html.Node, limit int) {
	type item struct {
		n     *html.Node
		depth int
	}
	stack := []item{{root, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.depth >= limit && it.n.Type == html.ElementNode {
			text := &html.Node{Type: html.TextNode, Data: textOf(it.n, maxText)}
			it.n.Parent.InsertBefore(text, it.n)
			it.n.Parent.RemoveChild(it.n)
			continue
		}
		for c := it.n.FirstChild; c != nil; c = c.NextSibling {
			stack = append(stack, item{c, it.depth + 1})
		}
	}
}

// textOf concatenates the text below n (iteratively), up to max bytes.
func textOf(n *html.Node, max int) string {
	var b strings.Builder
	stack := []*html.Node{n}
	for len(stack) > 0 && b.Len() < max {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch c.Type {
		case html.TextNode:
			b.WriteString(c.Data)
			continue
		case html.ElementNode:
			if c.DataAtom == atom.Script || c.DataAtom == atom.Style {
				continue
			}
		}
		// push children in reverse so they pop in document order
		for k := c.LastChild; k != nil; k = k.PrevSibling {
			stack = append(stack, k)
		}
	}
	s := b.String()
	if len(s) > max {
		s = s[:max]
	}
	return s
}

// walk calls fn for every node below root in document order (iteratively).
// When fn returns false the node's children are skipped.
func walk(root *html.Node, fn func(*html.Node) bool) {
	stack := []*html.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !fn(n) {
			continue
		}
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
}

func findFirst(root *html.Node, a atom.Atom) *html.Node {
	var found *html.Node
	walk(root, func(n *html.Node) bool {
		if found != nil {
			return false
		}
		if n.Type == html.ElementNode && n.DataAtom == a {
			found = n
			return false
		}
		return true
	})
	return found
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func baseHref(root *html.Node) string {
	if b := findFirst(root, atom.Base); b != nil {
		return strings.TrimSpace(attr(b, "href"))
	}
	return ""
}

// pageTitle is the <title> text, else the first <h1>, whitespace collapsed.
func pageTitle(root *html.Node) string {
	var t string
	if n := findFirst(root, atom.Title); n != nil {
		t = collapseSpace(textOf(n, 4*maxTitle))
	}
	if t == "" {
		if n := findFirst(root, atom.H1); n != nil {
			t = collapseSpace(textOf(n, 4*maxTitle))
		}
	}
	t = strings.ToValidUTF8(t, "\uFFFD")
	if r := []rune(t); len(r) > maxTitle {
		t = string(r[:maxTitle]) + "…"
	}
	return t
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// mainContent picks the element that holds the page's main content: <main>,
// role="main" or a lone <article>, when it carries a fair share of the text.
func mainContent(body *html.Node) *html.Node {
	var mains, articles []*html.Node
	walk(body, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		switch {
		case n.DataAtom == atom.Main || attr(n, "role") == "main":
			mains = append(mains, n)
			return false
		case n.DataAtom == atom.Article:
			articles = append(articles, n)
			return false
		}
		return true
	})
	var pick *html.Node
	switch {
	case len(mains) == 1:
		pick = mains[0]
	case len(mains) == 0 && len(articles) == 1:
		pick = articles[0]
	default:
		return body
	}
	total := len(strings.TrimSpace(textOf(body, maxText)))
	if total == 0 || float64(len(strings.TrimSpace(textOf(pick, maxText)))) < mainShare*float64(total) {
		return body
	}
	return pick
}

// dropped are elements removed with their content.
var dropped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Canvas: true, atom.Iframe: true, atom.Object: true,
	atom.Embed: true, atom.Form: true, atom.Button: true, atom.Select: true, atom.Input: true,
	atom.Textarea: true, atom.Dialog: true, atom.Link: true, atom.Meta: true, atom.Head: true,
}

// chrome are page furniture dropped when the whole body is rendered.
var chrome = map[atom.Atom]bool{atom.Nav: true, atom.Aside: true, atom.Footer: true, atom.Header: true}

var chromeRoles = map[string]bool{"navigation": true, "banner": true, "contentinfo": true, "search": true, "complementary": true}

// keptAttrs are the attributes the converter uses; all others are dropped so
// huge or hostile attributes never reach the output.
var keptAttrs = map[string]bool{"href": true, "src": true, "alt": true, "title": true, "colspan": true, "rowspan": true, "start": true}

// clean removes scripts, hidden elements, chrome (unless the content was picked
// as the main element) and unsafe attributes, in place.
func clean(root *html.Node, isMain bool) {
	var remove []*html.Node
	walk(root, func(n *html.Node) bool {
		switch n.Type {
		case html.CommentNode:
			remove = append(remove, n)
			return false
		case html.ElementNode:
		default:
			return true
		}
		if dropped[n.DataAtom] || hidden(n) || (!isMain && n != root && isChrome(n)) {
			remove = append(remove, n)
			return false
		}
		n.Attr = safeAttrs(n)
		if n.DataAtom == atom.A && attr(n, "href") == "" {
			n.Data, n.DataAtom = "span", atom.Span // a link without a usable address is plain text
		}
		if n.DataAtom == atom.Img && strings.TrimSpace(attr(n, "alt")) == "" {
			remove = append(remove, n)
		}
		return true
	})
	for _, n := range remove {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
}

func isChrome(n *html.Node) bool {
	if chrome[n.DataAtom] {
		// A header inside an article or section belongs to the content.
		if n.DataAtom == atom.Header {
			for p := n.Parent; p != nil; p = p.Parent {
				if p.DataAtom == atom.Article || p.DataAtom == atom.Section || p.DataAtom == atom.Main {
					return false
				}
			}
		}
		return true
	}
	return chromeRoles[attr(n, "role")]
}

func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if a.Val == "true" {
				return true
			}
		case "style":
			s := strings.ReplaceAll(strings.ToLower(a.Val), " ", "")
			if strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
				return true
			}
		}
	}
	return false
}

func safeAttrs(n *html.Node) []html.Attribute {
	kept := n.Attr[:0]
	for _, a := range n.Attr {
		if !keptAttrs[a.Key] || a.Namespace != "" {
			continue
		}
		if a.Key == "href" || a.Key == "src" {
			v := strings.TrimSpace(a.Val)
			low := strings.ToLower(v)
			if len(v) > maxURLLen || strings.HasPrefix(low, "javascript:") || strings.HasPrefix(low, "data:") || strings.HasPrefix(low, "vbscript:") {
				continue
			}
		}
		if len(a.Val) > maxURLLen {
			a.Val = a.Val[:maxURLLen]
		}
		kept = append(kept, a)
	}
	return kept
}
