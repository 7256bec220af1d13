package inspect

import (
	"encoding/xml"
	"io"
	"strings"
)

// mathNS are the namespaces of Office Math (OMML), transitional and strict.
var mathNS = map[string]bool{
	"http://schemas.openxmlformats.org/officeDocument/2006/math": true,
	"http://purl.oclc.org/ooxml/officeDocument/math":             true,
}

// Bounds of one equation read from a document.
const (
	maxMathNodes = 20000
	maxMathDepth = 64
)

// mnode is one element of an equation.
type mnode struct {
	name  string
	val   string // the m:val attribute
	text  string // character data of m:t
	kids  []*mnode
	depth int
}

func (n *mnode) kid(name string) *mnode {
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	return nil
}

// readMath reads the equation whose start element was just decoded, up to
// its end element, as a tree.
func readMath(d *xml.Decoder, start xml.StartElement) (*mnode, error) {
	root := &mnode{name: start.Name.Local}
	stack := []*mnode{root}
	count := 0
	for len(stack) > 0 {
		tok, err := d.Token()
		if err == io.EOF {
			return root, nil
		}
		if err != nil {
			return nil, err
		}
		top := stack[len(stack)-1]
		switch t := tok.(type) {
		case xml.StartElement:
			count++
			n := &mnode{name: t.Name.Local, val: attrOf(t, "val", mathNS), depth: top.depth + 1}
			if !mathNS[t.Name.Space] {
				n.name = "" // Word run properties and the like: text only
			}
			if count < maxMathNodes && n.depth < maxMathDepth {
				top.kids = append(top.kids, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if top.name == "t" {
				top.text += string(t)
			}
		}
	}
	return root, nil
}

// linear writes an equation as linear text in the manner of UnicodeMath:
// "(a+b)/2", "x^2", "x_i", "√(x)", "∑_(i=1)^n i", "sin x".
func linear(n *mnode) string {
	if n == nil {
		return ""
	}
	switch n.name {
	case "t":
		return n.text
	case "f":
		return group(linear(n.kid("num"))) + "/" + group(linear(n.kid("den")))
	case "sSup":
		return group(linear(n.kid("e"))) + "^" + group(linear(n.kid("sup")))
	case "sSub":
		return group(linear(n.kid("e"))) + "_" + group(linear(n.kid("sub")))
	case "sSubSup":
		return group(linear(n.kid("e"))) + "_" + group(linear(n.kid("sub"))) + "^" + group(linear(n.kid("sup")))
	case "sPre":
		return "_" + group(linear(n.kid("sub"))) + "^" + group(linear(n.kid("sup"))) + linear(n.kid("e"))
	case "rad":
		if deg := linear(n.kid("deg")); deg != "" {
			return "√(" + deg + "&" + linear(n.kid("e")) + ")"
		}
		return "√" + group(linear(n.kid("e")))
	case "nary":
		return nary(n)
	case "d":
		return prop(n, "dPr", "begChr", "(") + strings.Join(linearAll(n, "e"), prop(n, "dPr", "sepChr", "|")) + prop(n, "dPr", "endChr", ")")
	case "func":
		return linear(n.kid("fName")) + " " + linear(n.kid("e"))
	case "limLow":
		return group(linear(n.kid("e"))) + "_" + group(linear(n.kid("lim")))
	case "limUpp":
		return group(linear(n.kid("e"))) + "^" + group(linear(n.kid("lim")))
	case "acc":
		return linear(n.kid("e")) + prop(n, "accPr", "chr", "\u0302")
	case "m":
		var rows []string
		for _, r := range n.kids {
			if r.name == "mr" {
				rows = append(rows, "["+strings.Join(linearAll(r, "e"), ", ")+"]")
			}
		}
		return "[" + strings.Join(rows, ", ") + "]"
	case "eqArr":
		return strings.Join(linearAll(n, "e"), "; ")
	}
	if strings.HasSuffix(n.name, "Pr") {
		return "" // properties, not content
	}
	var b strings.Builder
	for _, k := range n.kids {
		b.WriteString(linear(k))
	}
	return b.String()
}

// nary is a sum, product or integral: "∑_(i=1)^n x".
func nary(n *mnode) string {
	s := prop(n, "naryPr", "chr", "∫")
	if sub := linear(n.kid("sub")); sub != "" {
		s += "_" + group(sub)
	}
	if sup := linear(n.kid("sup")); sup != "" {
		s += "^" + group(sup)
	}
	return s + " " + linear(n.kid("e"))
}

// linearAll is the linear text of each child named name.
func linearAll(n *mnode, name string) []string {
	var out []string
	for _, k := range n.kids {
		if k.name == name {
			out = append(out, linear(k))
		}
	}
	return out
}

// group puts a multi-character operand in parentheses.
func group(s string) string {
	if len([]rune(s)) <= 1 || (strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")")) {
		return s
	}
	return "(" + s + ")"
}

// prop reads a character property (m:chr, m:begChr...) of an element, or
// the default.
func prop(n *mnode, pr, name, def string) string {
	if p := n.kid(pr); p != nil {
		if c := p.kid(name); c != nil {
			return c.val
		}
	}
	return def
}
