package checks

import (
	"archive/zip"
	"context"
	"fmt"
	"maps"
	"path"
	"strconv"
	"strings"
	"unicode"
)

// docxFormatMetrics are docs.py's metrics over run fonts, line spacing and
// footers.
func docxFormatMetrics() map[string]Metric {
	m := map[string]Metric{
		"compare_font_names":          {Fn: compareFontNames, Check: rulesWith("font_name")},
		"compare_line_spacing":        {Fn: compareLineSpacing},
		"has_page_numbers_in_footers": {Fn: hasPageNumbersInFooters},
	}
	maps.Copy(m, docxMoreMetrics())
	return m
}

// directRuns are a paragraph's own w:r children (python-docx's
// Paragraph.runs).
func directRuns(p *xnode) []*xnode {
	var out []*xnode
	for i := range p.Nodes {
		if c := &p.Nodes[i]; c.XMLName.Local == "r" && c.XMLName.Space == wNS {
			out = append(out, c)
		}
	}
	return out
}

// wAttr is a w: attribute of n (nil-safe).
func wAttr(n *xnode, name string) (string, bool) {
	if n == nil {
		return "", false
	}
	return n.attrNS(wNS, name)
}

// compareFontNames is compare_font_names: every run of the body's
// paragraphs in rules["font_name"] (its w:rFonts w:ascii; a run without one
// differs).
func compareFontNames(_ context.Context, c Call) (Score, error) {
	p, ok := c.Result.(string)
	if !ok || p == "" {
		return Score{Note: "no document"}, nil
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	want, err := key(r, "font_name")
	if err != nil {
		return Score{}, err
	}
	d, err := openDocx(p)
	if err != nil {
		return Score{Note: "the document does not open"}, nil
	}
	for _, para := range d.paragraphs() {
		for _, run := range directRuns(para) {
			name, ok := wAttr(childNS(childNS(run, wNS, "rPr"), wNS, "rFonts"), "ascii")
			var got any
			if ok {
				got = name
			}
			if !PyEqual(got, want) {
				return Score{Note: fmt.Sprintf("a run is in %s", show(got))}, nil
			}
		}
	}
	return Score{Value: 1}, nil
}

// lineSpacing is ParagraphFormat.line_spacing: None, a multiple (lineRule
// auto: line/240) or a length in EMU.
func lineSpacing(p *xnode) (string, error) {
	sp := childNS(childNS(p, wNS, "pPr"), wNS, "spacing")
	line, ok := wAttr(sp, "line")
	if !ok {
		return pyNone, nil
	}
	n, err := strconv.Atoi(line)
	if err != nil {
		return "", fmt.Errorf("ValueError: w:line %q", line)
	}
	if rule, _ := wAttr(sp, "lineRule"); rule == "" || rule == "auto" {
		return PyFloatRepr(float64(n) / 240), nil
	}
	return strconv.Itoa(n * 635), nil
}

// compareLineSpacing is compare_line_spacing: the documents match as
// compare_docx_files says, with as many paragraphs, each of the same line
// spacing.
func compareLineSpacing(ctx context.Context, c Call) (Score, error) {
	a, b, ok, err := twoFiles(c)
	if err != nil || !ok {
		return Score{Note: "a document is missing"}, err
	}
	s, err := compareDocxFiles(ctx, Call{Result: a, Expected: b})
	if err != nil || s.Value == 0 {
		return Score{Note: "the documents differ: " + s.Note}, err
	}
	d1, err1 := openDocx(a)
	d2, err2 := openDocx(b)
	if err1 != nil || err2 != nil {
		return Score{Note: "a document does not open"}, nil
	}
	p1, p2 := d1.paragraphs(), d2.paragraphs()
	if len(p1) != len(p2) {
		return Score{Note: fmt.Sprintf("%d paragraphs, expected %d", len(p1), len(p2))}, nil
	}
	for i := range p1 {
		x, err := lineSpacing(p1[i])
		if err != nil {
			return Score{}, err
		}
		y, err := lineSpacing(p2[i])
		if err != nil {
			return Score{}, err
		}
		if x != y {
			return Score{Note: fmt.Sprintf("paragraph %d: line spacing %s, expected %s", i+1, pyShow(x), pyShow(y))}, nil
		}
	}
	return Score{Value: 1}, nil
}

// hasPageNumbersInFooters is has_page_numbers_in_footers: every section's
// default footer (inherited from the section before when it has none) has a
// digit in its first paragraph.
func hasPageNumbersInFooters(_ context.Context, c Call) (Score, error) {
	p, ok := c.Result.(string)
	if !ok || p == "" {
		return Score{Note: "no document"}, nil
	}
	z, err := openZip(p)
	if err != nil {
		return Score{Note: "the document does not open"}, nil
	}
	d, err := openDocx(p)
	if err != nil {
		return Score{Note: "the document does not open"}, nil
	}
	rels, err := docxRels(z)
	if err != nil {
		return Score{}, err
	}
	var sects []*xnode
	for _, para := range d.paragraphs() {
		if s := childNS(childNS(para, wNS, "pPr"), wNS, "sectPr"); s != nil {
			sects = append(sects, s)
		}
	}
	if s := childNS(d.body, wNS, "sectPr"); s != nil {
		sects = append(sects, s)
	}
	footer := ""
	for i, s := range sects {
		for j := range s.Nodes {
			ref := &s.Nodes[j]
			if ref.XMLName.Local != "footerReference" {
				continue
			}
			if t, _ := wAttr(ref, "type"); t != "default" {
				continue
			}
			id, _ := ref.attrNS(relNS, "id")
			footer = rels[id]
		}
		text := ""
		if footer != "" {
			data, err := zipPart(z, footer)
			if err != nil {
				return Score{}, err
			}
			ftr, err := parseXML(data)
			if err != nil {
				return Score{}, err
			}
			if ps := ftr.all("p"); len(ps) > 0 {
				text = paraText(ps[0])
			}
		}
		if !strings.ContainsFunc(text, unicode.IsDigit) {
			return Score{Note: fmt.Sprintf("section %d's footer %q has no page number", i+1, text)}, nil
		}
	}
	return Score{Value: 1}, nil
}

// docxRels maps word/document.xml's relationship ids to part names.
func docxRels(z *zip.Reader) (map[string]string, error) {
	data, err := zipPart(z, "word/_rels/document.xml.rels")
	if err != nil {
		return map[string]string{}, nil
	}
	doc, err := parseXML(data)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range doc.all("Relationship") {
		id, _ := r.attr("Id")
		t, _ := r.attr("Target")
		if strings.HasPrefix(t, "/") {
			out[id] = strings.TrimPrefix(t, "/")
		} else {
			out[id] = path.Join("word", t)
		}
	}
	return out, nil
}
