package checks

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// The namespace prefixes OSWorld's accessibility tree selectors use.
var a11yPrefixes = map[string]string{
	"uri:deskat:state.at-spi.gnome.org":               "st",
	"uri:deskat:attributes.at-spi.gnome.org":          "attr",
	"uri:deskat:component.at-spi.gnome.org":           "cp",
	"uri:deskat:document.at-spi.gnome.org":            "doc",
	"uri:deskat:attributes.document.at-spi.gnome.org": "docattr",
	"uri:deskat:text.at-spi.gnome.org":                "txt",
	"uri:deskat:value.at-spi.gnome.org":               "val",
	"uri:deskat:action.at-spi.gnome.org":              "act",
}

// a11yDoc is an accessibility tree parsed for CSS selectors: elements as
// html nodes, a namespaced attribute "attr|id" kept as "attr__id" (the
// selectors are rewritten the same way), and each element's own text (lxml's
// .text: before its first child).
type a11yDoc struct {
	root *html.Node
	text map[*html.Node]string
}

func parseA11yTree(s string) (*a11yDoc, error) {
	doc := &a11yDoc{root: &html.Node{Type: html.DocumentNode}, text: map[*html.Node]string{}}
	d := xml.NewDecoder(strings.NewReader(s))
	cur := doc.root
	hasChild := map[*html.Node]bool{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("accessibility tree: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &html.Node{Type: html.ElementNode, Data: t.Name.Local}
			for _, a := range t.Attr {
				k := a.Name.Local
				if a.Name.Space != "" {
					p, ok := a11yPrefixes[a.Name.Space]
					if !ok {
						continue
					}
					k = p + "__" + k
				}
				n.Attr = append(n.Attr, html.Attribute{Key: k, Val: a.Value})
			}
			hasChild[cur] = true
			cur.AppendChild(n)
			cur = n
		case xml.EndElement:
			if cur.Parent != nil {
				cur = cur.Parent
			}
		case xml.CharData:
			if !hasChild[cur] && cur != doc.root {
				doc.text[cur] += string(t)
			}
		}
	}
	if doc.root.FirstChild == nil {
		return nil, errors.New("accessibility tree: no root element")
	}
	return doc, nil
}

// nsAttr is a namespaced attribute in a selector: [attr|id=...].
var nsAttr = regexp.MustCompile(`\[\s*(st|attr|cp|doc|docattr|txt|val|act)\|([-\w]+)`)

// selectA11y is lxml's CSSSelector(selectors, namespaces=...)(tree): the
// matching elements in document order.
func (d *a11yDoc) selectA11y(sel string) ([]*html.Node, error) {
	s, err := cascadia.ParseGroup(nsAttr.ReplaceAllString(sel, "[${1}__${2}"))
	if err != nil {
		return nil, fmt.Errorf("SelectorSyntaxError: %q: %w", sel, err)
	}
	return cascadia.QueryAll(d.root, s), nil
}

// checkAccessibilityTree is check_accessibility_tree: each rule's selectors
// find an element; with "text", the best match of an element's text (equal,
// or fuzz.ratio when "exact" is false) multiplies the score.
func checkAccessibilityTree(_ context.Context, c Call) (Score, error) {
	tree, ok := c.Result.(string)
	if !ok {
		return Score{}, fmt.Errorf("TypeError: the accessibility tree is %s", PyType(c.Result))
	}
	rs, ok := c.Expected.([]any)
	if !ok {
		return Score{}, errors.New("TypeError: rules must be a list")
	}
	doc, err := parseA11yTree(tree)
	if err != nil {
		return Score{}, err
	}
	total := 1.0
	for i, rv := range rs {
		r, err := obj(rv, fmt.Sprintf("rules[%d]", i))
		if err != nil {
			return Score{}, err
		}
		if _, ok := r["xpath"]; ok {
			return Score{}, fmt.Errorf("%w: rules[%d]: XPath rules are not evaluated here (no task uses them; selectors are)", ErrUnavailable, i)
		}
		sels, err := strList(r["selectors"], fmt.Sprintf("rules[%d].selectors", i))
		if err != nil || r["selectors"] == nil {
			return Score{}, errors.New("ValueError: At least one of xpath and selectors is required")
		}
		els, err := doc.selectA11y(strings.Join(sels, ", "))
		if err != nil {
			return Score{}, err
		}
		if len(els) == 0 {
			return Score{Note: fmt.Sprintf("no element matches %s", strings.Join(sels, ", "))}, nil
		}
		want, hasText := r["text"]
		if !hasText {
			continue
		}
		exact, ok := r["exact"]
		if !ok {
			return Score{}, fmt.Errorf("KeyError: rules[%d] has text but no exact", i)
		}
		best := 0.0
		for _, e := range els {
			text, has := doc.text[e]
			var v float64
			switch {
			case PyTruthy(exact):
				v = b2f(has && text != "" && PyEqual(want, text))
			case has && text != "":
				ws, ok := want.(string)
				if !ok {
					return Score{}, errors.New("TypeError: the rule's text is not a string")
				}
				if v, err = fuzzRatio(ws, text); err != nil {
					return Score{}, err
				}
			}
			best = max(best, v)
		}
		total *= best
	}
	if total < 1 {
		return Score{Value: total, Note: "the elements' text differs"}, nil
	}
	return Score{Value: total}, nil
}
