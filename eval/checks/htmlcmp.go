package checks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// This file is OSWorld's compare_htmls: both files parsed as BeautifulSoup
// does with lxml, then their nodes in document order compared pairwise. The
// tree is built the way libxml2's HTML parser builds it (not the HTML5
// algorithm): no implied tbody, an end tag that matches no open element or
// would close a table cell is dropped, a few start tags close the open p,
// li, td, tr... and whitespace is kept everywhere but before the html
// element. Over that tree BeautifulSoup's rules: adjacent text is one
// string, a string of ASCII
// whitespace only is "\n" (or " " without a newline) outside pre and
// textarea, a class (rel, headers...) attribute is its list of words, and a
// tag's text leaves out comments and the strings of script, style and
// template unless it is one of those.

// compareHTMLs is 1 when every pair of nodes zip gives over the two trees
// is equal: tags by name, stripped text and attributes, strings by their
// text (a tag and a string are never equal); the longer tree's extra nodes
// are not looked at.
func compareHTMLs(ctx context.Context, c Call) (Score, error) {
	if c.Expected == nil {
		return Score{}, errNoExpected
	}
	var trees [2][]*bsNode
	for i, v := range []any{c.Result, c.Expected} {
		p, ok := v.(string)
		if !ok {
			return Score{}, fmt.Errorf("compare_htmls: want a file path, got %s", PyType(v))
		}
		s, err := readText(p)
		if err != nil {
			return Score{}, err
		}
		root, err := parseSoup(s)
		if err != nil {
			return Score{}, fmt.Errorf("%s: %w", p, err)
		}
		root.walk(func(n *bsNode) { trees[i] = append(trees[i], n) })
		trees[i] = trees[i][1:] // the soup itself is not generated
	}
	for i := range min(len(trees[0]), len(trees[1])) {
		if i%1024 == 0 && ctx.Err() != nil {
			return Score{}, ctx.Err()
		}
		a, b := trees[0][i], trees[1][i]
		if why := bsDiffer(a, b); why != "" {
			return Score{Note: fmt.Sprintf("node %d differs: %s", i+1, why)}, nil
		}
	}
	return Score{Value: 1}, nil
}

// bsNode is a node of BeautifulSoup's tree: a tag (name set) or a string.
type bsNode struct {
	name     string
	attrs    map[string]any // string, or []string for the list attributes
	children []*bsNode
	// A string's text and kind: "" for text, else "comment", "doctype" or
	// the tag whose string class it has (script, style, template, rt, rp).
	text, kind string
}

func (n *bsNode) walk(f func(*bsNode)) {
	f(n)
	for _, ch := range n.children {
		ch.walk(f)
	}
}

// tagText is the tag's .text: its strings of the kind it is interested in.
func (n *bsNode) tagText() string {
	want := ""
	if bsStringTags[n.name] {
		want = n.name
	}
	var b strings.Builder
	n.walk(func(d *bsNode) {
		if d.name == "" && d.kind == want {
			b.WriteString(d.text)
		}
	})
	return b.String()
}

func bsDiffer(a, b *bsNode) string {
	if a.name == "" || b.name == "" {
		if a.name == "" && b.name == "" && a.text == b.text {
			return ""
		}
		return fmt.Sprintf("%s against %s", bsShow(a), bsShow(b))
	}
	if a.name != b.name {
		return fmt.Sprintf("<%s> against <%s>", a.name, b.name)
	}
	if ta, tb := pyStrip(a.tagText()), pyStrip(b.tagText()); ta != tb {
		return fmt.Sprintf("<%s> has the text %s against %s", a.name, pyRepr(cut(ta, 60)), pyRepr(cut(tb, 60)))
	}
	if !bsAttrsEqual(a.attrs, b.attrs) {
		return fmt.Sprintf("<%s> has the attributes %v against %v", a.name, a.attrs, b.attrs)
	}
	return ""
}

func bsShow(n *bsNode) string {
	if n.name != "" {
		return "<" + n.name + ">"
	}
	return "the string " + pyRepr(cut(n.text, 60))
}

func bsAttrsEqual(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, va := range a {
		vb, ok := b[k]
		if !ok {
			return false
		}
		switch x := va.(type) {
		case string:
			if y, ok := vb.(string); !ok || x != y {
				return false
			}
		case []string:
			if y, ok := vb.([]string); !ok || !slices.Equal(x, y) {
				return false
			}
		}
	}
	return true
}

// bsStringTags are the tags whose strings have their own class.
var bsStringTags = map[string]bool{"script": true, "style": true, "template": true, "rt": true, "rp": true}

// bsListAttrs are the attributes BeautifulSoup splits into words, by tag
// ("*" for any).
var bsListAttrs = map[string][]string{
	"*": {"class", "accesskey", "dropzone"}, "a": {"rel", "rev"}, "link": {"rel", "rev"},
	"td": {"headers"}, "th": {"headers"}, "form": {"accept-charset"}, "object": {"archive"},
	"area": {"rel"}, "icon": {"sizes"}, "iframe": {"sandbox"}, "output": {"for"},
}

var bsWords = regexp.MustCompile(`\S+`)

// htmlVoid are the elements libxml2 closes at once.
var htmlVoid = map[string]bool{
	"area": true, "base": true, "basefont": true, "br": true, "col": true, "embed": true, "frame": true,
	"hr": true, "img": true, "input": true, "isindex": true, "link": true, "meta": true, "param": true,
	"source": true, "track": true, "wbr": true,
}

// htmlHeadTags are the elements that go in an implied head.
var htmlHeadTags = map[string]bool{"script": true, "style": true, "meta": true, "link": true, "title": true, "base": true}

// htmlClosedBy says, for an open element, which start tags close it.
var htmlClosedBy = func() map[string]map[string]bool {
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(s) {
			m[w] = true
		}
		return m
	}
	block := "p div ul ol dl dd dt li table h1 h2 h3 h4 h5 h6 pre form blockquote address hr center menu dir listing xmp fieldset body frameset"
	return map[string]map[string]bool{
		"p":        set(block),
		"li":       set("li"),
		"dt":       set("dt dd"),
		"dd":       set("dt dd"),
		"option":   set("option optgroup"),
		"tr":       set("tr thead tbody tfoot"),
		"td":       set("td th tr thead tbody tfoot"),
		"th":       set("td th tr thead tbody tfoot"),
		"thead":    set("thead tbody tfoot"),
		"tbody":    set("thead tbody tfoot"),
		"tfoot":    set("thead tbody tfoot"),
		"colgroup": set("colgroup tr thead tbody tfoot"),
		"a":        set("a"),
	}
}()

// htmlEndPriority: an end tag does not close an open element of a higher
// priority on its way to the element it names.
func htmlEndPriority(name string) int {
	switch name {
	case "div":
		return 150
	case "td", "th":
		return 160
	case "tr":
		return 170
	case "thead", "tbody", "tfoot":
		return 180
	case "table":
		return 190
	case "head", "body":
		return 200
	case "html":
		return 220
	}
	return 100
}

// soupBuilder builds the tree from the tokens.
type soupBuilder struct {
	root               *bsNode
	stack              []*bsNode
	data               strings.Builder
	headSeen, bodySeen bool
	started            bool // html was opened: blanks are kept from here on
}

func (sb *soupBuilder) top() *bsNode {
	if len(sb.stack) == 0 {
		return sb.root
	}
	return sb.stack[len(sb.stack)-1]
}

func (sb *soupBuilder) inStack(names ...string) bool {
	for _, n := range sb.stack {
		if slices.Contains(names, n.name) {
			return true
		}
	}
	return false
}

// flush ends the pending text as BeautifulSoup's endData does.
func (sb *soupBuilder) flush() {
	if sb.data.Len() == 0 {
		return
	}
	s := sb.data.String()
	sb.data.Reset()
	if strings.Trim(s, " \n\t\f\r") == "" && !sb.inStack("pre", "textarea") {
		if strings.Contains(s, "\n") {
			s = "\n"
		} else {
			s = " "
		}
	}
	kind := ""
	for i := len(sb.stack) - 1; i >= 0; i-- {
		if bsStringTags[sb.stack[i].name] {
			kind = sb.stack[i].name
			break
		}
	}
	sb.add(&bsNode{text: s, kind: kind})
}

func (sb *soupBuilder) add(n *bsNode) {
	t := sb.top()
	t.children = append(t.children, n)
}

func (sb *soupBuilder) push(name string, attrs []html.Attribute) {
	sb.flush()
	n := &bsNode{name: name, attrs: map[string]any{}}
	for _, a := range attrs {
		if _, dup := n.attrs[a.Key]; dup {
			continue // libxml2 keeps the first
		}
		if slices.Contains(bsListAttrs["*"], a.Key) || slices.Contains(bsListAttrs[name], a.Key) {
			n.attrs[a.Key] = bsWords.FindAllString(a.Val, -1)
		} else {
			n.attrs[a.Key] = a.Val
		}
	}
	sb.add(n)
	sb.stack = append(sb.stack, n)
	switch name {
	case "html":
		sb.started = true
	case "head":
		sb.headSeen = true
	case "body":
		sb.bodySeen = true
	}
}

func (sb *soupBuilder) pop() {
	sb.flush()
	sb.stack = sb.stack[:len(sb.stack)-1]
}

// implied opens the html, head or body element that name needs.
func (sb *soupBuilder) implied(name string) {
	if name == "html" {
		return
	}
	if len(sb.stack) == 0 {
		sb.push("html", nil)
	}
	if name == "head" || name == "body" {
		return
	}
	if len(sb.stack) <= 1 && htmlHeadTags[name] {
		if !sb.headSeen && !sb.bodySeen {
			sb.push("head", nil)
		}
		return
	}
	if name == "noframes" || name == "frame" || name == "frameset" || sb.bodySeen || sb.inStack("body", "head") {
		return
	}
	sb.push("body", nil)
}

// autoClose closes the open elements the start tag name ends.
func (sb *soupBuilder) autoClose(name string) {
	for len(sb.stack) > 0 {
		t := sb.top().name
		closes := htmlClosedBy[t][name]
		if t == "head" {
			closes = !htmlHeadTags[name] && name != "noscript" && name != "head"
		}
		if !closes {
			return
		}
		sb.pop()
	}
}

func (sb *soupBuilder) start(name string, attrs []html.Attribute, selfClosing bool) {
	switch {
	case name == "html" && len(sb.stack) > 0,
		name == "head" && (sb.headSeen || sb.bodySeen),
		name == "body" && sb.inStack("body"):
		return // a misplaced one is dropped
	}
	sb.autoClose(name)
	sb.implied(name)
	sb.push(name, attrs)
	if selfClosing || htmlVoid[name] {
		sb.pop()
	}
}

func (sb *soupBuilder) end(name string) {
	pr := htmlEndPriority(name)
	for i := len(sb.stack) - 1; i >= 0; i-- {
		if sb.stack[i].name == name {
			for len(sb.stack) > i {
				sb.pop()
			}
			return
		}
		if htmlEndPriority(sb.stack[i].name) > pr {
			return
		}
	}
}

func (sb *soupBuilder) text(s string) {
	if !sb.started {
		s = strings.TrimLeft(s, " \n\t\r")
		if s == "" {
			return
		}
	}
	if strings.Trim(s, " \n\t\f\r") != "" && !(len(sb.stack) == 0 && sb.started) {
		switch {
		case len(sb.stack) == 0:
			sb.autoClose("p")
			sb.implied("p")
			sb.push("p", nil)
		case sb.top().name == "html" || sb.top().name == "head":
			sb.implied("p")
			sb.push("p", nil)
		}
	}
	sb.data.WriteString(s)
}

// soupDoctype is BeautifulSoup's Doctype string for a doctype's text.
func soupDoctype(raw string) string {
	f := strings.Fields(raw)
	if len(f) == 0 {
		return ""
	}
	name := f[0]
	rest := strings.TrimSpace(raw[strings.Index(raw, f[0])+len(f[0]):])
	quoted := regexp.MustCompile(`"[^"]*"|'[^']*'`).FindAllString(rest, 2)
	for i, q := range quoted {
		quoted[i] = q[1 : len(q)-1]
	}
	up := strings.ToUpper(rest)
	switch {
	case strings.HasPrefix(up, "PUBLIC") && len(quoted) > 0:
		s := name + ` PUBLIC "` + quoted[0] + `"`
		if len(quoted) > 1 {
			s += ` "` + quoted[1] + `"`
		}
		return s
	case strings.HasPrefix(up, "SYSTEM") && len(quoted) > 0:
		return name + ` SYSTEM "` + quoted[0] + `"`
	}
	return name
}

// parseSoup builds BeautifulSoup's tree of the document s.
func parseSoup(s string) (*bsNode, error) {
	sb := &soupBuilder{root: &bsNode{name: "[document]", attrs: map[string]any{}}}
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			if err := z.Err(); !errors.Is(err, io.EOF) {
				return nil, err
			}
			sb.flush()
			return sb.root, nil
		case html.TextToken:
			sb.text(string(z.Text()))
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			sb.start(tok.Data, tok.Attr, tok.Type == html.SelfClosingTagToken)
		case html.EndTagToken:
			tok := z.Token()
			sb.end(tok.Data)
		case html.CommentToken:
			sb.flush()
			sb.add(&bsNode{text: string(z.Text()), kind: "comment"})
		case html.DoctypeToken:
			sb.flush()
			sb.add(&bsNode{text: soupDoctype(string(z.Text())), kind: "doctype"})
		}
	}
}
