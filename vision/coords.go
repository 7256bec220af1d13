package vision

import (
	"fmt"
	"image"
	"math"
	"strings"
)

// ModelPoint is a point as the model wrote it: pixels of the image it saw
// (CoordPixels) or 0..1000 on both axes (CoordNorm1000). Only a Mapper turns
// it into a ScreenPoint.
type ModelPoint struct{ X, Y float64 }

// ScreenPoint is a point in absolute X root-window pixels (all monitors share
// one root window; a second monitor may start at x=1920).
type ScreenPoint struct{ X, Y int }

// CoordMode says how the model writes coordinates.
type CoordMode string

// The coordinate modes. Each is its own space with its own rounding, taken from
// the reference code of the model family that writes it, so a point lands
// on the pixel that family's own tools would click.
const (
	// CoordPixels: pixels of the (downscaled) image the model saw, origin
	// top-left. The default.
	CoordPixels CoordMode = "pixels"
	// CoordNorm1000: 0..1000 on both axes whatever the image size, origin
	// top-left (UI-TARS, Qwen2-VL style).
	CoordNorm1000 CoordMode = "norm1000"
	// CoordPixelsFloor: pixels of the image the model saw (a smart-resized
	// image, possibly larger than the display), origin top-left, mapped as
	// the UI-TARS-1.5, Qwen2.5-VL and OpenCUA references do: screen x =
	// int(x·W/w), truncated. x runs from 0 to w, the right edge.
	CoordPixelsFloor CoordMode = "pixels-floor"
	// CoordNorm1000Round: 0..1000 on both axes, mapped as UI-TARS 1.0's
	// reference does: screen x = round(W·x/1000), Python's round (half to
	// even).
	CoordNorm1000Round CoordMode = "norm1000-round"
	// CoordNorm999: 0..999 on both axes (a 1000-step grid), mapped as the
	// Qwen3-VL cookbook does: screen x = round(x/999·W), half to even.
	CoordNorm999 CoordMode = "norm999"
	// CoordUnit: fractions 0..1 of the width and height, mapped as Aguvis's
	// reference does: screen x = round(x·W), half to even.
	CoordUnit CoordMode = "unit"
)

// coordModes lists every mode, for ParseCoordMode and its error.
func coordModes() []CoordMode {
	return []CoordMode{CoordPixels, CoordNorm1000, CoordPixelsFloor, CoordNorm1000Round, CoordNorm999, CoordUnit}
}

// ParseCoordMode parses a mode's name: "pixels", "norm1000", "pixels-floor",
// "norm1000-round", "norm999" or "unit" (case and surrounding space ignored);
// "" is CoordPixels.
func ParseCoordMode(s string) (CoordMode, error) {
	m := CoordMode(strings.ToLower(strings.TrimSpace(s)))
	if m == "" {
		return CoordPixels, nil
	}
	names := make([]string, 0, 6)
	for _, k := range coordModes() {
		if m == k {
			return k, nil
		}
		names = append(names, fmt.Sprintf("%q", k))
	}
	return "", fmt.Errorf("parse coordinate mode %q: want one of %s", s, strings.Join(names, ", "))
}

// DefaultMaxSide is the longest side, in pixels, of the image the model sees
// when no other size is configured.
const DefaultMaxSide = 1366

// ScaledSize returns the size of the image the model sees for a w x h frame:
// aspect kept, longest side at most maxSide (maxSide <= 0 means
// DefaultMaxSide), never upscaled, each side at least 1. Non-positive w or h
// give the zero Point.
func ScaledSize(w, h, maxSide int) image.Point {
	if w <= 0 || h <= 0 {
		return image.Point{}
	}
	if maxSide <= 0 {
		maxSide = DefaultMaxSide
	}
	long := max(w, h)
	if long <= maxSide {
		return image.Pt(w, h)
	}
	// Round to nearest with integer maths: (a*b + c/2) / c.
	sw := (w*maxSide + long/2) / long
	sh := (h*maxSide + long/2) / long
	return image.Pt(max(sw, 1), max(sh, 1))
}

// Mapper is the only place model coordinates become screen pixels, and back.
//
// Rounding follows pixel centres. In CoordPixels an integer model coordinate
// names the centre of an image pixel and fractions are allowed: image pixel i
// covers the screen span [i*k, (i+1)*k) with k = Display width / Image width,
// and model x maps to the screen pixel under its centre, floor((x+0.5)*k).
// So x may be anywhere in [-0.5, width-0.5], which is "0..width-1" rounded.
// In CoordNorm1000, 0 is the left edge and 1000 the right edge, so x maps to
// floor(x/1000*width), and 1000 to the last pixel. The other modes follow
// their family's reference (see each CoordMode): CoordPixelsFloor truncates
// x*W/w, the rounding modes round half to even; their far edge (w, 1000,
// 999 or 1) is the last pixel. In every mode a point on the last row or
// column is valid, and ToModel returns the point in model space that maps
// to the middle of the screen pixel's preimage, hence:
//   - ToScreen(ToModel(s)) == s for every s in Display (downscaled or not);
//   - ToModel(ToScreen(p)) is within half a model pixel of p when Image is
//     not larger than Display (within half a screen pixel, 500/width units,
//     in CoordNorm1000; within half a screen pixel in the other modes).
//
// Out-of-range points are a *RangeError, never clamped. The zero Image means
// the image is the display size (no downscale); the zero Mode is CoordPixels.
// A Mapper is a value: safe for concurrent use.
type Mapper struct {
	// Display is the target display in root coordinates, e.g.
	// (1920,0)-(3840,1080) for a second monitor right of a 1920 px one.
	Display image.Rectangle
	// Image is the size of the image the model saw; zero means Display's size.
	Image image.Point
	// Mode is how the model writes coordinates; "" means CoordPixels.
	Mode CoordMode
}

// NewMapper returns the Mapper for a display shown to the model at
// ScaledSize(display size, maxSide) in the given mode ("" is CoordPixels).
func NewMapper(display image.Rectangle, maxSide int, mode CoordMode) Mapper {
	if mode == "" {
		mode = CoordPixels
	}
	return Mapper{
		Display: display,
		Image:   ScaledSize(display.Dx(), display.Dy(), maxSide),
		Mode:    mode,
	}
}

// RangeError reports a point outside the valid range of its coordinate space.
// Min and Max are inclusive and in the same space as X and Y.
type RangeError struct {
	X, Y     float64         // the rejected point, as given
	Min, Max [2]float64      // valid range of x ([0]) and y ([1])
	Mode     CoordMode       // the model's mode; "" for a screen point
	Image    image.Point     // size of the image the model saw
	Display  image.Rectangle // the target display, root coordinates
}

// Error tells the valid range in the point's own coordinate space, so the
// model can correct itself.
func (e *RangeError) Error() string {
	switch e.Mode {
	case "":
		return fmt.Sprintf("screen point (%g, %g) is outside the display %v: x must be within %g..%g and y within %g..%g",
			e.X, e.Y, e.Display, e.Min[0], e.Max[0], e.Min[1], e.Max[1])
	case CoordNorm1000, CoordNorm1000Round, CoordNorm999:
		return fmt.Sprintf("point (%g, %g) is outside the screenshot: x and y must be within 0..%g (%s: (0, 0) is the top-left corner, (%g, %g) the bottom-right)",
			e.X, e.Y, e.Max[0], e.Mode, e.Max[0], e.Max[1])
	case CoordUnit:
		return fmt.Sprintf("point (%g, %g) is outside the screenshot: x and y must be within 0..1 (fractions of the width and height: (0, 0) is the top-left corner, (1, 1) the bottom-right)",
			e.X, e.Y)
	}
	return fmt.Sprintf("point (%g, %g) is outside the screenshot: x must be within %g..%g and y within %g..%g (pixels of the %dx%d screenshot, origin top-left)",
		e.X, e.Y, e.Min[0], e.Max[0], e.Min[1], e.Max[1], e.Image.X, e.Image.Y)
}

func (m Mapper) image() image.Point {
	if m.Image.X <= 0 || m.Image.Y <= 0 {
		return m.Display.Size()
	}
	return m.Image
}

func (m Mapper) mode() CoordMode {
	if m.Mode == "" {
		return CoordPixels
	}
	return m.Mode
}

func (m Mapper) check() error {
	if m.Display.Empty() {
		return fmt.Errorf("mapper: empty display %v", m.Display)
	}
	for _, k := range coordModes() {
		if m.mode() == k {
			return nil
		}
	}
	return fmt.Errorf("mapper: unknown coordinate mode %q", m.Mode)
}

// Extent returns the size of the coordinate space as the model is told it:
// the image size in pixels for CoordPixels and CoordPixelsFloor, 1000 for
// the 0..1000 modes, 999 for CoordNorm999 and 1 for CoordUnit.
func (m Mapper) Extent() (x, y float64) {
	switch m.mode() {
	case CoordNorm1000, CoordNorm1000Round:
		return 1000, 1000
	case CoordNorm999:
		return 999, 999
	case CoordUnit:
		return 1, 1
	}
	img := m.image()
	return float64(img.X), float64(img.Y)
}

// ToScreen maps a model point to the screen pixel under it. A point outside
// the image (or NaN, or infinite) is a *RangeError.
func (m Mapper) ToScreen(p ModelPoint) (ScreenPoint, error) {
	if err := m.check(); err != nil {
		return ScreenPoint{}, err
	}
	img, d, mode := m.image(), m.Display, m.mode()
	lo, hiX, hiY := 0.0, 0.0, 0.0 // the valid range
	switch mode {
	case CoordPixels:
		lo, hiX, hiY = -0.5, float64(img.X)-0.5, float64(img.Y)-0.5
	default:
		hiX, hiY = m.Extent()
	}
	if !within(p.X, lo, hiX) || !within(p.Y, lo, hiY) {
		e := &RangeError{X: p.X, Y: p.Y, Max: [2]float64{hiX, hiY}, Mode: mode, Image: img}
		if mode == CoordPixels {
			e.Max = [2]float64{float64(img.X - 1), float64(img.Y - 1)}
		}
		return ScreenPoint{}, e
	}
	w, h := float64(d.Dx()), float64(d.Dy())
	var sx, sy int // screen pixel relative to d.Min, before the far-edge fold
	switch mode {
	case CoordNorm1000:
		sx, sy = floor(p.X*w/1000), floor(p.Y*h/1000)
	case CoordPixelsFloor:
		// x*W/w is exact for integer x (one rounding of an exact product),
		// so the truncation matches int(x/w*W) of the references.
		sx, sy = floor(p.X*w/float64(img.X)), floor(p.Y*h/float64(img.Y))
	case CoordNorm1000Round:
		sx, sy = even(w*p.X/1000), even(h*p.Y/1000)
	case CoordNorm999:
		sx, sy = even(p.X/999*w), even(p.Y/999*h)
	case CoordUnit:
		sx, sy = even(p.X*w), even(p.Y*h)
	default:
		sx = floor((p.X + 0.5) * w / float64(img.X))
		sy = floor((p.Y + 0.5) * h / float64(img.Y))
	}
	return ScreenPoint{d.Min.X + edge(sx, d.Dx()), d.Min.Y + edge(sy, d.Dy())}, nil
}

// ToModel maps a screen pixel to the model point in the middle of the
// screen pixel's preimage (the pixel's centre in the pixel and floor modes,
// its left or top edge in the rounding modes). A point outside Display is a
// *RangeError in screen coordinates.
func (m Mapper) ToModel(s ScreenPoint) (ModelPoint, error) {
	if err := m.check(); err != nil {
		return ModelPoint{}, err
	}
	img, d := m.image(), m.Display
	if !image.Pt(s.X, s.Y).In(d) {
		return ModelPoint{}, &RangeError{
			X: float64(s.X), Y: float64(s.Y),
			Min:     [2]float64{float64(d.Min.X), float64(d.Min.Y)},
			Max:     [2]float64{float64(d.Max.X - 1), float64(d.Max.Y - 1)},
			Display: d, Image: img,
		}
	}
	ix, iy := float64(s.X-d.Min.X), float64(s.Y-d.Min.Y)
	w, h := float64(d.Dx()), float64(d.Dy())
	switch m.mode() {
	case CoordNorm1000:
		return ModelPoint{(ix + 0.5) * 1000 / w, (iy + 0.5) * 1000 / h}, nil
	case CoordPixelsFloor:
		return ModelPoint{(ix + 0.5) * float64(img.X) / w, (iy + 0.5) * float64(img.Y) / h}, nil
	case CoordNorm1000Round, CoordNorm999, CoordUnit:
		// round(v) == i for v in [i-0.5, i+0.5]: the middle is i itself.
		ex, ey := m.Extent()
		return ModelPoint{ix * ex / w, iy * ey / h}, nil
	}
	return ModelPoint{
		(ix+0.5)*float64(img.X)/w - 0.5,
		(iy+0.5)*float64(img.Y)/h - 0.5,
	}, nil
}

// ToImage maps a screen pixel to the pixel of the model's image that shows
// it (for drawing marks on the downscaled image). The point need not be
// inside Display; the result is then outside the image.
func (m Mapper) ToImage(s ScreenPoint) image.Point {
	img, d := m.image(), m.Display
	if d.Empty() {
		return image.Point{}
	}
	x := math.Floor((float64(s.X-d.Min.X) + 0.5) * float64(img.X) / float64(d.Dx()))
	y := math.Floor((float64(s.Y-d.Min.Y) + 0.5) * float64(img.Y) / float64(d.Dy()))
	return image.Pt(int(x), int(y))
}

// Contract returns the paragraph the system prompt uses to tell the model its
// coordinate space: image size, mode and origin.
func (m Mapper) Contract() string {
	img := m.image()
	head := fmt.Sprintf("The screenshot is %dx%d pixels and shows the whole target display. ", img.X, img.Y)
	tail := " A coordinate outside this range is rejected with an error, never clamped."
	switch m.mode() {
	case CoordNorm1000, CoordNorm1000Round:
		return head + "Give every coordinate normalised to 0..1000 on both axes, whatever the pixel size: " +
			"x from 0 (left edge) to 1000 (right edge), y from 0 (top edge) to 1000 (bottom edge); " +
			"the origin (0, 0) is the top-left corner and (500, 500) the centre." + tail
	case CoordNorm999:
		return head + "Give every coordinate on a grid of 0..999 on both axes, whatever the pixel size: " +
			"x from 0 (left edge) to 999 (right edge), y from 0 (top edge) to 999 (bottom edge); " +
			"the origin (0, 0) is the top-left corner and (499.5, 499.5) the centre." + tail
	case CoordUnit:
		return head + "Give every coordinate as a fraction 0..1 of the width and height: " +
			"x from 0 (left edge) to 1 (right edge), y from 0 (top edge) to 1 (bottom edge); " +
			"the origin (0, 0) is the top-left corner and (0.5, 0.5) the centre." + tail
	case CoordPixelsFloor:
		return head + fmt.Sprintf("Give every coordinate in pixels of this screenshot: "+
			"x from 0 (left edge) to %d (right edge), y from 0 (top edge) to %d (bottom edge); "+
			"the origin (0, 0) is the top-left corner. Fractions are allowed.", img.X, img.Y) + tail
	}
	return head + fmt.Sprintf("Give every coordinate in pixels of this screenshot: "+
		"x from 0 (left edge) to %d (right edge), y from 0 (top edge) to %d (bottom edge); "+
		"the origin (0, 0) is the top-left corner. Fractions are allowed.", img.X-1, img.Y-1) + tail
}

// within reports lo <= v <= hi; false for NaN.
func within(v, lo, hi float64) bool { return v >= lo && v <= hi }

// floor is math.Floor as an int, for a value already range-checked.
func floor(v float64) int { return int(math.Floor(v)) }

// even rounds half to even, as Python's round does.
func even(v float64) int { return int(math.RoundToEven(v)) }

// edge folds the far edge of a valid range (index n, one past the last
// pixel, which only the right or bottom edge itself reaches) onto the last
// pixel, and keeps the index non-negative.
func edge(i, n int) int { return min(max(i, 0), n-1) }
