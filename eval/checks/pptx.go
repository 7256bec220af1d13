package checks

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"deskpilot/internal/smallfile"
)

// This file reads PowerPoint files as python-pptx (1.0) presents them to
// OSWorld's metrics: slides in presentation order, each slide's top-level
// shapes, placeholders inheriting their position from the layout and master,
// text frames, paragraphs and runs. python-pptx changes the XML it reads as
// it is read (asking a shape for its text adds a text body, asking a
// paragraph for its alignment adds paragraph properties), and one metric
// reads that changed XML back; the slide records those additions so the
// bullet list is what Python would see.

// XML namespaces of PresentationML and DrawingML.
const (
	nsPML  = "http://schemas.openxmlformats.org/presentationml/2006/main"
	nsDML  = "http://schemas.openxmlformats.org/drawingml/2006/main"
	relTyp = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
)

// pptx is an open presentation.
type pptx struct {
	z       *zip.Reader
	parts   map[string]*xnode // parsed parts by name
	slides  []*pslide
	sldSize *xnode // p:sldSz, nil when absent
}

// pslide is one slide, layout or master.
type pslide struct {
	p      *pptx
	name   string // the part's name, "ppt/slides/slide1.xml"
	root   *xnode
	rels   map[string]rel
	shapes []*pshape
	// python-pptx's additions while a metric reads the slide.
	addedBody map[*xnode]*xnode // sp without txBody -> the empty a:p added
	addedPPr  map[*xnode]bool   // a:p given an empty a:pPr
	gen       int               // counts those additions
	// bullets' last result and the gen it was computed at (-1: none).
	bulletsGen int
	bulletsOut []bullet
	bulletsErr error
}

type rel struct{ typ, target string }

// pshape is a top-level shape of a slide: sp, pic, graphicFrame, grpSp,
// cxnSp or contentPart.
type pshape struct {
	s  *pslide
	el *xnode
}

// emptyPresentation is python-pptx's Presentation(None) as far as OSWorld's
// metrics look: no slides.
func emptyPresentation() *pptx { return &pptx{parts: map[string]*xnode{}} }

// openPptx opens a .pptx file.
func openPptx(p string) (*pptx, error) {
	data, err := smallfile.Read(p, maxDocFile)
	if err != nil {
		return nil, err
	}
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	pr := &pptx{z: z, parts: map[string]*xnode{}}
	if err := pr.readSlides(); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return pr, nil
}

func (p *pptx) part(name string) (*xnode, error) {
	if n, ok := p.parts[name]; ok {
		return n, nil
	}
	if p.z == nil {
		return nil, fmt.Errorf("no part %s", name)
	}
	data, err := zipPart(p.z, name)
	if err != nil {
		return nil, err
	}
	n, err := parseXML(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p.parts[name] = n
	return n, nil
}

// relsOf reads the relationships of part name (targets resolved to part names).
func (p *pptx) relsOf(name string) (map[string]rel, error) {
	dir, file := path.Split(name)
	data, err := zipPart(p.z, dir+"_rels/"+file+".rels")
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]rel{}, nil
	}
	if err != nil {
		return nil, err
	}
	doc, err := parseXML(data)
	if err != nil {
		return nil, err
	}
	out := map[string]rel{}
	for _, r := range doc.all("Relationship") {
		id, _ := r.attr("Id")
		typ, _ := r.attr("Type")
		target, _ := r.attr("Target")
		if mode, _ := r.attr("TargetMode"); mode != "External" {
			if strings.HasPrefix(target, "/") {
				target = strings.TrimPrefix(target, "/")
			} else {
				target = path.Join(dir, target)
			}
		}
		out[id] = rel{typ: strings.TrimPrefix(typ, relTyp), target: target}
	}
	return out, nil
}

func (p *pptx) readSlides() error {
	pres, err := p.part("ppt/presentation.xml")
	if err != nil {
		return err
	}
	rels, err := p.relsOf("ppt/presentation.xml")
	if err != nil {
		return err
	}
	p.sldSize = pres.child("sldSz")
	if lst := pres.child("sldIdLst"); lst != nil {
		for _, id := range lst.all("sldId") {
			rid, _ := id.attrNS(relNS, "id")
			r, ok := rels[rid]
			if !ok {
				return fmt.Errorf("slide relationship %q missing", rid)
			}
			s, err := p.slide(r.target)
			if err != nil {
				return err
			}
			p.slides = append(p.slides, s)
		}
	}
	return nil
}

// slide reads a slide, layout or master part.
func (p *pptx) slide(name string) (*pslide, error) {
	root, err := p.part(name)
	if err != nil {
		return nil, err
	}
	rels, err := p.relsOf(name)
	if err != nil {
		return nil, err
	}
	s := &pslide{p: p, name: name, root: root, rels: rels,
		addedBody: map[*xnode]*xnode{}, addedPPr: map[*xnode]bool{}, bulletsGen: -1}
	if csld := root.child("cSld"); csld != nil {
		if tree := csld.child("spTree"); tree != nil {
			for i := range tree.Nodes {
				switch n := &tree.Nodes[i]; n.XMLName.Local {
				case "sp", "pic", "graphicFrame", "grpSp", "cxnSp", "contentPart":
					if n.XMLName.Space == nsPML {
						s.shapes = append(s.shapes, &pshape{s: s, el: n})
					}
				}
			}
		}
	}
	return s, nil
}

// related reads the part a relationship of type typ points to.
func (s *pslide) related(typ string) (*pslide, error) {
	for _, r := range s.rels {
		if r.typ == typ {
			return s.p.slide(r.target)
		}
	}
	return nil, nil
}

// slideWidth and slideHeight are Presentation.slide_width/height in EMU
// (nil when the presentation gives none).
func (p *pptx) slideWidth() *int64  { return emuAttr(p.sldSize, "cx") }
func (p *pptx) slideHeight() *int64 { return emuAttr(p.sldSize, "cy") }

func emuAttr(n *xnode, name string) *int64 {
	if n == nil {
		return nil
	}
	v, ok := n.attr(name)
	if !ok {
		return nil
	}
	i, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return nil
	}
	return &i
}

// childNS is the first child named local in namespace ns.
func childNS(n *xnode, ns, local string) *xnode {
	if n == nil {
		return nil
	}
	for i := range n.Nodes {
		if c := &n.Nodes[i]; c.XMLName.Local == local && c.XMLName.Space == ns {
			return c
		}
	}
	return nil
}

// kind is the shape's element name: sp, pic, graphicFrame, grpSp, cxnSp,
// contentPart.
func (sh *pshape) kind() string { return sh.el.XMLName.Local }

// nv is the shape's non-visual properties (p:nvSpPr, p:nvPicPr, ...).
func (sh *pshape) nv() *xnode {
	if len(sh.el.Nodes) == 0 {
		return nil
	}
	return &sh.el.Nodes[0]
}

// ph is the shape's p:ph element (./*[1]/p:nvPr/p:ph), nil when it is not a
// placeholder.
func (sh *pshape) ph() *xnode { return childNS(childNS(sh.nv(), nsPML, "nvPr"), nsPML, "ph") }

func phIdx(ph *xnode) int {
	v, ok := ph.attr("idx")
	if !ok {
		return 0
	}
	i, _ := strconv.Atoi(strings.TrimSpace(v))
	return i
}

func phType(ph *xnode) string {
	if v, ok := ph.attr("type"); ok {
		return v
	}
	return "obj"
}

// hasText is Python's hasattr(shape, "text"): true for an sp (autoshape,
// text box, placeholder). As python-pptx does, asking for the text gives an
// sp without a text body one holding a single empty paragraph.
func (sh *pshape) hasText() bool {
	if sh.kind() != "sp" {
		return false
	}
	sh.paragraphs()
	return true
}

// txBody is the sp's p:txBody, nil when it has none.
func (sh *pshape) txBody() *xnode { return childNS(sh.el, nsPML, "txBody") }

// paragraphs are the text frame's a:p elements.
func (sh *pshape) paragraphs() []*xnode {
	body := sh.txBody()
	if body == nil {
		p, ok := sh.s.addedBody[sh.el]
		if !ok {
			p = &xnode{XMLName: xml.Name{Space: nsDML, Local: "p"}}
			sh.s.addedBody[sh.el] = p
			sh.s.gen++
		}
		return []*xnode{p}
	}
	var out []*xnode
	for i := range body.Nodes {
		if c := &body.Nodes[i]; c.XMLName.Local == "p" && c.XMLName.Space == nsDML {
			out = append(out, c)
		}
	}
	return out
}

// text is Shape.text: the paragraphs' text joined by "\n".
func (sh *pshape) text() string {
	ps := sh.paragraphs()
	texts := make([]string, len(ps))
	for i, p := range ps {
		texts[i] = pptParaText(p)
	}
	return strings.Join(texts, "\n")
}

// pptParaText is _Paragraph.text: runs' and fields' text, "\v" per line break.
func pptParaText(p *xnode) string {
	var b strings.Builder
	for i := range p.Nodes {
		c := &p.Nodes[i]
		if c.XMLName.Space != nsDML {
			continue
		}
		switch c.XMLName.Local {
		case "r", "fld":
			if t := childNS(c, nsDML, "t"); t != nil {
				b.WriteString(t.Text)
			}
		case "br":
			b.WriteByte('\v')
		}
	}
	return b.String()
}

// runs are the paragraph's a:r children.
func runs(p *xnode) []*xnode {
	var out []*xnode
	for i := range p.Nodes {
		if c := &p.Nodes[i]; c.XMLName.Local == "r" && c.XMLName.Space == nsDML {
			out = append(out, c)
		}
	}
	return out
}

// pPr reads a paragraph's properties as python-pptx's alignment and level
// do, which add an empty a:pPr when there is none.
func (s *pslide) pPr(p *xnode) *xnode {
	pp := childNS(p, nsDML, "pPr")
	if pp == nil && !s.addedPPr[p] {
		s.addedPPr[p] = true
		s.gen++
	}
	return pp
}

// shapeType is python-pptx's shape.shape_type (MSO_SHAPE_TYPE's value; ok
// false for None), or the error it raises.
func (sh *pshape) shapeType() (v int, ok bool, err error) {
	switch sh.kind() {
	case "sp":
		if sh.ph() != nil {
			return 14, true, nil
		}
		spPr := childNS(sh.el, nsPML, "spPr")
		if childNS(spPr, nsDML, "custGeom") != nil {
			return 5, true, nil
		}
		txBox := false
		if c := childNS(sh.nv(), nsPML, "cNvSpPr"); c != nil {
			v, _ := c.attr("txBox")
			txBox = v == "1" || v == "true"
		}
		if childNS(spPr, nsDML, "prstGeom") != nil && !txBox {
			return 1, true, nil
		}
		if txBox {
			return 17, true, nil
		}
		return 0, false, errors.New("NotImplementedError: Shape instance of unrecognized shape type")
	case "pic":
		if childNS(childNS(sh.nv(), nsPML, "nvPr"), nsDML, "videoFile") != nil {
			return 16, true, nil
		}
		return 13, true, nil
	case "graphicFrame":
		gd := childNS(childNS(sh.el, nsDML, "graphic"), nsDML, "graphicData")
		uri, _ := gd.attrOrEmpty("uri")
		switch uri {
		case "http://schemas.openxmlformats.org/drawingml/2006/chart":
			return 3, true, nil
		case "http://schemas.openxmlformats.org/drawingml/2006/table":
			return 19, true, nil
		case "http://schemas.openxmlformats.org/presentationml/2006/ole":
			if ole := childNS(gd, nsPML, "oleObj"); ole != nil && childNS(ole, nsPML, "embed") != nil {
				return 7, true, nil
			}
			return 10, true, nil
		}
		return 0, false, nil
	case "grpSp":
		return 6, true, nil
	case "cxnSp":
		return 9, true, nil
	}
	return 0, false, errors.New("NotImplementedError: BaseShape does not implement .shape_type")
}

// attrOrEmpty is attr on a node that may be nil.
func (n *xnode) attrOrEmpty(local string) (string, bool) {
	if n == nil {
		return "", false
	}
	return n.attr(local)
}

// The four dimensions of a shape, as python-pptx names them.
const (
	dimLeft = iota
	dimTop
	dimWidth
	dimHeight
)

// dim is shape.left/top/width/height in EMU (nil for None): the shape's own
// transform, else, for a placeholder sp or pic, the layout placeholder's
// (and that one's master placeholder's).
func (sh *pshape) dim(which int) (*int64, error) {
	if v := sh.ownDim(which); v != nil {
		return v, nil
	}
	ph := sh.ph()
	if ph == nil || (sh.kind() != "sp" && sh.kind() != "pic") {
		return nil, nil
	}
	layout, err := sh.s.related("slideLayout")
	if err != nil || layout == nil {
		return nil, err
	}
	idx := phIdx(ph)
	for _, lp := range layout.shapes {
		if lph := lp.ph(); lph != nil && phIdx(lph) == idx {
			return lp.layoutDim(which)
		}
	}
	return nil, nil
}

// layoutBase maps a layout placeholder's type to the master placeholder type
// it inherits from (python-pptx's LayoutPlaceholder._base_placeholder).
var layoutBase = map[string]string{
	"body": "body", "chart": "body", "clipArt": "body", "ctrTitle": "title", "dgm": "body",
	"dt": "dt", "ftr": "ftr", "media": "body", "obj": "body", "pic": "body", "sldNum": "sldNum",
	"subTitle": "body", "tbl": "body", "title": "title",
}

func (sh *pshape) layoutDim(which int) (*int64, error) {
	if v := sh.ownDim(which); v != nil || sh.kind() != "sp" {
		return v, nil
	}
	t := phType(sh.ph())
	base, ok := layoutBase[t]
	if !ok {
		return nil, fmt.Errorf("KeyError: layout placeholder type %q", t)
	}
	master, err := sh.s.related("slideMaster")
	if err != nil || master == nil {
		return nil, err
	}
	for _, mp := range master.shapes {
		if mph := mp.ph(); mph != nil && phType(mph) == base {
			return mp.ownDim(which), nil
		}
	}
	return nil, nil
}

// ownDim is the dimension the shape's own transform gives.
func (sh *pshape) ownDim(which int) *int64 {
	var xfrm *xnode
	switch sh.kind() {
	case "graphicFrame":
		xfrm = childNS(sh.el, nsPML, "xfrm")
	case "grpSp":
		xfrm = childNS(childNS(sh.el, nsPML, "grpSpPr"), nsDML, "xfrm")
	default:
		xfrm = childNS(childNS(sh.el, nsPML, "spPr"), nsDML, "xfrm")
	}
	switch which {
	case dimLeft:
		return emuAttr(childNS(xfrm, nsDML, "off"), "x")
	case dimTop:
		return emuAttr(childNS(xfrm, nsDML, "off"), "y")
	case dimWidth:
		return emuAttr(childNS(xfrm, nsDML, "ext"), "cx")
	}
	return emuAttr(childNS(xfrm, nsDML, "ext"), "cy")
}

// sameBox is Python's "shape1.left != shape2.left or shape1.top !=
// shape2.top or ..." negated: false at the first dimension that differs.
func sameBox(a, b *pshape) (bool, error) {
	for d := dimLeft; d <= dimHeight; d++ {
		x, err := a.dim(d)
		if err != nil {
			return false, err
		}
		y, err := b.dim(d)
		if err != nil {
			return false, err
		}
		if !eqEMU(x, y) {
			return false, nil
		}
	}
	return true, nil
}

func eqEMU(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// cmpEMU is Python's ordering of two lengths; None raises the TypeError
// Python 3 raises.
func cmpEMU(a, b *int64) (int, error) {
	if a == nil || b == nil {
		return 0, errors.New("TypeError: '<' not supported between instances of 'NoneType' and 'int'")
	}
	switch {
	case *a < *b:
		return -1, nil
	case *a > *b:
		return 1, nil
	}
	return 0, nil
}

// notesText is slide.notes_slide.notes_text_frame.text: the notes slide's
// body placeholder's text, "" for a slide without notes (python-pptx makes
// an empty notes slide then).
func (s *pslide) notesText() (string, error) {
	notes, err := s.related("notesSlide")
	if err != nil || notes == nil {
		return "", err
	}
	for _, sh := range notes.shapes {
		if ph := sh.ph(); ph != nil && sh.kind() == "sp" && phType(ph) == "body" {
			return sh.text(), nil
		}
	}
	return "", errors.New("AttributeError: 'NoneType' object has no attribute 'text' (the notes slide has no body placeholder)")
}

// pictures are the slide's shapes whose shape_type is PICTURE (13).
func (s *pslide) pictures() ([]*pshape, error) {
	var out []*pshape
	for _, sh := range s.shapes {
		ok, err := typeIs(sh, 13)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, sh)
		}
	}
	return out, nil
}

// imageBlob is a picture's image.blob: the bytes of the part its a:blip
// embeds.
func (sh *pshape) imageBlob() ([]byte, error) {
	blip := childNS(childNS(sh.el, nsPML, "blipFill"), nsDML, "blip")
	id, ok := blip.attrNSOrEmpty(relNS, "embed")
	if !ok {
		return nil, errors.New("ValueError: no embedded image on this Picture shape")
	}
	r, ok := sh.s.rels[id]
	if !ok {
		return nil, fmt.Errorf("KeyError: relationship %q", id)
	}
	return zipPart(sh.s.p.z, r.target)
}

func (n *xnode) attrNSOrEmpty(space, local string) (string, bool) {
	if n == nil {
		return "", false
	}
	return n.attrNS(space, local)
}
