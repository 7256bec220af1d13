package inspect

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// maxSlides bounds the slides read from one presentation.
const maxSlides = 2000

// pptxConvert reads a PowerPoint presentation: one section per slide in show
// order ("<!-- Slide N of M -->"), the title as a heading, body placeholders
// as bullet lists, text boxes as lines, tables as markdown tables, pictures by
// their description, then the speaker notes.
func pptxConvert(ctx context.Context, data []byte) (string, error) {
	p, err := openPackage(data)
	if err != nil {
		return "", err
	}
	pres, err := p.part("ppt/presentation.xml")
	if err != nil {
		return "", fmt.Errorf("not a PowerPoint presentation: %w", err)
	}
	rels, err := p.rels("ppt/presentation.xml")
	if err != nil {
		return "", err
	}
	slides, err := slideOrder(pres, rels)
	if err != nil {
		return "", err
	}
	if len(slides) == 0 {
		slides = slideParts(p)
	}
	if len(slides) > maxSlides {
		slides = slides[:maxSlides]
	}
	var b strings.Builder
	for i, part := range slides {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		text, err := slideText(p, part)
		if err != nil {
			return "", fmt.Errorf("slide %d: %w", i+1, err)
		}
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "<!-- Slide %d of %d -->\n%s", i+1, len(slides), text)
		if b.Len() > maxOutput {
			b.WriteString("\n\n[The presentation is too long; the rest was not read.]")
			break
		}
	}
	if len(slides) == 0 {
		return "(the presentation has no slides)", nil
	}
	return b.String(), nil
}

// slideOrder lists slide parts in the order of p:sldIdLst.
func slideOrder(pres []byte, rels map[string]rel) ([]string, error) {
	d := newDecoder(pres)
	var out []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("ppt/presentation.xml: %w", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "sldId" && presentationNS[se.Name.Space] {
			if r, ok := rels[attrOf(se, "id", relNS)]; ok && !r.External {
				out = append(out, r.Target)
			}
		}
	}
}

var slideName = regexp.MustCompile(`^ppt/slides/slide(\d+)\.xml$`)

// slideParts lists ppt/slides/slideN.xml by number, for packages without a
// slide list.
func slideParts(p *pkg) []string {
	type numbered struct {
		n    int
		name string
	}
	var found []numbered
	for name := range p.files {
		if m := slideName.FindStringSubmatch(name); m != nil {
			n, _ := strconv.Atoi(m[1])
			found = append(found, numbered{n, name})
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].n < found[j].n })
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.name
	}
	return out
}

// slideText renders one slide and its notes.
func slideText(p *pkg, part string) (string, error) {
	data, err := p.part(part)
	if err != nil {
		return "", err
	}
	shapes, err := readShapes(data)
	if err != nil {
		return "", fmt.Errorf("%s: %w", part, err)
	}
	rels, err := p.rels(part)
	if err != nil {
		return "", err
	}
	var title string
	var blocks []string
	for _, s := range shapes {
		if (s.ph == "title" || s.ph == "ctrTitle") && title == "" {
			title = strings.Join(strings.Fields(s.plain()), " ")
			continue
		}
		if s.chart != "" {
			if t := slideChart(p, rels, s.chart); t != "" {
				blocks = append(blocks, t)
			}
			continue
		}
		if t := s.render(rels); t != "" {
			blocks = append(blocks, t)
		}
	}
	if title != "" {
		blocks = append([]string{"# " + title}, blocks...)
	}
	if notes := notesText(p, rels); notes != "" {
		blocks = append(blocks, "### Notes:\n"+notes)
	}
	return strings.Join(blocks, "\n\n"), nil
}

// notesText is the body text of a slide's notes page, "" when it has none.
func notesText(p *pkg, rels map[string]rel) string {
	for _, r := range rels {
		if r.External || !strings.HasSuffix(r.Type, "/notesSlide") {
			continue
		}
		data, err := p.part(r.Target)
		if err != nil {
			return ""
		}
		shapes, err := readShapes(data)
		if err != nil {
			return ""
		}
		var lines []string
		for _, s := range shapes {
			if s.ph == "body" {
				if t := s.plain(); t != "" {
					lines = append(lines, t)
				}
			}
		}
		return strings.Join(lines, "\n")
	}
	return ""
}

// pptShape is one shape's content.
type pptShape struct {
	ph    string // placeholder type; "obj" for an untyped placeholder; "" for none
	paras []*pptPara
	rows  [][]string // a table
	alt   string     // a picture's description
	embed string     // a picture's relationship id
	chart string     // a chart's relationship id
}

type pptPara struct {
	text     strings.Builder
	level    int
	noBullet bool
}

// plain joins the shape's paragraphs as lines.
func (s *pptShape) plain() string {
	var lines []string
	for _, pp := range s.paras {
		if t := strings.TrimSpace(pp.text.String()); t != "" {
			lines = append(lines, t)
		}
	}
	return strings.Join(lines, "\n")
}

// render is the shape as markdown; title placeholders are handled by the
// caller, footers and slide numbers are dropped.
func (s *pptShape) render(rels map[string]rel) string {
	switch {
	case s.rows != nil:
		return markdownTable(s.rows)
	case s.alt != "" || s.embed != "":
		if s.alt == "" {
			return ""
		}
		target := "image"
		if r, ok := rels[s.embed]; ok {
			target = path.Base(r.Target)
		}
		return fmt.Sprintf("![%s](%s)", strings.Join(strings.Fields(s.alt), " "), target)
	}
	switch s.ph {
	case "dt", "ftr", "hdr", "sldNum", "sldImg":
		return ""
	case "body", "obj":
		var lines []string
		for _, pp := range s.paras {
			t := strings.TrimSpace(pp.text.String())
			if t == "" {
				continue
			}
			indent := strings.Repeat("  ", min(pp.level, 8))
			if pp.noBullet {
				lines = append(lines, indent+strings.ReplaceAll(t, "\n", "\n"+indent))
			} else {
				lines = append(lines, indent+"- "+strings.ReplaceAll(t, "\n", "\n"+indent+"  "))
			}
		}
		return strings.Join(lines, "\n")
	}
	return s.plain()
}

// shapeReader collects shapes from a slide's token stream.
type shapeReader struct {
	shapes []*pptShape // open shapes, innermost last
	done   []pptShape
	rows   *[][]string      // open table
	cell   *strings.Builder // open table cell
	para   *pptPara
	inText bool
	skip   int
}

func (r *shapeReader) shape() *pptShape {
	if len(r.shapes) == 0 {
		return nil
	}
	return r.shapes[len(r.shapes)-1]
}

// readShapes lists the shapes of a slide (or notes page) in document order.
func readShapes(data []byte) ([]pptShape, error) {
	d := newDecoder(data)
	r := &shapeReader{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return r.done, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case r.skip > 0:
				r.skip++
			case isFallback(t):
				r.skip = 1
			default:
				r.start(t)
			}
		case xml.EndElement:
			if r.skip > 0 {
				r.skip--
				continue
			}
			r.end(t)
		case xml.CharData:
			if r.skip == 0 && r.inText && r.para != nil {
				r.para.text.Write(t)
			}
		}
	}
}

func (r *shapeReader) start(t xml.StartElement) {
	s := r.shape()
	switch {
	case presentationNS[t.Name.Space]:
		switch t.Name.Local {
		case "sp", "pic", "graphicFrame", "cxnSp":
			if len(r.shapes) < maxNest {
				r.shapes = append(r.shapes, &pptShape{})
			}
		case "ph":
			if s != nil {
				s.ph = attrOf(t, "type", nil)
				if s.ph == "" {
					s.ph = "obj"
				}
			}
		case "cNvPr":
			if s != nil {
				s.alt = strings.TrimSpace(attrOf(t, "descr", nil))
			}
		}
	case drawingNS[t.Name.Space]:
		r.startDrawing(t, s)
	case chartNS[t.Name.Space] && t.Name.Local == "chart":
		if s != nil {
			s.chart = attrOf(t, "id", relNS)
		}
	}
}

func (r *shapeReader) startDrawing(t xml.StartElement, s *pptShape) {
	switch t.Name.Local {
	case "tbl":
		if s != nil && s.rows == nil {
			s.rows = [][]string{}
			r.rows = &s.rows
		}
	case "tr":
		if r.rows != nil {
			*r.rows = append(*r.rows, nil)
		}
	case "tc":
		if r.rows != nil {
			r.cell = &strings.Builder{}
		}
	case "p":
		switch {
		case r.cell != nil:
			r.para = &pptPara{}
		case s != nil:
			r.para = &pptPara{}
			s.paras = append(s.paras, r.para)
		}
	case "pPr":
		if r.para != nil {
			if n, err := strconv.Atoi(attrOf(t, "lvl", nil)); err == nil && n >= 0 {
				r.para.level = n
			}
		}
	case "buNone":
		if r.para != nil {
			r.para.noBullet = true
		}
	case "t":
		r.inText = true
	case "br":
		if r.para != nil {
			r.para.text.WriteByte('\n')
		}
	case "blip":
		if s != nil {
			s.embed = attrOf(t, "embed", relNS)
		}
	}
}

func (r *shapeReader) end(t xml.EndElement) {
	switch {
	case presentationNS[t.Name.Space]:
		switch t.Name.Local {
		case "sp", "pic", "graphicFrame", "cxnSp":
			if s := r.shape(); s != nil {
				r.shapes = r.shapes[:len(r.shapes)-1]
				if len(r.done) < 100000 {
					r.done = append(r.done, *s)
				}
			}
			r.rows, r.cell, r.para = nil, nil, nil
		}
	case drawingNS[t.Name.Space]:
		switch t.Name.Local {
		case "t":
			r.inText = false
		case "p":
			if r.cell != nil && r.para != nil {
				if r.cell.Len() > 0 {
					r.cell.WriteByte('\n')
				}
				r.cell.WriteString(strings.TrimSpace(r.para.text.String()))
			}
			r.para = nil
		case "tc":
			if r.rows != nil && r.cell != nil && len(*r.rows) > 0 {
				row := &(*r.rows)[len(*r.rows)-1]
				*row = append(*row, strings.TrimSpace(r.cell.String()))
			}
			r.cell = nil
		case "tbl":
			r.rows = nil
		}
	}
}

// slideChart renders the chart a graphic frame refers to; a missing or
// broken chart part says so rather than failing the slide.
func slideChart(p *pkg, rels map[string]rel, id string) string {
	r, ok := rels[id]
	if !ok || r.External {
		return ""
	}
	data, err := p.part(r.Target)
	if err != nil {
		return "[A chart whose data is missing.]"
	}
	text, err := chartText(data)
	if err != nil {
		return "[A chart that cannot be read: " + err.Error() + "]"
	}
	return text
}
