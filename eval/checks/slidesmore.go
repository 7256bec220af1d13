package checks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"

	"deskpilot/internal/smallfile"
)

// This file holds slides.py's metrics other than compare_pptx_files.

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
	vals := masterColors(root)
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
	data, err := smallfile.Read(p, maxTextFile)
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
	data, err := smallfile.Read(p, maxTextFile)
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

// masterColors are the val of every a:srgbClr under an a:solidFill, in
// document order (nil for one without val).
func masterColors(root *xnode) []*string {
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
	return vals
}
