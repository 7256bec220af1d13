package checks

import (
	"context"
	"fmt"
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
		"check_left_panel":                 {Fn: checkLeftPanel},
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
