package checks

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"

	"slices"
	"strings"

	"deskpilot/internal/smallfile"
)

// docsMetrics are OSWorld's metrics/docs.py over Word documents.
func docsMetrics() map[string]Metric {
	return map[string]Metric{
		"compare_docx_files":                      {Fn: compareDocxFiles, Options: []string{"ignore_blanks", "ignore_case", "ignore_order", "content_only"}, Kwargs: true},
		"compare_docx_files_and_ignore_new_lines": {Fn: compareDocxIgnoreNewLines, Options: []string{"ignore_blanks"}, Kwargs: true},
		"compare_docx_tables":                     {Fn: compareDocxTables},
		"compare_docx_lines":                      {Fn: compareDocxLines},
		"contains_page_break":                     {Fn: containsPageBreak},
		"is_first_line_centered":                  {Fn: isFirstLineCentered},
	}
}

const wNS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

// docx is a Word document's body as python-docx reads it.
type docx struct {
	body *xnode
}

func openDocx(p string) (*docx, error) {
	data, err := smallfile.Read(p, maxDocFile)
	if err != nil {
		return nil, err
	}
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	part, err := zipPart(z, "word/document.xml")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	doc, err := parseXML(part)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	body := doc.child("body")
	if body == nil {
		return nil, fmt.Errorf("%s: no document body", p)
	}
	return &docx{body: body}, nil
}

// paragraphs are the body's own paragraphs (not those in tables), python-docx's
// Document.paragraphs.
func (d *docx) paragraphs() []*xnode {
	var out []*xnode
	for i := range d.body.Nodes {
		if n := &d.body.Nodes[i]; n.XMLName.Local == "p" {
			out = append(out, n)
		}
	}
	return out
}

// paraText is python-docx's Paragraph.text: its runs' text, hyperlinks'
// runs included; tabs as "\t", line breaks as "\n".
func paraText(p *xnode) string {
	var b strings.Builder
	run := func(r *xnode) {
		for i := range r.Nodes {
			c := &r.Nodes[i]
			switch c.XMLName.Local {
			case "t":
				b.WriteString(c.Text)
			case "tab", "ptab":
				b.WriteByte('\t')
			case "br":
				if t, _ := c.attr("type"); t == "" || t == "textWrapping" {
					b.WriteByte('\n')
				}
			case "cr":
				b.WriteByte('\n')
			case "noBreakHyphen":
				b.WriteByte('-')
			}
		}
	}
	for i := range p.Nodes {
		c := &p.Nodes[i]
		switch c.XMLName.Local {
		case "r":
			run(c)
		case "hyperlink", "ins", "smartTag", "fldSimple":
			for j := range c.Nodes {
				if c.Nodes[j].XMLName.Local == "r" {
					run(&c.Nodes[j])
				}
			}
		}
	}
	return b.String()
}

func (d *docx) texts() []string {
	var out []string
	for _, p := range d.paragraphs() {
		out = append(out, paraText(p))
	}
	return out
}

// odtTexts is OSWorld's get_paragraph_texts_odt: every text:p of content.xml,
// each its direct text and its direct spans' text.
func odtTexts(p string) ([]string, error) {
	data, err := smallfile.Read(p, maxDocFile)
	if err != nil {
		return nil, err
	}
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	part, err := zipPart(z, "content.xml")
	if err != nil {
		return nil, err
	}
	doc, err := parseXML(part)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, para := range doc.all("p") {
		if para.XMLName.Space != "urn:oasis:names:tc:opendocument:xmlns:text:1.0" {
			continue
		}
		var b strings.Builder
		b.WriteString(para.Text)
		for i := range para.Nodes {
			if c := &para.Nodes[i]; c.XMLName.Local == "span" {
				b.WriteString(c.Text)
			}
		}
		out = append(out, b.String())
	}
	return out, nil
}

// twoFiles returns the result and expected paths of a two-file metric; ok is

// twoDocx opens the result and expected documents of c: both, or nil and
// the score of a document missing or not opening (and an argument's error),
// as OSWorld's docs metrics score them.
func twoDocx(c Call) (d1, d2 *docx, miss Score, err error) {
	a, b, ok, err := twoFiles(c)
	if err != nil || !ok {
		return nil, nil, Score{Note: "a document is missing"}, err
	}
	d1, err1 := openDocx(a)
	d2, err2 := openDocx(b)
	if err1 != nil || err2 != nil {
		return nil, nil, Score{Note: "a document does not open"}, nil
	}
	return d1, d2, Score{}, nil
}

// false when either is missing (Python's "if not file1 or not file2").
func twoFiles(c Call) (a, b string, ok bool, err error) {
	a, ok1, err := pathArg(c.Result, "result")
	if err != nil {
		return "", "", false, err
	}
	b, ok2, err := pathArg(c.Expected, "expected")
	if err != nil {
		return "", "", false, err
	}
	return a, b, ok1 && ok2, nil
}

func compareDocxFiles(_ context.Context, c Call) (Score, error) {
	a, b, ok, err := twoFiles(c)
	if err != nil || !ok {
		return Score{Note: "a document is missing"}, err
	}
	var p1, p2 []string
	switch {
	case strings.HasSuffix(a, ".docx") && strings.HasSuffix(b, ".docx"):
		d1, err1 := openDocx(a)
		d2, err2 := openDocx(b)
		if err1 != nil || err2 != nil {
			return Score{Note: "a document does not open"}, nil
		}
		p1, p2 = d1.texts(), d2.texts()
	case strings.HasSuffix(a, ".odt") && strings.HasSuffix(b, ".odt"):
		var err1, err2 error
		p1, err1 = odtTexts(a)
		p2, err2 = odtTexts(b)
		if err1 != nil || err2 != nil {
			return Score{Note: "a document does not open"}, nil
		}
	default:
		return Score{Note: "unsupported file types or mismatch between file types"}, nil
	}
	if optBool(c.Options, "ignore_order", false) {
		slices.Sort(p1)
		slices.Sort(p2)
	}
	ic := optBool(c.Options, "ignore_case", false)
	joined := func(ps []string) string {
		s := pyStrip(squeezeSpace(strings.Join(ps, "\n")))
		if ic {
			s = PyLower(s)
		}
		return s
	}
	if optBool(c.Options, "content_only", false) {
		return similarity(joined(p1), joined(p2))
	}
	if optBool(c.Options, "ignore_blanks", true) {
		if t1, t2 := joined(p1), joined(p2); t1 != t2 {
			return Score{Note: fmt.Sprintf("the text differs: %s vs %s", show(t1), show(t2))}, nil
		}
		return Score{Value: 1}, nil
	}
	if len(p1) != len(p2) {
		return Score{Note: fmt.Sprintf("%d paragraphs, expected %d", len(p1), len(p2))}, nil
	}
	for i := range p1 {
		x, y := p1[i], p2[i]
		if ic {
			x, y = PyLower(x), PyLower(y)
		}
		if x != y {
			return Score{Note: fmt.Sprintf("paragraph %d is %s, expected %s", i+1, show(x), show(y))}, nil
		}
	}
	return Score{Value: 1}, nil
}

func compareDocxIgnoreNewLines(_ context.Context, c Call) (Score, error) {
	a, b, ok, err := twoFiles(c)
	if err != nil || !ok {
		return Score{Note: "a document is missing"}, err
	}
	if !strings.HasSuffix(a, ".docx") || !strings.HasSuffix(b, ".docx") {
		return Score{Note: "unsupported file types or mismatch between file types"}, nil
	}
	d1, err1 := openDocx(a)
	d2, err2 := openDocx(b)
	if err1 != nil || err2 != nil {
		return Score{Note: "a document does not open"}, nil
	}
	nonEmpty := func(ps []string) []string {
		return slices.DeleteFunc(ps, func(s string) bool { return s == "" })
	}
	p1, p2 := nonEmpty(d1.texts()), nonEmpty(d2.texts())
	if optBool(c.Options, "ignore_blanks", true) {
		t1 := pyStrip(squeezeSpace(strings.Join(p1, "\n")))
		t2 := pyStrip(squeezeSpace(strings.Join(p2, "\n")))
		if t1 != t2 {
			return Score{Note: "the text differs"}, nil
		}
		return Score{Value: 1}, nil
	}
	if !slices.Equal(p1, p2) {
		return Score{Note: "the paragraphs differ"}, nil
	}
	return Score{Value: 1}, nil
}

// tables are the body's own tables, each as rows of cell texts laid on the
// table's grid (a cell spanning columns fills each of them).
func (d *docx) tables() [][][]string {
	var out [][][]string
	for i := range d.body.Nodes {
		tbl := &d.body.Nodes[i]
		if tbl.XMLName.Local != "tbl" {
			continue
		}
		cols := 0
		if g := tbl.child("tblGrid"); g != nil {
			cols = len(g.all("gridCol"))
		}
		var rows [][]string
		for j := range tbl.Nodes {
			tr := &tbl.Nodes[j]
			if tr.XMLName.Local != "tr" {
				continue
			}
			var row []string
			for k := range tr.Nodes {
				tc := &tr.Nodes[k]
				if tc.XMLName.Local != "tc" {
					continue
				}
				var ps []string
				for l := range tc.Nodes {
					if tc.Nodes[l].XMLName.Local == "p" {
						ps = append(ps, paraText(&tc.Nodes[l]))
					}
				}
				span := 1
				if pr := tc.child("tcPr"); pr != nil {
					if gs := pr.child("gridSpan"); gs != nil {
						v, _ := gs.attr("val")
						if n, ok := pyIntOf(v); ok && n > 1 {
							span = n
						}
					}
				}
				for range span {
					row = append(row, strings.Join(ps, "\n"))
				}
			}
			for len(row) < cols {
				row = append(row, "")
			}
			rows = append(rows, row[:max(cols, 0)])
		}
		out = append(out, rows)
	}
	return out
}

func compareDocxTables(_ context.Context, c Call) (Score, error) {
	d1, d2, miss, err := twoDocx(c)
	if d1 == nil {
		return miss, err
	}
	t1, t2 := d1.tables(), d2.tables()
	if len(t1) != len(t2) {
		return Score{Note: fmt.Sprintf("%d tables, expected %d", len(t1), len(t2))}, nil
	}
	for i := range t1 {
		r1, r2 := t1[i], t2[i]
		if len(r1) != len(r2) || (len(r1) > 0 && len(r1[0]) != len(r2[0])) {
			return Score{Note: fmt.Sprintf("table %d has another shape", i+1)}, nil
		}
		for r := range r1 {
			for col := range r1[r] {
				if col >= len(r2[r]) || pyStrip(r1[r][col]) != pyStrip(r2[r][col]) {
					return Score{Note: fmt.Sprintf("table %d row %d column %d differs", i+1, r+1, col+1)}, nil
				}
			}
		}
	}
	return Score{Value: 1}, nil
}

func compareDocxLines(_ context.Context, c Call) (Score, error) {
	d1, d2, miss, err := twoDocx(c)
	if d1 == nil {
		return miss, err
	}
	set := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			if s := pyStrip(p); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	if sameSet(set(d1.texts()), set(d2.texts())) {
		return Score{Value: 1}, nil
	}
	return Score{Note: "the sets of lines differ"}, nil
}

func containsPageBreak(_ context.Context, c Call) (Score, error) {
	p, ok, err := pathArg(c.Result, "result")
	if err != nil || !ok {
		return Score{Note: "no document"}, err
	}
	d, err := openDocx(p)
	if err != nil {
		return Score{Note: "the document does not open"}, nil
	}
	for _, para := range d.paragraphs() {
		for i := range para.Nodes {
			if para.Nodes[i].XMLName.Local != "r" {
				continue
			}
			for _, br := range para.Nodes[i].all("br") {
				if t, _ := br.attrNS(wNS, "type"); t == "page" {
					return Score{Value: 1}, nil
				}
			}
		}
	}
	return Score{Note: "no page break"}, nil
}

func isFirstLineCentered(_ context.Context, c Call) (Score, error) {
	p, ok, err := pathArg(c.Result, "result")
	if err != nil || !ok {
		return Score{Note: "no document"}, err
	}
	d, err := openDocx(p)
	if err != nil {
		return Score{Note: "the document does not open"}, nil
	}
	ps := d.paragraphs()
	if len(ps) == 0 {
		return Score{}, fmt.Errorf("list index out of range (the document has no paragraph)")
	}
	if pr := ps[0].child("pPr"); pr != nil {
		if jc := pr.child("jc"); jc != nil {
			if v, _ := jc.attr("val"); v == "center" {
				return Score{Value: 1}, nil
			}
		}
	}
	return Score{Note: "the first paragraph is not centered"}, nil
}
