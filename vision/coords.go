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

const (
	// CoordPixels: pixels of the (downscaled) image the model saw, origin
	// top-left. The default.
	CoordPixels CoordMode = "pixels"
	// CoordNorm1000: 0..1000 on both axes whatever the image size, origin
	// top-left (UI-TARS, Qwen2-VL style).
	CoordNorm1000 CoordMode = "norm1000"
)

// ParseCoordMode parses "pixels" or "norm1000" (case and surrounding space
// ignored); "" is CoordPixels.
func ParseCoordMode(s string) (CoordMode, error) {
	switch CoordMode(strings.ToLower(strings.TrimSpace(s))) {
	case "", CoordPixels:
		return CoordPixels, nil
	case CoordNorm1000:
		return CoordNorm1000, nil
	}
	return "", fmt.Errorf("parse coordinate mode %q: want %q or %q", s, CoordPixels, CoordNorm1000)
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
// floor(x/1000*width), and 1000 to the last pixel. In both modes a point on
// the last row or column is valid, and ToModel returns the centre of the
// screen pixel in model space, hence:
//   - ToScreen(ToModel(s)) == s for every s in Display (downscaled or not);
//   - ToModel(ToScreen(p)) is within half a model pixel of p when Image is
//     not larger than Display (within half a screen pixel, 500/width units,
//     in CoordNorm1000).
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
	case CoordNorm1000:
		return fmt.Sprintf("point (%g, %g) is outside the screenshot: x and y must be within 0..1000 (norm1000: (0, 0) is the top-left corner, (1000, 1000) the bottom-right)",
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
	if mo := m.mode(); mo != CoordPixels && mo != CoordNorm1000 {
		return fmt.Errorf("mapper: unknown coordinate mode %q", m.Mode)
	}
	return nil
}

// ToScreen maps a model point to the screen pixel under it. A point outside
// the image (or NaN, or infinite) is a *RangeError.
func (m Mapper) ToScreen(p ModelPoint) (ScreenPoint, error) {
	if err := m.check(); err != nil {
		return ScreenPoint{}, err
	}
	img, d := m.image(), m.Display
	var sx, sy float64 // continuous screen position relative to d.Min
	switch m.mode() {
	case CoordNorm1000:
		if !within(p.X, 0, 1000) || !within(p.Y, 0, 1000) {
			return ScreenPoint{}, &RangeError{X: p.X, Y: p.Y, Max: [2]float64{1000, 1000}, Mode: CoordNorm1000, Image: img}
		}
		sx = p.X * float64(d.Dx()) / 1000
		sy = p.Y * float64(d.Dy()) / 1000
	default:
		if !within(p.X, -0.5, float64(img.X)-0.5) || !within(p.Y, -0.5, float64(img.Y)-0.5) {
			return ScreenPoint{}, &RangeError{
				X: p.X, Y: p.Y, Max: [2]float64{float64(img.X - 1), float64(img.Y - 1)},
				Mode: CoordPixels, Image: img,
			}
		}
		sx = (p.X + 0.5) * float64(d.Dx()) / float64(img.X)
		sy = (p.Y + 0.5) * float64(d.Dy()) / float64(img.Y)
	}
	return ScreenPoint{d.Min.X + cell(sx, d.Dx()), d.Min.Y + cell(sy, d.Dy())}, nil
}

// ToModel maps a screen pixel to the model coordinates of its centre. A point
// outside Display is a *RangeError in screen coordinates.
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
	cx := float64(s.X-d.Min.X) + 0.5
	cy := float64(s.Y-d.Min.Y) + 0.5
	if m.mode() == CoordNorm1000 {
		return ModelPoint{cx * 1000 / float64(d.Dx()), cy * 1000 / float64(d.Dy())}, nil
	}
	return ModelPoint{
		cx*float64(img.X)/float64(d.Dx()) - 0.5,
		cy*float64(img.Y)/float64(d.Dy()) - 0.5,
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
	if m.mode() == CoordNorm1000 {
		return head + "Give every coordinate normalised to 0..1000 on both axes, whatever the pixel size: " +
			"x from 0 (left edge) to 1000 (right edge), y from 0 (top edge) to 1000 (bottom edge); " +
			"the origin (0, 0) is the top-left corner and (500, 500) the centre." + tail
	}
	return head + fmt.Sprintf("Give every coordinate in pixels of this screenshot: "+
		"x from 0 (left edge) to %d (right edge), y from 0 (top edge) to %d (bottom edge); "+
		"the origin (0, 0) is the top-left corner. Fractions are allowed.", img.X-1, img.Y-1) + tail
}

// within reports lo <= v <= hi; false for NaN.
func within(v, lo, hi float64) bool { return v >= lo && v <= hi }

// cell returns the index of the pixel containing continuous position v in
// [0, n]; v == n (the far edge) is the last pixel.
func cell(v float64, n int) int {
	i := int(math.Floor(v))
	return min(max(i, 0), n-1)
}
