package checks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
)

// slidesMetrics are OSWorld's metrics/slides.py.
func slidesMetrics() map[string]Metric {
	opts := make([]string, len(pptxOptions))
	for i, o := range pptxOptions {
		opts[i] = o.name
	}
	return map[string]Metric{
		"compare_pptx_files":               {Fn: comparePptxFiles, Options: opts, Kwargs: true},
		"check_slide_orientation_Portrait": {Fn: checkSlideOrientationPortrait},
		"check_image_stretch_and_center":   {Fn: checkImageStretchAndCenter},
		"check_transition":                 {Fn: checkTransition, Check: rulesWith("slide_idx", "transition_type")},
		"check_page_number_colors":         {Fn: checkPageNumberColors, Check: rulesWith("color")},
		"check_presenter_console_disable":  {Fn: checkPresenterConsoleDisable},
		"check_auto_saving_time":           {Fn: checkAutoSavingTime, Check: rulesWith("minutes")},
	}
}

// pptxOptions are compare_pptx_files' options with their defaults.
var pptxOptions = []struct {
	name string
	def  bool
}{
	{"examine_number_of_slides", true}, {"examine_shape", true}, {"examine_text", true},
	{"examine_indent", true}, {"examine_font_name", true}, {"examine_font_size", true},
	{"examine_font_bold", true}, {"examine_font_italic", true}, {"examine_color_rgb", true},
	{"examine_font_underline", true}, {"examine_strike_through", true}, {"examine_alignment", true},
	{"examine_title_bottom_position", false}, {"examine_table_bottom_position", false},
	{"examine_right_position", false}, {"examine_top_position", false},
	{"examine_shape_for_shift_size", false}, {"examine_image_size", false},
	{"examine_modify_height", false}, {"examine_bullets", true},
	{"examine_background_color", true}, {"examine_note", true},
}

// pptxCompare is one compare_pptx_files call: the options resolved, and
// the note of the first difference.
type pptxCompare struct {
	on   map[string]bool
	note string
}

func (pc *pptxCompare) differ(format string, args ...any) bool {
	pc.note = fmt.Sprintf(format, args...)
	return true
}

// openPptxArg opens a getter's value as python-pptx's Presentation(value):
// None is python-pptx's own empty template (no slides).
func openPptxArg(v any, what string) (*pptx, error) {
	p, ok, err := pathArg(v, what)
	if err != nil {
		return nil, err
	}
	if !ok {
		return emptyPresentation(), nil
	}
	return openPptx(p)
}

// comparePptxFiles is OSWorld's compare_pptx_files: the presentations match
// slide by slide, shape by shape (top-level shapes, paired in order),
// paragraph by paragraph and run by run on what the options examine. It
// compares what python-pptx shows: the slide backgrounds compare equal
// whatever they are (the Python reads them through a call that resets the
// fill), and the bullets of a whole slide are compared at each run.
func comparePptxFiles(_ context.Context, c Call) (Score, error) {
	if c.Expected == nil {
		return Score{}, errNoExpected
	}
	p1, err := openPptxArg(c.Result, "result")
	if err != nil {
		return Score{}, err
	}
	p2, err := openPptxArg(c.Expected, "expected")
	if err != nil {
		return Score{}, err
	}
	pc := &pptxCompare{on: map[string]bool{}}
	for _, o := range pptxOptions {
		pc.on[o.name] = optBool(c.Options, o.name, o.def)
	}
	differ, err := pc.presentations(p1, p2)
	if err != nil || differ {
		return Score{Note: pc.note}, err
	}
	return Score{Value: 1}, nil
}

func (pc *pptxCompare) presentations(p1, p2 *pptx) (bool, error) {
	if len(p1.slides) != len(p2.slides) && pc.on["examine_number_of_slides"] {
		return pc.differ("%d slides, expected %d", len(p1.slides), len(p2.slides)), nil
	}
	for i := range min(len(p1.slides), len(p2.slides)) {
		s1, s2 := p1.slides[i], p2.slides[i]
		n1, err := s1.notesText()
		if err != nil {
			return false, err
		}
		n2, err := s2.notesText()
		if err != nil {
			return false, err
		}
		if pyStrip(n1) != pyStrip(n2) && pc.on["examine_note"] {
			return pc.differ("slide %d: notes %q, expected %q", i+1, pyStrip(n1), pyStrip(n2)), nil
		}
		for j := range min(len(s1.shapes), len(s2.shapes)) {
			d, err := pc.shapes(i+1, s1.shapes[j], s2.shapes[j])
			if err != nil || d {
				if d {
					pc.note = fmt.Sprintf("slide %d, shape %d: %s", i+1, j+1, pc.note)
				}
				return d, err
			}
		}
	}
	return false, nil
}

// shapes compares one pair of shapes of slide number slide (from 1), in the
// order the Python does.
func (pc *pptxCompare) shapes(slide int, a, b *pshape) (bool, error) {
	for _, pos := range []func(int, *pshape, *pshape) (bool, error){
		pc.titleBottom, pc.tableBottom, pc.rightPosition, pc.topPosition, pc.shiftSize,
	} {
		if d, err := pos(slide, a, b); err != nil || d {
			return d, err
		}
	}
	same, err := sameBox(a, b)
	if err != nil {
		return false, err
	}
	if !same && pc.on["examine_shape"] {
		return pc.differ("position or size differs"), nil
	}
	for _, pos := range []func(int, *pshape, *pshape) (bool, error){pc.imageSize, pc.modifyHeight} {
		if d, err := pos(slide, a, b); err != nil || d {
			return d, err
		}
	}
	if !a.hasText() || !b.hasText() {
		return false, nil
	}
	if t1, t2 := a.text(), b.text(); pyStrip(t1) != pyStrip(t2) && pc.on["examine_text"] {
		return pc.differ("text %q, expected %q", pyStrip(t1), pyStrip(t2)), nil
	}
	ps1, ps2 := a.paragraphs(), b.paragraphs()
	for k := range min(len(ps1), len(ps2)) {
		if d, err := pc.paragraphs(a.s, b.s, ps1[k], ps2[k]); err != nil || d {
			return d, err
		}
	}
	return false, nil
}

// boxDiffers is the "elif shape1.left != shape2.left or ..." branch the
// position options share.
func (pc *pptxCompare) boxDiffers(a, b *pshape) (bool, error) {
	same, err := sameBox(a, b)
	if err != nil || same {
		return false, err
	}
	return pc.differ("position or size differs"), nil
}

func (pc *pptxCompare) titleBottom(_ int, a, b *pshape) (bool, error) {
	if !pc.on["examine_title_bottom_position"] {
		return false, nil
	}
	if a.hasText() && b.hasText() && a.text() == b.text() {
		if a.text() != "Product Comparison" {
			return false, nil
		}
		t1, err := a.dim(dimTop)
		if err != nil {
			return false, err
		}
		t2, err := b.dim(dimTop)
		if err != nil {
			return false, err
		}
		if c, err := cmpEMU(t1, t2); err != nil || c <= 0 {
			return err == nil && pc.differ("the title is not below where it was"), err
		}
		if c, err := cmpEMU(t1, emu(3600000)); err != nil || c < 0 {
			return err == nil && pc.differ("the title is not at the bottom"), err
		}
		return false, nil
	}
	return pc.boxDiffers(a, b)
}

func emu(v int64) *int64 { return &v }

// typeIs is "shape.shape_type == want".
func typeIs(sh *pshape, want int) (bool, error) {
	t, ok, err := sh.shapeType()
	return ok && t == want, err
}

// bothType is "shape1.shape_type == want and shape2.shape_type == want".
func bothType(a, b *pshape, want int) (bool, error) {
	ok, err := typeIs(a, want)
	if err != nil || !ok {
		return false, err
	}
	return typeIs(b, want)
}

func (pc *pptxCompare) tableBottom(slide int, a, b *pshape) (bool, error) {
	if !pc.on["examine_table_bottom_position"] {
		return false, nil
	}
	tables := false
	if slide == 3 {
		var err error
		if tables, err = bothType(a, b, 19); err != nil {
			return false, err
		}
	}
	if !tables {
		return pc.boxDiffers(a, b)
	}
	t1, t2, err := tops(a, b)
	if err != nil {
		return false, err
	}
	if c, err := cmpEMU(t1, t2); err != nil || c <= 0 {
		return err == nil && pc.differ("the table is not below where it was"), err
	}
	if c, err := cmpEMU(t1, emu(3600000)); err != nil || c < 0 {
		return err == nil && pc.differ("the table is not at the bottom"), err
	}
	return false, nil
}

func tops(a, b *pshape) (*int64, *int64, error) {
	t1, err := a.dim(dimTop)
	if err != nil {
		return nil, nil, err
	}
	t2, err := b.dim(dimTop)
	return t1, t2, err
}

func (pc *pptxCompare) rightPosition(slide int, a, b *pshape) (bool, error) {
	if !pc.on["examine_right_position"] || slide != 2 || a.hasText() || b.hasText() {
		return false, nil
	}
	l1, err := a.dim(dimLeft)
	if err != nil {
		return false, err
	}
	l2, err := b.dim(dimLeft)
	if err != nil {
		return false, err
	}
	if c, err := cmpEMU(l1, l2); err != nil || c <= 0 {
		return err == nil && pc.differ("not moved right"), err
	}
	if c, err := cmpEMU(l1, emu(4320000)); err != nil || c < 0 {
		return err == nil && pc.differ("not on the right half"), err
	}
	return false, nil
}

func (pc *pptxCompare) topPosition(slide int, a, b *pshape) (bool, error) {
	if !pc.on["examine_top_position"] {
		return false, nil
	}
	pics := false
	if slide == 2 {
		var err error
		if pics, err = bothType(a, b, 13); err != nil {
			return false, err
		}
	}
	if !pics {
		return pc.boxDiffers(a, b)
	}
	t1, t2, err := tops(a, b)
	if err != nil {
		return false, err
	}
	if c, err := cmpEMU(t1, t2); err != nil || c >= 0 {
		return err == nil && pc.differ("the picture is not above where it was"), err
	}
	if c, err := cmpEMU(t1, emu(1980000)); err != nil || c > 0 {
		return err == nil && pc.differ("the picture is not at the top"), err
	}
	return false, nil
}

func (pc *pptxCompare) shiftSize(_ int, a, b *pshape) (bool, error) {
	if !pc.on["examine_shape_for_shift_size"] {
		return false, nil
	}
	same, err := sameBox(a, b)
	if err != nil || same {
		return false, err
	}
	if a.hasText() && b.hasText() && a.text() == b.text() && a.text() == "Elaborate on what you want to discuss." {
		return false, nil
	}
	return pc.differ("position or size differs"), nil
}

func (pc *pptxCompare) imageSize(_ int, a, b *pshape) (bool, error) {
	if !pc.on["examine_image_size"] {
		return false, nil
	}
	pics, err := bothType(a, b, 13)
	if err != nil {
		return false, err
	}
	if !pics {
		return pc.boxDiffers(a, b)
	}
	for _, d := range []int{dimWidth, dimHeight} {
		x, err := a.dim(d)
		if err != nil {
			return false, err
		}
		y, err := b.dim(d)
		if err != nil {
			return false, err
		}
		if !eqEMU(x, y) {
			return pc.differ("the picture's size differs"), nil
		}
	}
	return false, nil
}

func (pc *pptxCompare) modifyHeight(_ int, a, b *pshape) (bool, error) {
	if !pc.on["examine_modify_height"] {
		return false, nil
	}
	cond := !a.hasText() && !b.hasText()
	if !cond {
		var err error
		if cond, err = bothType(a, b, 5); err != nil {
			return false, err
		}
	}
	if !cond {
		return pc.boxDiffers(a, b)
	}
	h1, err := a.dim(dimHeight)
	if err != nil {
		return false, err
	}
	h2, err := b.dim(dimHeight)
	if err != nil {
		return false, err
	}
	if !eqEMU(h1, h2) {
		return pc.differ("height differs"), nil
	}
	return false, nil
}

// paragraphs compares one pair of paragraphs of two shapes' text frames.
func (pc *pptxCompare) paragraphs(s1, s2 *pslide, p1, p2 *xnode) (bool, error) {
	pp1, pp2 := s1.pPr(p1), s2.pPr(p2)
	a1, _ := pp1.attrOrEmpty("algn")
	a2, _ := pp2.attrOrEmpty("algn")
	if a1 != a2 && pc.on["examine_alignment"] {
		return pc.differ("alignment %q, expected %q", a1, a2), nil
	}
	if t1, t2 := pptParaText(p1), pptParaText(p2); t1 != t2 && pc.on["examine_text"] {
		return pc.differ("paragraph %q, expected %q", t1, t2), nil
	}
	l1, err := paraLevel(pp1)
	if err != nil {
		return false, err
	}
	l2, err := paraLevel(pp2)
	if err != nil {
		return false, err
	}
	if l1 != l2 && pc.on["examine_indent"] {
		return pc.differ("indent level %d, expected %d", l1, l2), nil
	}
	r1, r2 := runs(p1), runs(p2)
	for k := range min(len(r1), len(r2)) {
		if d, err := pc.runs(s1, s2, r1[k], r2[k]); err != nil || d {
			return d, err
		}
	}
	return false, nil
}

func paraLevel(pp *xnode) (int, error) {
	v, ok := pp.attrOrEmpty("lvl")
	if !ok {
		return 0, nil
	}
	l, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || l < 0 || l > 8 {
		return 0, fmt.Errorf("ValueError: paragraph level %q", v)
	}
	return l, nil
}

// runFont is what compare_pptx_files reads of a run's font.
type runFont struct {
	name, size, bold, italic, underline, strike string // pyNone when absent
	rgb                                         string // "" when the colour has no .rgb
}

func readRunFont(r *xnode) (runFont, error) {
	rPr := childNS(r, nsDML, "rPr")
	attr := func(k string) string {
		if v, ok := rPr.attrOrEmpty(k); ok {
			return v
		}
		return pyNone
	}
	f := runFont{name: pyNone, size: attr("sz"), bold: attr("b"), italic: attr("i"), strike: "noStrike"}
	if v, ok := rPr.attrOrEmpty("strike"); ok {
		f.strike = v
	}
	if l := childNS(rPr, nsDML, "latin"); l != nil {
		if v, ok := l.attr("typeface"); ok {
			f.name = v
		}
	}
	var err error
	for _, p := range []*string{&f.bold, &f.italic} {
		if *p, err = xsdBool(*p); err != nil {
			return f, err
		}
	}
	switch u := attr("u"); u {
	case pyNone:
		f.underline = pyNone
	case "none":
		f.underline = "False"
	case "sng":
		f.underline = "True"
	default:
		f.underline = "MSO_UNDERLINE." + u
	}
	if f.size != pyNone {
		n, err := strconv.Atoi(strings.TrimSpace(f.size))
		if err != nil {
			return f, fmt.Errorf("ValueError: font size %q", f.size)
		}
		f.size = strconv.Itoa(n)
	}
	if fill := childNS(rPr, nsDML, "solidFill"); fill != nil {
		if c := childNS(fill, nsDML, "srgbClr"); c != nil {
			v, _ := c.attr("val")
			f.rgb = "#" + strings.ToUpper(v)
		}
	}
	return f, nil
}

func xsdBool(v string) (string, error) {
	switch v {
	case pyNone:
		return v, nil
	case "1", "true":
		return "True", nil
	case "0", "false":
		return "False", nil
	}
	return "", fmt.Errorf("ValueError: boolean %q", v)
}

// runs compares one pair of runs: their fonts, then the two slides' bullets.
func (pc *pptxCompare) runs(s1, s2 *pslide, r1, r2 *xnode) (bool, error) {
	f1, err := readRunFont(r1)
	if err != nil {
		return false, err
	}
	f2, err := readRunFont(r2)
	if err != nil {
		return false, err
	}
	for _, c := range []struct {
		what, opt string
		x, y      string
	}{
		{"font", "examine_font_name", f1.name, f2.name},
		{"font size", "examine_font_size", f1.size, f2.size},
		{"bold", "examine_font_bold", f1.bold, f2.bold},
		{"italic", "examine_font_italic", f1.italic, f2.italic},
	} {
		if c.x != c.y && pc.on[c.opt] {
			return pc.differ("%s %s, expected %s", c.what, pyShow(c.x), pyShow(c.y)), nil
		}
	}
	if f1.rgb != "" && f2.rgb != "" && f1.rgb != f2.rgb && pc.on["examine_color_rgb"] {
		return pc.differ("colour %s, expected %s", f1.rgb, f2.rgb), nil
	}
	if f1.underline != f2.underline && pc.on["examine_font_underline"] {
		return pc.differ("underline %s, expected %s", pyShow(f1.underline), pyShow(f2.underline)), nil
	}
	if f1.strike != f2.strike && pc.on["examine_strike_through"] {
		return pc.differ("strike %s, expected %s", f1.strike, f2.strike), nil
	}
	if !pc.on["examine_bullets"] {
		return false, nil
	}
	b1, err := s1.bullets()
	if err != nil {
		return false, err
	}
	b2, err := s2.bullets()
	if err != nil {
		return false, err
	}
	if !slices.Equal(b1, b2) {
		return pc.differ("the slide's bullets differ"), nil
	}
	return false, nil
}

func pyShow(v string) string {
	if v == pyNone {
		return "None"
	}
	return v
}

// checkSlideOrientationPortrait is check_slide_orientation_Portrait: the
// slides are narrower than tall.
func checkSlideOrientationPortrait(_ context.Context, c Call) (Score, error) {
	p, err := openPptxArg(c.Result, "result")
	if err != nil {
		return Score{}, err
	}
	w, h := p.slideWidth(), p.slideHeight()
	if cmp, err := cmpEMU(w, h); err != nil || cmp >= 0 {
		return Score{Note: "the slides are not in portrait orientation"}, err
	}
	return Score{Value: 1}, nil
}

// checkImageStretchAndCenter is check_image_stretch_and_center(modified,
// original): the first picture of the original's first slide is, on the
// modified first slide (found by its bytes), stretched to the original's
// slide size and centred, each within half an inch.
func checkImageStretchAndCenter(_ context.Context, c Call) (Score, error) {
	if c.Expected == nil {
		return Score{}, errNoExpected
	}
	mod, err := openPptxArg(c.Result, "result")
	if err != nil {
		return Score{}, err
	}
	orig, err := openPptxArg(c.Expected, "expected")
	if err != nil {
		return Score{}, err
	}
	if len(orig.slides) == 0 || len(mod.slides) == 0 {
		return Score{}, errors.New("IndexError: slide index out of range")
	}
	origPics, err := orig.slides[0].pictures()
	if err != nil {
		return Score{}, err
	}
	if len(origPics) == 0 {
		return Score{}, errors.New("IndexError: list index out of range (no picture on the original's first slide)")
	}
	want, err := origPics[0].imageBlob()
	if err != nil {
		return Score{}, err
	}
	modPics, err := mod.slides[0].pictures()
	if err != nil {
		return Score{}, err
	}
	var found *pshape
	for _, p := range modPics {
		b, err := p.imageBlob()
		if err != nil {
			return Score{}, err
		}
		if bytes.Equal(b, want) {
			found = p
		}
	}
	if found == nil {
		return Score{}, errors.New("UnboundLocalError: the original's picture is not on the modified first slide")
	}
	var d [4]*int64
	for i := range d {
		if d[i], err = found.dim(i); err != nil {
			return Score{}, err
		}
	}
	sw, sh := orig.slideWidth(), orig.slideHeight()
	if d[dimLeft] == nil || d[dimTop] == nil || d[dimWidth] == nil || d[dimHeight] == nil || sw == nil || sh == nil {
		return Score{}, errors.New("TypeError: unsupported operand type(s) for -: 'NoneType' and 'int'")
	}
	const half = 457200 // Inches(0.5)
	w, h, l, t := float64(*d[dimWidth]), float64(*d[dimHeight]), float64(*d[dimLeft]), float64(*d[dimTop])
	W, H := float64(*sw), float64(*sh)
	if math.Abs(w-W) > half || math.Abs(h-H) > half || math.Abs(l-(W-w)/2) > half || math.Abs(t-(H-h)/2) > half {
		return Score{Note: fmt.Sprintf("the picture is %.0fx%.0f at (%.0f, %.0f) EMU on a %.0fx%.0f slide", w, h, l, t, W, H)}, nil
	}
	return Score{Value: 1}, nil
}

// slidePart reads ppt/slides/slide{idx+1}.xml by its file name, as the
// Python does (not in presentation order); nil when the part is missing.
func slidePart(p string, name string) (*xnode, error) {
	z, err := openZip(p)
	if err != nil {
		return nil, err
	}
	data, err := zipPart(z, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseXML(data)
}

// checkTransition is check_transition: slide slide_idx's p:transition holds
// an element named transition_type.
func checkTransition(_ context.Context, c Call) (Score, error) {
	p, ok, err := pathArg(c.Result, "result")
	if err != nil || !ok {
		return Score{Note: "no presentation"}, err
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	idx, ok := pyInt(r["slide_idx"])
	if !ok {
		return Score{}, errors.New("KeyError: slide_idx")
	}
	typ, ok := r["transition_type"].(string)
	if !ok {
		return Score{}, errors.New("KeyError: transition_type")
	}
	root, err := slidePart(p, fmt.Sprintf("ppt/slides/slide%d.xml", idx+1))
	if err != nil || root == nil {
		return Score{Note: fmt.Sprintf("no slide %d", idx+1)}, err
	}
	for _, tr := range root.all("transition") {
		if tr.XMLName.Space != nsPML {
			continue
		}
		for _, x := range tr.all(typ) {
			if x != tr && x.XMLName.Space == nsPML {
				return Score{Value: 1}, nil
			}
		}
		return Score{Note: fmt.Sprintf("slide %d's transition is not %s", idx+1, typ)}, nil
	}
	return Score{Note: fmt.Sprintf("slide %d has no transition", idx+1)}, nil
}

// checkPageNumberColors is check_page_number_colors: the second-last
// a:srgbClr under an a:solidFill of the first slide master, read as the
// Python slices it ("#RRGGBB"-style offsets), is of the rule's colour.
func checkPageNumberColors(_ context.Context, c Call) (Score, error) {
	p, ok, err := pathArg(c.Result, "result")
	if err != nil || !ok {
		return Score{Note: "no presentation"}, err
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	color, err := key(r, "color")
	if err != nil {
		return Score{}, err
	}
	root, err := slidePart(p, "ppt/slideMasters/slideMaster1.xml")
	if err != nil {
		return Score{}, err
	}
	if root == nil {
		return Score{}, errors.New("KeyError: no ppt/slideMasters/slideMaster1.xml")
	}
	var vals []*string
	for _, f := range root.all("solidFill") {
		if f.XMLName.Space != nsDML {
			continue
		}
		for _, c := range f.all("srgbClr") {
			if c.XMLName.Space == nsDML {
				v, ok := c.attr("val")
				if ok {
					vals = append(vals, &v)
				} else {
					vals = append(vals, nil)
				}
			}
		}
	}
	if len(vals) < 2 {
		return Score{}, errors.New("IndexError: list index out of range (fewer than two colours in the master)")
	}
	v := vals[len(vals)-2]
	if v == nil {
		return Score{Note: "the page number colour has no value"}, nil
	}
	rs := []rune(*v)
	part := func(a, b int) (int, error) {
		s := ""
		if a < len(rs) {
			s = string(rs[a:min(b, len(rs))])
		}
		n, err := strconv.ParseInt(s, 16, 64)
		if err != nil {
			return 0, fmt.Errorf("ValueError: invalid literal for int() with base 16: %q", s)
		}
		return int(n), nil
	}
	red, err := part(1, 3)
	if err != nil {
		return Score{}, err
	}
	green, err := part(3, 5)
	if err != nil {
		return Score{}, err
	}
	blue, err := part(5, 7)
	if err != nil {
		return Score{}, err
	}
	const th = 50
	ok = map[any]bool{
		"red":   red > green+th && red > blue+th,
		"blue":  blue > green+th && blue > red+th,
		"green": green > red+th && green > blue+th,
		"black": red < th && green < th && blue < th,
	}[color]
	if _, known := map[any]bool{"red": true, "blue": true, "green": true, "black": true}[color]; !known {
		ok = true // the Python checks only these four
	}
	return verdict(ok, "the page number colour %s is not %v", *v, color)
}

// registryValue finds, in a LibreOffice registrymodifications.xcu, the
// value of prop name under the item whose oor:path is itemPath; ok is false
// when there is none.
func registryValue(root *xnode, itemPath, name string) (string, bool) {
	const oor = "http://openoffice.org/2001/registry"
	for _, it := range root.all("item") {
		if p, _ := it.attrNS(oor, "path"); p != itemPath {
			continue
		}
		for _, pr := range it.all("prop") {
			if n, _ := pr.attrNS(oor, "name"); n == name {
				if v := pr.child("value"); v != nil {
					return v.Text, true
				}
				return "", true
			}
		}
	}
	return "", false
}

// checkPresenterConsoleDisable is check_presenter_console_disable: Impress's
// EnablePresenterScreen is false in the user's settings (any error scores
// 0, as the Python catches everything).
func checkPresenterConsoleDisable(_ context.Context, c Call) (Score, error) {
	p, ok := c.Result.(string)
	if !ok {
		return Score{Note: "no settings file"}, nil
	}
	data, err := readLimited(p, maxTextFile)
	if err != nil {
		return Score{Note: err.Error()}, nil
	}
	root, err := parseXML(data)
	if err != nil {
		return Score{Note: err.Error()}, nil
	}
	v, ok := registryValue(root, "/org.openoffice.Office.Impress/Misc/Start", "EnablePresenterScreen")
	return verdict(ok && strings.ToLower(v) == "false", "the presenter console is not disabled")
}

// checkAutoSavingTime is check_auto_saving_time: LibreOffice's
// AutoSaveTimeIntervall is rules["minutes"].
func checkAutoSavingTime(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	minutes, err := key(r, "minutes")
	if err != nil {
		return Score{}, err
	}
	p, ok := c.Result.(string)
	if !ok {
		return Score{}, fmt.Errorf("TypeError: want a settings file, got %s", PyType(c.Result))
	}
	data, err := readLimited(p, maxTextFile)
	if err != nil {
		return Score{Note: "the metric gives None: " + err.Error()}, nil
	}
	root, err := parseXML(data)
	if err != nil {
		return Score{Note: "the metric gives None: " + err.Error()}, nil
	}
	v, ok := registryValue(root, "/org.openoffice.Office.Common/Save/Document", "AutoSaveTimeIntervall")
	if !ok {
		return Score{Note: "no autosave interval is set"}, nil
	}
	n, err := strconv.Atoi(pyStrip(v))
	if err != nil {
		return Score{}, fmt.Errorf("ValueError: invalid literal for int(): %q", v)
	}
	return verdict(PyEqual(int64(n), minutes), "the autosave interval is %d minutes", n)
}
