package inspect

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// maxOutput bounds the text a converter builds (bytes); the inspector shows
// far less, this only keeps a hostile file from filling memory.
const maxOutput = 32 << 20

// maxNest bounds how deeply tables (and text boxes) nest before inner ones
// are read as plain text of their container.
const maxNest = 32

// docxConvert reads a Word document: headings (from paragraph styles or
// outline levels), bulleted and numbered lists, tables, links and text boxes,
// in document order. Tracked deletions and compatibility fallbacks are
// skipped.
func docxConvert(ctx context.Context, data []byte) (string, error) {
	p, err := openPackage(data)
	if err != nil {
		return "", err
	}
	body, err := p.part("word/document.xml")
	if err != nil {
		return "", fmt.Errorf("not a Word document: %w", err)
	}
	w := &docxWriter{ctx: ctx, counters: map[string][]int{}}
	if w.styles, err = readDocxStyles(p); err != nil {
		return "", err
	}
	if w.numbering, err = readDocxNumbering(p); err != nil {
		return "", err
	}
	if w.rels, err = p.rels("word/document.xml"); err != nil {
		return "", err
	}
	w.comments = readComments(p)
	return w.run(body)
}

// docxComment is one reviewer's comment.
type docxComment struct{ author, text string }

// readComments maps comment ids to their author and text; a missing or
// broken comments part means no comments.
func readComments(p *pkg) map[string]docxComment {
	data, err := p.part("word/comments.xml")
	if err != nil {
		return nil
	}
	out := map[string]docxComment{}
	d := newDecoder(data)
	var id string
	var cur *docxComment
	var text strings.Builder
	inT := false
	for {
		tok, err := d.Token()
		if err != nil {
			return out
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case !wordNS[t.Name.Space]:
			case t.Name.Local == "comment":
				id, cur = attrOf(t, "id", wordNS), &docxComment{author: attrOf(t, "author", wordNS)}
				text.Reset()
			case t.Name.Local == "p" && cur != nil && text.Len() > 0:
				text.WriteString(" / ")
			case t.Name.Local == "t":
				inT = true
			}
		case xml.EndElement:
			switch {
			case !wordNS[t.Name.Space]:
			case t.Name.Local == "t":
				inT = false
			case t.Name.Local == "comment" && cur != nil:
				cur.text = oneLineText(text.String())
				out[id] = *cur
				cur = nil
			}
		case xml.CharData:
			if inT && cur != nil {
				text.Write(t)
			}
		}
	}
}

// docxStyle is what a paragraph style says about structure.
type docxStyle struct {
	name    string
	outline int // heading level from the outline level, 0 = none
	basedOn string
	numID   string
	ilvl    int
}

var headingName = regexp.MustCompile(`^heading\s*([1-9])$`)

func readDocxStyles(p *pkg) (map[string]docxStyle, error) {
	data, err := p.part("word/styles.xml")
	if errors.Is(err, errNoPart) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type val struct {
		Val string `xml:"val,attr"`
	}
	var doc struct {
		Styles []struct {
			ID      string `xml:"styleId,attr"`
			Name    val    `xml:"name"`
			BasedOn val    `xml:"basedOn"`
			PPr     struct {
				Outline *val `xml:"outlineLvl"`
				NumPr   struct {
					Ilvl  val `xml:"ilvl"`
					NumID val `xml:"numId"`
				} `xml:"numPr"`
			} `xml:"pPr"`
		} `xml:"style"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("word/styles.xml: %w", err)
	}
	out := make(map[string]docxStyle, len(doc.Styles))
	for _, s := range doc.Styles {
		st := docxStyle{name: strings.ToLower(strings.TrimSpace(s.Name.Val)), basedOn: s.BasedOn.Val, numID: s.PPr.NumPr.NumID.Val}
		st.ilvl, _ = strconv.Atoi(s.PPr.NumPr.Ilvl.Val)
		if s.PPr.Outline != nil {
			if n, err := strconv.Atoi(s.PPr.Outline.Val); err == nil && n >= 0 && n < 9 {
				st.outline = n + 1
			}
		}
		out[s.ID] = st
	}
	return out, nil
}

// headingLevel is the heading level (1..6) a style gives, following basedOn.
func headingLevel(styles map[string]docxStyle, id string) int {
	for range 10 {
		s, ok := styles[id]
		if !ok {
			return 0
		}
		if m := headingName.FindStringSubmatch(s.name); m != nil {
			return min(int(m[1][0]-'0'), 6)
		}
		if s.name == "title" {
			return 1
		}
		if s.outline > 0 {
			return min(s.outline, 6)
		}
		id = s.basedOn
	}
	return 0
}

// docxLevel is one level of a numbering definition.
type docxLevel struct {
	format string // "bullet", "decimal", "none", ...
	start  int
}

// readDocxNumbering maps numId -> ilvl -> level.
func readDocxNumbering(p *pkg) (map[string]map[int]docxLevel, error) {
	data, err := p.part("word/numbering.xml")
	if errors.Is(err, errNoPart) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type val struct {
		Val string `xml:"val,attr"`
	}
	var doc struct {
		Abstract []struct {
			ID     string `xml:"abstractNumId,attr"`
			Levels []struct {
				Ilvl   int `xml:"ilvl,attr"`
				Start  val `xml:"start"`
				NumFmt val `xml:"numFmt"`
			} `xml:"lvl"`
		} `xml:"abstractNum"`
		Nums []struct {
			ID       string `xml:"numId,attr"`
			Abstract val    `xml:"abstractNumId"`
		} `xml:"num"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("word/numbering.xml: %w", err)
	}
	abstract := map[string]map[int]docxLevel{}
	for _, a := range doc.Abstract {
		levels := map[int]docxLevel{}
		for _, l := range a.Levels {
			start, err := strconv.Atoi(l.Start.Val)
			if err != nil {
				start = 1
			}
			levels[l.Ilvl] = docxLevel{format: l.NumFmt.Val, start: start}
		}
		abstract[a.ID] = levels
	}
	out := map[string]map[int]docxLevel{}
	for _, n := range doc.Nums {
		out[n.ID] = abstract[n.Abstract.Val]
	}
	return out, nil
}

// docxPara collects one paragraph.
type docxPara struct {
	text    strings.Builder
	style   string
	outline int
	numID   string
	ilvl    int
	inCell  bool // started inside a table cell
}

type docxLink struct {
	start int
	url   string
}

type docxTable struct {
	rows [][]string
	cell *strings.Builder // open cell, nil between cells
	span int
	skip bool // a continued vertical merge: shown empty
}

// docxWriter turns the document's XML token stream into markdown blocks.
type docxWriter struct {
	ctx       context.Context
	styles    map[string]docxStyle
	numbering map[string]map[int]docxLevel
	rels      map[string]rel
	counters  map[string][]int
	comments  map[string]docxComment
	noted     []string // comment ids in the order they are referenced

	out      strings.Builder
	lastList bool // the last block was a list item
	paras    []*docxPara
	tables   []*docxTable
	links    []docxLink
	deep     int // tables nested beyond maxNest
	inText   bool
	inPPr    bool
	inRun    int
	skip     int // depth inside a skipped subtree
}

func (w *docxWriter) para() *docxPara {
	if len(w.paras) == 0 {
		return nil
	}
	return w.paras[len(w.paras)-1]
}

func (w *docxWriter) table() *docxTable {
	if len(w.tables) == 0 {
		return nil
	}
	return w.tables[len(w.tables)-1]
}

func (w *docxWriter) run(body []byte) (string, error) {
	d := newDecoder(body)
	for n := 0; ; n++ {
		if n%4096 == 0 && w.ctx.Err() != nil {
			return "", w.ctx.Err()
		}
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case w.skip > 0:
				w.skip++
			case isFallback(t):
				w.skip = 1
			case mathNS[t.Name.Space] && t.Name.Local == "oMath":
				eq, err := readMath(d, t)
				if err != nil {
					return "", err
				}
				if p := w.para(); p != nil {
					p.text.WriteString(linear(eq))
				}
			case wordNS[t.Name.Space]:
				w.start(t)
			}
		case xml.EndElement:
			switch {
			case w.skip > 0:
				w.skip--
			case wordNS[t.Name.Space]:
				w.end(t.Name.Local)
			}
		case xml.CharData:
			if p := w.para(); w.skip == 0 && w.inText && p != nil {
				p.text.Write(t)
			}
		}
		if w.out.Len() > maxOutput {
			w.out.WriteString("\n\n[The document is too long; the rest was not read.]")
			break
		}
	}
	if len(w.noted) > 0 {
		w.block("Comments:", false)
		var lines []string
		for i, id := range w.noted {
			c := w.comments[id]
			who := c.author
			if who == "" {
				who = "(no author)"
			}
			lines = append(lines, fmt.Sprintf("[^%d]: %s: %s", i+1, who, c.text))
		}
		w.block(strings.Join(lines, "\n"), false)
	}
	return w.out.String(), nil
}

func (w *docxWriter) start(t xml.StartElement) {
	p := w.para()
	val := attrOf(t, "val", wordNS)
	switch t.Name.Local {
	case "p":
		w.paras = append(w.paras, &docxPara{inCell: w.table() != nil && w.table().cell != nil})
	case "pPr":
		w.inPPr = true
	case "pStyle":
		if p != nil && w.inPPr {
			p.style = val
		}
	case "outlineLvl":
		if n, err := strconv.Atoi(val); p != nil && w.inPPr && err == nil && n >= 0 && n < 9 {
			p.outline = n + 1
		}
	case "ilvl":
		if p != nil && w.inPPr {
			p.ilvl, _ = strconv.Atoi(val)
		}
	case "numId":
		if p != nil && w.inPPr {
			p.numID = val
		}
	case "r":
		w.inRun++
	case "t":
		w.inText = true
	case "tab", "br", "cr", "noBreakHyphen":
		if p != nil && w.inRun > 0 && !w.inPPr {
			p.text.WriteString(map[string]string{"tab": "\t", "br": "\n", "cr": "\n", "noBreakHyphen": "-"}[t.Name.Local])
		}
	case "hyperlink":
		if p != nil {
			link := docxLink{start: p.text.Len()}
			if r, ok := w.rels[attrOf(t, "id", relNS)]; ok && r.External {
				link.url = r.Target
			}
			w.links = append(w.links, link)
		}
	case "del", "moveFrom", "instrText", "delText":
		w.skip = 1
	case "commentReference":
		if _, ok := w.comments[attrOf(t, "id", wordNS)]; ok && p != nil && len(w.noted) < 10000 {
			w.noted = append(w.noted, attrOf(t, "id", wordNS))
			fmt.Fprintf(&p.text, "[^%d]", len(w.noted))
		}
	case "tbl", "tr", "tc", "gridSpan", "vMerge":
		w.startTable(t.Name.Local, val)
	}
}

// startTable handles the table elements.
func (w *docxWriter) startTable(local, val string) {
	tb := w.table()
	switch local {
	case "tbl":
		if len(w.tables) >= maxNest {
			w.deep++
			return
		}
		w.tables = append(w.tables, &docxTable{})
	case "tr":
		if tb != nil && w.deep == 0 {
			tb.rows = append(tb.rows, nil)
		}
	case "tc":
		if tb != nil && w.deep == 0 {
			tb.cell, tb.span, tb.skip = &strings.Builder{}, 1, false
		}
	case "gridSpan":
		if n, err := strconv.Atoi(val); tb != nil && tb.cell != nil && err == nil && n > 1 && n < 64 {
			tb.span = n
		}
	case "vMerge":
		if tb != nil && tb.cell != nil && val != "restart" {
			tb.skip = true
		}
	}
}

func (w *docxWriter) end(local string) {
	switch local {
	case "p":
		if len(w.paras) == 0 {
			return
		}
		p := w.paras[len(w.paras)-1]
		w.paras = w.paras[:len(w.paras)-1]
		w.links = w.links[:0]
		w.endPara(p)
	case "pPr":
		w.inPPr = false
	case "r":
		w.inRun = max(w.inRun-1, 0)
	case "t":
		w.inText = false
	case "hyperlink":
		w.endLink()
	case "tc":
		if tb := w.table(); tb != nil && tb.cell != nil && w.deep == 0 && len(tb.rows) > 0 {
			text := strings.TrimSpace(tb.cell.String())
			if tb.skip {
				text = ""
			}
			row := &tb.rows[len(tb.rows)-1]
			*row = append(*row, text)
			for range tb.span - 1 {
				*row = append(*row, "")
			}
			tb.cell = nil
		}
	case "tbl":
		if w.deep > 0 {
			w.deep--
			return
		}
		if len(w.tables) == 0 {
			return
		}
		tb := w.tables[len(w.tables)-1]
		w.tables = w.tables[:len(w.tables)-1]
		w.endTable(tb)
	}
}

// endLink turns the text written since the link started into a markdown link.
func (w *docxWriter) endLink() {
	if len(w.links) == 0 {
		return
	}
	l := w.links[len(w.links)-1]
	w.links = w.links[:len(w.links)-1]
	p := w.para()
	if p == nil || l.url == "" || l.start > p.text.Len() || len(w.links) > 0 {
		return // links cannot nest in markdown: the outer one wins
	}
	all := p.text.String()
	label := all[l.start:]
	if strings.TrimSpace(label) == "" {
		return
	}
	p.text.Reset()
	p.text.WriteString(all[:l.start] + "[" + label + "](" + strings.ReplaceAll(l.url, " ", "%20") + ")")
}

// endPara formats a finished paragraph and adds it to its container.
func (w *docxWriter) endPara(p *docxPara) {
	text := strings.TrimSpace(p.text.String())
	if text == "" {
		return
	}
	list := false
	level := p.outline
	if level == 0 {
		level = headingLevel(w.styles, p.style)
	}
	numID, ilvl := p.numID, p.ilvl
	if numID == "" {
		if s, ok := w.styles[p.style]; ok && s.numID != "" {
			numID, ilvl = s.numID, s.ilvl
		}
	}
	switch {
	case level > 0 && !p.inCell:
		text = strings.Repeat("#", min(level, 6)) + " " + strings.Join(strings.Fields(text), " ")
	case numID != "" && numID != "0":
		text = w.listMarker(numID, min(max(ilvl, 0), 8)) + text
		list = true
	}
	if tb := w.table(); p.inCell && tb != nil && tb.cell != nil {
		if tb.cell.Len() > 0 {
			tb.cell.WriteByte('\n')
		}
		tb.cell.WriteString(text)
		return
	}
	w.block(text, list) // text boxes inside a paragraph come out before it
}

// listMarker is the indented bullet or number for a list paragraph.
func (w *docxWriter) listMarker(numID string, ilvl int) string {
	indent := strings.Repeat("  ", ilvl)
	lvl, ok := w.numbering[numID][ilvl]
	switch {
	case !ok, lvl.format == "bullet", lvl.format == "":
		return indent + "- "
	case lvl.format == "none":
		return indent
	}
	c := w.counters[numID]
	if len(c) < 9 {
		c = make([]int, 9)
		w.counters[numID] = c
	}
	if c[ilvl] == 0 {
		c[ilvl] = lvl.start - 1
	}
	c[ilvl]++
	for i := ilvl + 1; i < len(c); i++ {
		c[i] = 0
	}
	return fmt.Sprintf("%s%d. ", indent, c[ilvl])
}

// endTable renders a finished table into its container.
func (w *docxWriter) endTable(tb *docxTable) {
	var rows [][]string
	for _, r := range tb.rows {
		if len(r) > 0 {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return
	}
	if outer := w.table(); outer != nil && outer.cell != nil {
		for _, r := range rows {
			if outer.cell.Len() > 0 {
				outer.cell.WriteByte('\n')
			}
			outer.cell.WriteString(strings.Join(r, " / "))
		}
		return
	}
	w.block(markdownTable(rows), false)
}

// block appends a block of markdown: list items follow each other on
// consecutive lines, everything else is separated by a blank line.
func (w *docxWriter) block(text string, list bool) {
	if w.out.Len() > 0 {
		if list && w.lastList {
			w.out.WriteByte('\n')
		} else {
			w.out.WriteString("\n\n")
		}
	}
	w.out.WriteString(text)
	w.lastList = list
}
