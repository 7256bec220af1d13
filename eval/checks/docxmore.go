package checks

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path"
	"strconv"
	"strings"

	"deskpilot/internal/smallfile"
)

// docxMoreMetrics are more of docs.py's metrics over Word (and Writer)
// documents: tab stops, run properties, pictures, references and Writer's
// default font.
func docxMoreMetrics() map[string]Metric {
	return map[string]Metric{
		"check_tabstops":                         {Fn: checkTabstops, Kwargs: true},
		"compare_subscript_contains":             {Fn: compareSubscriptContains},
		"check_italic_font_size_14":              {Fn: checkItalicFontSize14},
		"evaluate_strike_through_last_paragraph": {Fn: evaluateStrikeThroughLastParagraph},
		"check_highlighted_words":                {Fn: checkHighlightedWords},
		"compare_contains_image":                 {Fn: compareContainsImage},
		"evaluate_colored_words_in_tables":       {Fn: evaluateColoredWordsInTables, Kwargs: true},
		"find_default_font":                      {Fn: findDefaultFont, Check: rulesWith("font_name")},
		"compare_docx_images":                    {Fn: compareDocxImages},
		"compare_references":                     {Fn: compareReferences, Kwargs: true},
	}
}

// onOff is a w:b/w:i/w:strike-like element's tri-state value as python-docx
// reads it: nil when the element is absent, else its w:val (absent is true).
func onOff(n *xnode) (*bool, error) {
	if n == nil {
		return nil, nil
	}
	v, ok := wAttr(n, "val")
	t := true
	if !ok {
		return &t, nil
	}
	switch v {
	case "1", "true", "on":
		return &t, nil
	case "0", "false", "off":
		f := false
		return &f, nil
	}
	return nil, fmt.Errorf("InvalidXmlError: w:%s w:val %q is not an on/off value", n.XMLName.Local, v)
}

// runProp is the run's w:rPr child named local (nil-safe).
func runProp(run *xnode, local string) *xnode {
	return childNS(childNS(run, wNS, "rPr"), wNS, local)
}

// emuOf is a twips measure (ST_TwipsMeasure, ST_SignedTwipsMeasure) in EMU:
// plain twips or a number with a unit (mm, cm, in, pt, pc, pi).
func emuOf(v string) (int64, error) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n * 635, nil
	}
	units := map[string]float64{"mm": 36000, "cm": 360000, "in": 914400, "pt": 12700, "pc": 152400, "pi": 152400}
	if len(v) > 2 {
		if per, ok := units[v[len(v)-2:]]; ok {
			if f, err := strconv.ParseFloat(v[:len(v)-2], 64); err == nil {
				return int64(f * per), nil
			}
		}
	}
	return 0, fmt.Errorf("ValueError: %q is not a twips measure", v)
}

// sections are the body's w:sectPr elements in order: those ending a
// section in a paragraph's properties, then the body's own (python-docx's
// Document.sections).
func (d *docx) sections() []*xnode {
	var out []*xnode
	for i := range d.body.Nodes {
		n := &d.body.Nodes[i]
		if n.XMLName.Local == "p" {
			if s := childNS(childNS(n, wNS, "pPr"), wNS, "sectPr"); s != nil {
				out = append(out, s)
			}
		} else if n.XMLName.Local == "sectPr" && n.XMLName.Space == wNS {
			out = append(out, n)
		}
	}
	return out
}

// textWidth is the first section's page width less its left and right
// margins, in EMU; an unset one is Python's TypeError.
func (d *docx) textWidth() (int64, error) {
	ss := d.sections()
	if len(ss) == 0 {
		return 0, fmt.Errorf("IndexError: the document has no section")
	}
	var vals [3]int64
	for i, a := range [][2]string{{"pgSz", "w"}, {"pgMar", "left"}, {"pgMar", "right"}} {
		v, ok := wAttr(childNS(ss[0], wNS, a[0]), a[1])
		if !ok {
			return 0, fmt.Errorf("TypeError: the first section has no w:%s w:%s", a[0], a[1])
		}
		n, err := emuOf(v)
		if err != nil {
			return 0, err
		}
		vals[i] = n
	}
	return vals[0] - vals[1] - vals[2], nil
}

// tabStop is a w:tab of a paragraph's w:tabs: python-docx's TabStop
// alignment (its WD_TAB_ALIGNMENT's XML name) and position in EMU.
type tabStop struct {
	align string
	pos   int64
}

// tabStops are the paragraph's own tab stops (ParagraphFormat.tab_stops: the
// paragraph's w:pPr/w:tabs, not its style's).
func tabStops(p *xnode) ([]tabStop, error) {
	tabs := childNS(childNS(p, wNS, "pPr"), wNS, "tabs")
	if tabs == nil {
		return nil, nil
	}
	var out []tabStop
	for i := range tabs.Nodes {
		t := &tabs.Nodes[i]
		if t.XMLName.Local != "tab" || t.XMLName.Space != wNS {
			continue
		}
		val, ok := wAttr(t, "val")
		switch val {
		case "left", "center", "right", "decimal", "bar", "list", "clear", "end", "num", "start":
		default:
			if !ok {
				return nil, fmt.Errorf("InvalidXmlError: a w:tab without w:val")
			}
			return nil, fmt.Errorf("ValueError: w:tab w:val %q", val)
		}
		pos, ok := wAttr(t, "pos")
		if !ok {
			return nil, fmt.Errorf("InvalidXmlError: a w:tab without w:pos")
		}
		n, err := emuOf(pos)
		if err != nil {
			return nil, err
		}
		out = append(out, tabStop{val, n})
	}
	return out, nil
}

// checkTabstops is check_tabstops: the documents' non-blank paragraphs pair
// up, each pair with the same tab stops (cleared ones and a left one at 0
// left out) of the same alignments; the score is 1 less the mean over the
// paragraphs of their positions' total distance as a share of the expected
// document's text width. With word_number_split_by_tabstop, each of the
// result's paragraphs has that many words in its index-th tab-separated part.
func checkTabstops(_ context.Context, c Call) (Score, error) {
	d1, d2, miss, err := twoDocx(c)
	if d1 == nil {
		return miss, err
	}
	nonBlank := func(d *docx) []*xnode {
		var out []*xnode
		for _, p := range d.paragraphs() {
			if pyStrip(paraText(p)) != "" {
				out = append(out, p)
			}
		}
		return out
	}
	para1, para2 := nonBlank(d1), nonBlank(d2)
	if len(para1) != len(para2) {
		return Score{Note: fmt.Sprintf("%d non-blank paragraphs, expected %d", len(para1), len(para2))}, nil
	}
	if number, ok := c.Options["word_number_split_by_tabstop"]; ok && number != nil {
		index := 0
		if v, ok := c.Options["index"]; ok {
			if index, ok = pyInt(v); !ok {
				return Score{}, fmt.Errorf("TypeError: list indices must be integers, not %s", PyType(v))
			}
		}
		for i, p := range para1 {
			splits := strings.Split(paraText(p), "\t")
			j := index
			if j < 0 {
				j += len(splits)
			}
			if j < 0 || j >= len(splits) {
				return Score{}, fmt.Errorf("IndexError: paragraph %d has %d tab-separated parts, no part %d", i+1, len(splits), index)
			}
			if n := len(pySplit(splits[j])); !PyEqual(int64(n), number) {
				return Score{Note: fmt.Sprintf("paragraph %d has %d words before its tab, not %s", i+1, n, show(number))}, nil
			}
		}
	}
	width, err := d2.textWidth()
	if err != nil {
		return Score{}, err
	}
	kept := func(p *xnode) ([]tabStop, error) {
		ts, err := tabStops(p)
		var out []tabStop
		for _, t := range ts {
			if t.align == "clear" || (t.align == "left" && t.pos == 0) {
				continue
			}
			out = append(out, t)
		}
		return out, err
	}
	minus := 0.0
	for i := range para1 {
		t1, err := kept(para1[i])
		if err != nil {
			return Score{}, err
		}
		t2, err := kept(para2[i])
		if err != nil {
			return Score{}, err
		}
		if len(t1) != len(t2) {
			return Score{Note: fmt.Sprintf("paragraph %d has %d tab stops, expected %d", i+1, len(t1), len(t2))}, nil
		}
		diff := 0.0
		for k := range t1 {
			if t1[k].align != t2[k].align {
				return Score{Note: fmt.Sprintf("paragraph %d's tab stop %d is %s, expected %s", i+1, k+1, t1[k].align, t2[k].align)}, nil
			}
			diff += math.Abs(float64(t1[k].pos - t2[k].pos))
		}
		if width == 0 {
			return Score{}, fmt.Errorf("ZeroDivisionError: the page has no text width")
		}
		minus += diff / float64(width)
	}
	if len(para1) == 0 {
		return Score{}, fmt.Errorf("ZeroDivisionError: no non-blank paragraph")
	}
	s := Score{Value: 1 - minus/float64(len(para1))}
	if s.Value < 1 {
		s.Note = "tab stops at other positions"
	}
	return s, nil
}

// compareSubscriptContains is compare_subscript_contains: some run, paired by
// position in paragraphs paired by position, is subscript in both documents.
func compareSubscriptContains(_ context.Context, c Call) (Score, error) {
	d1, d2, miss, err := twoDocx(c)
	if d1 == nil {
		return miss, err
	}
	sub := func(r *xnode) bool {
		v, _ := wAttr(runProp(r, "vertAlign"), "val")
		return v == "subscript"
	}
	p1, p2 := d1.paragraphs(), d2.paragraphs()
	for i := range min(len(p1), len(p2)) {
		r1, r2 := directRuns(p1[i]), directRuns(p2[i])
		for k := range min(len(r1), len(r2)) {
			if sub(r1[k]) && sub(r2[k]) {
				return Score{Value: 1}, nil
			}
		}
	}
	return Score{Note: "no run subscript in both documents"}, nil
}

// gateDocx is the "if not compare_docx_files(file1, file2): return 0" the
// format metrics start with, then Document(file1): nil (and a note) when the
// metric returns 0 there.
func gateDocx(ctx context.Context, c Call) (*docx, string, error) {
	a, b, ok, err := twoFiles(c)
	if err != nil || !ok {
		return nil, "a document is missing", err
	}
	s, err := compareDocxFiles(ctx, Call{Result: a, Expected: b})
	if err != nil {
		return nil, "", err
	}
	if s.Value == 0 {
		return nil, "the documents' texts differ: " + s.Note, nil
	}
	d, err := openDocx(a)
	if err != nil {
		return nil, "the document does not open", nil
	}
	return d, "", nil
}

// fontPt is the run's font size (w:sz, in half points) in points; ok is
// false when unset.
func fontPt(r *xnode) (pt float64, ok bool, err error) {
	v, ok := wAttr(runProp(r, "sz"), "val")
	if !ok {
		return 0, false, nil
	}
	var emu int64
	if h, err := strconv.ParseInt(v, 10, 64); err == nil {
		emu = int64(float64(h) / 2 * 12700)
	} else if emu, err = emuOf(v); err != nil { // a number with a unit
		return 0, false, err
	}
	return float64(emu) / 12700, true, nil
}

// checkItalicFontSize14 is check_italic_font_size_14: the documents' texts
// match (compare_docx_files) and every run of the result's body paragraphs
// that is italic (its own w:i) has its own size of 14 pt.
func checkItalicFontSize14(ctx context.Context, c Call) (Score, error) {
	d, note, err := gateDocx(ctx, c)
	if d == nil {
		return Score{Note: note}, err
	}
	for i, p := range d.paragraphs() {
		for _, r := range directRuns(p) {
			it, err := onOff(runProp(r, "i"))
			if err != nil {
				return Score{}, err
			}
			if it == nil || !*it {
				continue
			}
			pt, ok, err := fontPt(r)
			if err != nil {
				return Score{}, err
			}
			if !ok || pt != 14 {
				return Score{Note: fmt.Sprintf("an italic run of paragraph %d is not 14 pt", i+1)}, nil
			}
		}
	}
	return Score{Value: 1}, nil
}

// evaluateStrikeThroughLastParagraph is
// evaluate_strike_through_last_paragraph: the documents' texts match and
// every run of the result's last body paragraph is struck through (its own
// w:strike); a document without paragraphs is Python's IndexError.
func evaluateStrikeThroughLastParagraph(ctx context.Context, c Call) (Score, error) {
	d, note, err := gateDocx(ctx, c)
	if d == nil {
		return Score{Note: note}, err
	}
	ps := d.paragraphs()
	if len(ps) == 0 {
		return Score{}, fmt.Errorf("IndexError: the document has no paragraph")
	}
	for _, r := range directRuns(ps[len(ps)-1]) {
		st, err := onOff(runProp(r, "strike"))
		if err != nil {
			return Score{}, err
		}
		if st == nil || !*st {
			return Score{Note: "a run of the last paragraph is not struck through"}, nil
		}
	}
	return Score{Value: 1}, nil
}

const (
	odfOfficeNS = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
	odfStyleNS  = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
	odfTextNS   = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
	odfFoNS     = "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
)

// checkHighlightedWords is check_highlighted_words: the documents' texts
// match (compare_docx_files: for an odt pair, their text:p texts), and no
// text:span of the result names an automatic style with a child whose
// fo:background-color is "#ffff00" (1; 0 when one does). As odfpy's load,
// the spans and automatic styles are those of content.xml and styles.xml
// together; a matching style's child that cannot have a background colour
// (not a *-properties element) is odfpy's AttributeError.
func checkHighlightedWords(ctx context.Context, c Call) (Score, error) {
	a, b, ok, err := twoFiles(c)
	if err != nil || !ok {
		return Score{Note: "a document is missing"}, err
	}
	s, err := compareDocxFiles(ctx, Call{Result: a, Expected: b})
	if err != nil || s.Value == 0 {
		return Score{Note: "the documents' texts differ: " + s.Note}, err
	}
	z, err := openZip(a)
	if err != nil {
		return Score{}, err
	}
	var styles []*xnode
	var spans []*xnode
	for _, name := range []string{"content.xml", "styles.xml"} {
		data, err := zipPart(z, name)
		if err != nil {
			if name == "styles.xml" {
				continue
			}
			return Score{}, err
		}
		doc, err := parseXML(data)
		if err != nil {
			return Score{}, fmt.Errorf("%s: %s: %w", a, name, err)
		}
		if as := childNS(doc, odfOfficeNS, "automatic-styles"); as != nil {
			for i := range as.Nodes {
				styles = append(styles, &as.Nodes[i])
			}
		}
		for _, sp := range doc.all("span") {
			if sp.XMLName.Space == odfTextNS {
				spans = append(spans, sp)
			}
		}
	}
	for _, sp := range spans {
		name, _ := sp.attrNS(odfTextNS, "style-name")
		if name == "" {
			continue
		}
		for _, st := range styles {
			if n, _ := st.attrNS(odfStyleNS, "name"); n != name {
				continue
			}
			for i := range st.Nodes {
				prop := &st.Nodes[i]
				if !strings.HasSuffix(prop.XMLName.Local, "-properties") {
					return Score{}, fmt.Errorf("AttributeError: attribute backgroundcolor is not allowed in element <%s>", prop.XMLName.Local)
				}
				if v, _ := prop.attrNS(odfFoNS, "background-color"); v == "#ffff00" {
					return Score{Note: fmt.Sprintf("%q is highlighted in yellow", sp.Text)}, nil
				}
			}
		}
	}
	return Score{Value: 1}, nil
}

// xmlMentions is whether the element's XML (names, attributes, text, its
// children's) contains s, as "s in run._element.xml".
func xmlMentions(n *xnode, s string) bool {
	if strings.Contains(n.XMLName.Local, s) || strings.Contains(n.Text, s) {
		return true
	}
	for _, a := range n.Attrs {
		if strings.Contains(a.Name.Local, s) || strings.Contains(a.Value, s) {
			return true
		}
	}
	for i := range n.Nodes {
		if xmlMentions(&n.Nodes[i], s) {
			return true
		}
	}
	return false
}

// compareContainsImage is compare_contains_image: no run (paired by position
// in paragraphs paired by position) holds a picture (a:graphicData) in one
// document and not the other.
func compareContainsImage(_ context.Context, c Call) (Score, error) {
	d1, d2, miss, err := twoDocx(c)
	if d1 == nil {
		return miss, err
	}
	p1, p2 := d1.paragraphs(), d2.paragraphs()
	for i := range min(len(p1), len(p2)) {
		r1, r2 := directRuns(p1[i]), directRuns(p2[i])
		for k := range min(len(r1), len(r2)) {
			if xmlMentions(r1[k], "graphicData") != xmlMentions(r2[k], "graphicData") {
				return Score{Note: fmt.Sprintf("run %d of paragraph %d holds a picture in one document only", k+1, i+1)}, nil
			}
		}
	}
	return Score{Value: 1}, nil
}

// srgbToLab is scikit-image's rgb2lab of an sRGB colour with components in
// 0..1: linearised, to CIE XYZ (sRGB primaries), to L*a*b* against the D65
// white of the 2° observer.
func srgbToLab(rgb [3]float64) [3]float64 {
	var lin [3]float64
	for i, v := range rgb {
		if v > 0.04045 {
			lin[i] = math.Pow((v+0.055)/1.055, 2.4)
		} else {
			lin[i] = v / 12.92
		}
	}
	m := [3][3]float64{
		{0.412453, 0.357580, 0.180423},
		{0.212671, 0.715160, 0.072169},
		{0.019334, 0.119193, 0.950227},
	}
	white := [3]float64{0.95047, 1, 1.08883}
	var f [3]float64
	for i := range 3 {
		t := (m[i][0]*lin[0] + m[i][1]*lin[1] + m[i][2]*lin[2]) / white[i]
		if t > 0.008856 {
			f[i] = math.Cbrt(t)
		} else {
			f[i] = 7.787*t + 16.0/116
		}
	}
	return [3]float64{116*f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])}
}

// ciede2000 is the CIEDE2000 colour difference of two L*a*b* colours with
// unit weights (kL = kC = kH = 1), computed as scikit-image's
// deltaE_ciede2000.
func ciede2000(lab1, lab2 [3]float64) float64 {
	l1, a1, b1 := lab1[0], lab1[1], lab1[2]
	l2, a2, b2 := lab2[0], lab2[1], lab2[2]
	cbar := 0.5 * (math.Hypot(a1, b1) + math.Hypot(a2, b2))
	c7 := math.Pow(cbar, 7)
	g := 0.5 * (1 - math.Sqrt(c7/(c7+math.Pow(25, 7))))
	polar := func(x, y float64) (float64, float64) {
		h := math.Atan2(y, x)
		if h < 0 {
			h += 2 * math.Pi
		}
		return math.Hypot(x, y), h
	}
	c1, h1 := polar(a1*(1+g), b1)
	c2, h2 := polar(a2*(1+g), b2)
	lbar := 0.5 * (l1 + l2)
	tmp := (lbar - 50) * (lbar - 50)
	sl := 1 + 0.015*tmp/math.Sqrt(20+tmp)
	lTerm := (l2 - l1) / sl
	cbar = 0.5 * (c1 + c2)
	sc := 1 + 0.045*cbar
	cTerm := (c2 - c1) / sc
	hDiff, hSum, cc := h2-h1, h1+h2, c1*c2
	dh := hDiff
	if hDiff > math.Pi {
		dh -= 2 * math.Pi
	} else if hDiff < -math.Pi {
		dh += 2 * math.Pi
	}
	if cc == 0 {
		dh = 0
	}
	dhTerm := 2 * math.Sqrt(cc) * math.Sin(dh/2)
	hbar := hSum
	if cc != 0 && math.Abs(hDiff) > math.Pi {
		if hSum < 2*math.Pi {
			hbar += 2 * math.Pi
		} else {
			hbar -= 2 * math.Pi
		}
	}
	if cc == 0 {
		hbar *= 2
	}
	hbar *= 0.5
	rad := math.Pi / 180
	t := 1 - 0.17*math.Cos(hbar-30*rad) + 0.24*math.Cos(2*hbar) + 0.32*math.Cos(3*hbar+6*rad) - 0.20*math.Cos(4*hbar-63*rad)
	sh := 1 + 0.015*cbar*t
	hTerm := dhTerm / sh
	c7 = math.Pow(cbar, 7)
	rc := 2 * math.Sqrt(c7/(c7+math.Pow(25, 7)))
	dtheta := 30 * rad * math.Exp(-math.Pow((hbar/rad-275)/25, 2))
	rTerm := -math.Sin(2*dtheta) * rc * cTerm * hTerm
	return math.Sqrt(math.Max(lTerm*lTerm+cTerm*cTerm+hTerm*hTerm+rTerm, 0))
}

// rgbDistance is evaluate_colored_words_in_tables' colour difference of two
// 8-bit RGB colours.
func rgbDistance(x, y [3]uint8) float64 {
	f := func(c [3]uint8) [3]float64 {
		return [3]float64{float64(c[0]) / 255, float64(c[1]) / 255, float64(c[2]) / 255}
	}
	return ciede2000(srgbToLab(f(x)), srgbToLab(f(y)))
}

// runText is python-docx's Run.text: its w:t texts, tabs as "\t", breaks as
// "\n" (the same rules as paraText).
func runText(r *xnode) string {
	return paraText(&xnode{Nodes: []xnode{*r}})
}

// runRGB is the run's Font.color.rgb: its own w:color's w:val, ok false when
// it has none or it is "auto".
func runRGB(r *xnode) (rgb [3]uint8, ok bool, err error) {
	col := runProp(r, "color")
	if col == nil {
		return rgb, false, nil
	}
	v, has := wAttr(col, "val")
	if !has {
		return rgb, false, fmt.Errorf("InvalidXmlError: w:color without w:val")
	}
	if v == "auto" {
		return rgb, false, nil
	}
	n, err := strconv.ParseUint(v, 16, 32)
	if err != nil || len(v) != 6 {
		return rgb, false, fmt.Errorf("ValueError: w:color %q is not an RGB colour", v)
	}
	return [3]uint8{uint8(n >> 16), uint8(n >> 8), uint8(n)}, true, nil
}

// tableCells are a table's cells row by row as python-docx's row.cells gives
// them, less repeats: a cell spanning columns once, and a cell continuing a
// vertical merge not at all (python-docx gives the cell above in its place).
func tableCells(tbl *xnode) []*xnode {
	var out []*xnode
	for i := range tbl.Nodes {
		tr := &tbl.Nodes[i]
		if tr.XMLName.Local != "tr" || tr.XMLName.Space != wNS {
			continue
		}
		for j := range tr.Nodes {
			tc := &tr.Nodes[j]
			if tc.XMLName.Local != "tc" || tc.XMLName.Space != wNS {
				continue
			}
			if vm := childNS(childNS(tc, wNS, "tcPr"), wNS, "vMerge"); vm != nil {
				if v, _ := wAttr(vm, "val"); v != "restart" {
					continue
				}
			}
			out = append(out, tc)
		}
	}
	return out
}

// evaluateColoredWordsInTables is evaluate_colored_words_in_tables: the
// documents' texts match (compare_docx_files), and in the result's body
// tables every run with text is red (words starting with a vowel) or blue
// (the others): its colour within threshold (default 3.5) of pure red or
// blue in CIEDE2000. A run with no colour of its own is Python's TypeError
// (rgb None), as OSWorld's.
func evaluateColoredWordsInTables(ctx context.Context, c Call) (Score, error) {
	d, note, err := gateDocx(ctx, c)
	if d == nil {
		return Score{Note: note}, err
	}
	threshold := 3.5
	if v, ok := c.Options["threshold"]; ok {
		if threshold, ok = PyNumber(v); !ok {
			return Score{}, fmt.Errorf("TypeError: threshold %s is not a number", show(v))
		}
	}
	for i := range d.body.Nodes {
		tbl := &d.body.Nodes[i]
		if tbl.XMLName.Local != "tbl" || tbl.XMLName.Space != wNS {
			continue
		}
		for _, tc := range tableCells(tbl) {
			for k := range tc.Nodes {
				p := &tc.Nodes[k]
				if p.XMLName.Local != "p" || p.XMLName.Space != wNS {
					continue
				}
				for _, r := range directRuns(p) {
					word := runText(r)
					if word == "" {
						continue
					}
					rgb, ok, err := runRGB(r)
					if err != nil {
						return Score{}, err
					}
					if !ok {
						return Score{}, fmt.Errorf("TypeError: the run %q has no colour (None is not subscriptable)", word)
					}
					first := PyLower(string([]rune(word)[:1]))
					want, name := [3]uint8{0, 0, 255}, "blue"
					if len(first) == 1 && strings.Contains("aeiou", first) {
						want, name = [3]uint8{255, 0, 0}, "red"
					}
					if dist := rgbDistance(rgb, want); dist > threshold {
						return Score{Note: fmt.Sprintf("%q is #%02X%02X%02X, %.2f from %s", word, rgb[0], rgb[1], rgb[2], dist, name)}, nil
					}
				}
			}
		}
	}
	return Score{Value: 1}, nil
}

const oorNS = "http://openoffice.org/2001/registry"

// findDefaultFont is find_default_font: Writer's default font in a
// LibreOffice registrymodifications.xcu (the text of the last value of a
// prop oor:name="Standard" under an item
// oor:path="/org.openoffice.Office.Writer/DefaultFont") equals
// rules["font_name"]. A file that does not parse has no default font (0).
func findDefaultFont(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	want, err := key(r, "font_name")
	if err != nil {
		return Score{}, err
	}
	p, ok, err := pathArg(c.Result, "result")
	if err != nil || !ok {
		return Score{Note: "no configuration file"}, err
	}
	var got any
	if data, err := smallfile.Read(p, maxTextFile); err == nil {
		if root, err := parseXML(data); err == nil {
			var items []*xnode
			for i := range root.Nodes {
				items = append(items, root.Nodes[i].all("item")...)
			}
			for _, it := range items {
				if it.XMLName.Space != "" {
					continue
				}
				if v, _ := it.attrNS(oorNS, "path"); v != "/org.openoffice.Office.Writer/DefaultFont" {
					continue
				}
				var props []*xnode
				for i := range it.Nodes {
					props = append(props, it.Nodes[i].all("prop")...)
				}
				for _, pr := range props {
					if n, _ := pr.attrNS(oorNS, "name"); pr.XMLName.Space != "" || n != "Standard" {
						continue
					}
					for i := range pr.Nodes {
						if v := &pr.Nodes[i]; v.XMLName.Local == "value" && v.XMLName.Space == "" {
							got = nil
							if v.Text != "" {
								got = v.Text
							}
						}
					}
				}
			}
		}
	}
	if !PyEqual(got, want) {
		return Score{Note: fmt.Sprintf("the default font is %s", show(got))}, nil
	}
	return Score{Value: 1}, nil
}

// maxDocxImages bounds the pictures compare_docx_images decodes.
const maxDocxImages = 1000

// docxImageParts are the parts word/document.xml's relationships of an
// image type point to, in the order of its .rels file (python-docx's
// doc.part.rels); an external one is an error, as python-docx's target_part.
func docxImageParts(z *zip.Reader) ([]string, error) {
	data, err := zipPart(z, "word/_rels/document.xml.rels")
	if err != nil {
		return nil, nil
	}
	doc, err := parseXML(data)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range doc.all("Relationship") {
		typ, _ := r.attr("Type")
		if !strings.Contains(typ, "image") {
			continue
		}
		t, _ := r.attr("Target")
		if m, _ := r.attr("TargetMode"); m == "External" {
			return nil, fmt.Errorf("ValueError: the picture %q is external (no target part)", t)
		}
		if strings.HasPrefix(t, "/") {
			out = append(out, strings.TrimPrefix(t, "/"))
		} else {
			out = append(out, path.Join("word", t))
		}
	}
	if len(out) > maxDocxImages {
		return nil, fmt.Errorf("%d pictures, more than the %d allowed", len(out), maxDocxImages)
	}
	return out, nil
}

// partPixels decodes a picture part as Pillow's Image.open(...).tobytes().
func partPixels(z *zip.Reader, name string) ([]byte, error) {
	data, err := zipPart(z, name)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "docx-image-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	img, err := openImage(f.Name())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return img.pix, nil
}

// compareDocxImages is compare_docx_images: the documents have as many
// pictures (image relationships of the main document part), pairwise of the
// same decoded pixels. A document whose picture part is missing does not
// open (0); a picture Pillow cannot identify is an error, as OSWorld's.
func compareDocxImages(_ context.Context, c Call) (Score, error) {
	a, b, ok, err := twoFiles(c)
	if err != nil || !ok {
		return Score{Note: "a document is missing"}, err
	}
	var parts [2][]string
	var zs [2]*zip.Reader
	for i, p := range []string{a, b} {
		if _, err := openDocx(p); err != nil {
			return Score{Note: "a document does not open"}, nil
		}
		z, err := openZip(p)
		if err != nil {
			return Score{Note: "a document does not open"}, nil
		}
		ps, err := docxImageParts(z)
		if err != nil {
			return Score{}, err
		}
		for _, name := range ps {
			if f, err := z.Open(name); err != nil {
				return Score{Note: fmt.Sprintf("%s: no part %s: the document does not open", p, name)}, nil
			} else {
				f.Close()
			}
		}
		parts[i], zs[i] = ps, z
	}
	if len(parts[0]) != len(parts[1]) {
		return Score{Note: fmt.Sprintf("%d pictures, expected %d", len(parts[0]), len(parts[1]))}, nil
	}
	for k := range parts[0] {
		x, err := partPixels(zs[0], parts[0][k])
		if err != nil {
			return Score{}, err
		}
		y, err := partPixels(zs[1], parts[1][k])
		if err != nil {
			return Score{}, err
		}
		if !bytes.Equal(x, y) {
			return Score{Note: fmt.Sprintf("picture %d differs", k+1)}, nil
		}
	}
	return Score{Value: 1}, nil
}

// rapidfuzzRatio is rapidfuzz's fuzz.ratio(a, b) / 100 with its rounding:
// 100·(1 - InDel distance / total length), then divided by 100.
func rapidfuzzRatio(a, b string) (float64, error) {
	r, err := fuzzRatio(a, b)
	if err != nil {
		return 0, err
	}
	total := len([]rune(a)) + len([]rune(b))
	if total == 0 {
		return 1, nil
	}
	common := math.Round(r * float64(total)) // twice the longest common subsequence
	sim := 1 - (float64(total)-common)/float64(total)
	return sim * 100 / 100, nil
}

// compareReferences is compare_references: the paragraphs after the first
// one that is exactly reference_indicator (default "References"), blank ones
// left out, pair up with the expected document's; their mean fuzzy ratio r,
// at reference_base_result (default 0.5) or more, scores (r - base) / (1 -
// base), below it 0. Neither document with the heading is 1, one of them 0.
func compareReferences(_ context.Context, c Call) (Score, error) {
	a, b, ok, err := twoFiles(c)
	if err != nil || !ok {
		return Score{Note: "a document is missing"}, err
	}
	var indicator any = "References"
	if v, ok := c.Options["reference_indicator"]; ok {
		indicator = v
	}
	base := 0.5
	if v, ok := c.Options["reference_base_result"]; ok {
		if base, ok = PyNumber(v); !ok {
			return Score{}, fmt.Errorf("TypeError: reference_base_result %s is not a number", show(v))
		}
	}
	if !strings.HasSuffix(a, ".docx") || !strings.HasSuffix(b, ".docx") {
		return Score{Note: "unsupported file types or mismatch between file types"}, nil
	}
	d1, err1 := openDocx(a)
	d2, err2 := openDocx(b)
	if err1 != nil || err2 != nil {
		return Score{Note: "a document does not open"}, nil
	}
	refs := func(ps []string) ([]string, bool) {
		for i, p := range ps {
			if PyEqual(p, indicator) {
				var out []string
				for _, q := range ps[i+1:] {
					if pyStrip(q) != "" {
						out = append(out, q)
					}
				}
				return out, true
			}
		}
		return nil, false
	}
	ref1, ok1 := refs(d1.texts())
	ref2, ok2 := refs(d2.texts())
	if !ok1 && !ok2 {
		return Score{Value: 1}, nil
	}
	if !ok1 || !ok2 {
		return Score{Note: fmt.Sprintf("only one document has a %s paragraph", show(indicator))}, nil
	}
	if len(ref1) != len(ref2) {
		return Score{Note: fmt.Sprintf("%d references, expected %d", len(ref1), len(ref2))}, nil
	}
	if len(ref1) == 0 {
		return Score{}, fmt.Errorf("ZeroDivisionError: no reference after the heading")
	}
	total := 0.0
	for i := range ref1 {
		r, err := rapidfuzzRatio(ref1[i], ref2[i])
		if err != nil {
			return Score{}, err
		}
		total += r
	}
	result := total / float64(len(ref1))
	if result < base {
		return Score{Note: fmt.Sprintf("the references match %.3f, below %v", result, base)}, nil
	}
	if base == 1 {
		return Score{}, fmt.Errorf("ZeroDivisionError: reference_base_result is 1")
	}
	s := Score{Value: (result - base) / (1 - base)}
	if s.Value < 1 {
		s.Note = fmt.Sprintf("the references match %.3f", result)
	}
	return s, nil
}
