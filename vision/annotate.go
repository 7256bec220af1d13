package vision

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// MarkKind says what a Mark draws.
type MarkKind string

const (
	// MarkClick draws a crosshair in a circle centred on At. The zero Kind.
	MarkClick MarkKind = "click"
	// MarkDrag draws an arrow from At to To.
	MarkDrag MarkKind = "drag"
	// MarkLabel draws only Label, its box's top-left corner at At.
	MarkLabel MarkKind = "label"
)

// Mark is an annotation drawn on a frame, in the coordinates of the image it
// is drawn on. Label, when set, is drawn next to the mark (next to To for a
// drag) in a small dark box, in basicfont's 7x13 face, which covers ASCII
// only: other runes show as the replacement glyph.
type Mark struct {
	Kind   MarkKind // "" means MarkClick
	At, To image.Point
	Label  string
}

// Colours of the annotations, as 0xRRGGBB: magenta stands out on almost
// every UI, and a dark outline keeps it visible on magenta-ish content too.
const (
	markRGB    = 0xFF00DC
	outlineRGB = 0x141414
	labelBgRGB = 0x141414
	labelFgRGB = 0xFFFFFF
	maskRGB    = 0x404048
	hatchRGB   = 0x6E6E7C
)

// rgb returns the opaque colour 0xRRGGBB.
func rgb(v uint32) color.RGBA { return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255} }

// cursorShape is the classic X arrow pointer, one row per line; its hotspot,
// the tip, is the top-left cell. 'X' is the black outline, 'o' the white fill.
const cursorShape = `X
XX
XoX
XooX
XoooX
XooooX
XoooooX
XooooooX
XoooooooX
XooooooooX
XoooooXXXXX
XooXooX
XoX XooX
XX  XooX
X    XooX
     XooX
      XX`

// Annotate draws on dst, in dst's coordinates: the mouse pointer with its tip
// at cursor (when not nil; X screenshots lack it), then each mark. Shapes
// have a fixed size in dst pixels, so draw on the image the model sees to
// keep them legible. Everything is clipped to dst.
func Annotate(dst *image.RGBA, cursor *image.Point, marks []Mark) {
	for _, m := range marks {
		switch m.Kind {
		case MarkDrag:
			drawArrow(dst, m.At, m.To)
			drawLabel(dst, m.To.Add(image.Pt(8, 8)), m.Label)
		case MarkLabel:
			drawLabel(dst, m.At, m.Label)
		default:
			drawClick(dst, m.At)
			drawLabel(dst, m.At.Add(image.Pt(16, 8)), m.Label)
		}
	}
	if cursor != nil {
		drawCursor(dst, *cursor)
	}
}

// annotationBounds returns rectangles, in dst's coordinates, that cover every
// pixel Annotate(dst, cursor, marks) may change (a little more, never less).
// The Observer uses them to know which rows of its reused image hold
// drawings rather than scaled pixels.
func annotationBounds(dst image.Rectangle, cursor *image.Point, marks []Mark) []image.Rectangle {
	var out []image.Rectangle
	add := func(r image.Rectangle) {
		if r = r.Intersect(dst); !r.Empty() {
			out = append(out, r)
		}
	}
	around := func(p image.Point, d int) image.Rectangle {
		return image.Rect(p.X-d, p.Y-d, p.X+d+1, p.Y+d+1)
	}
	for _, m := range marks {
		switch m.Kind {
		case MarkDrag:
			// Line width 4 and arrowheads 12 px long around the segment, a dot
			// of radius 4 at the start.
			add(around(m.At, 14).Union(around(m.To, 14)))
			add(labelBox(dst, m.To.Add(image.Pt(8, 8)), m.Label))
		case MarkLabel:
			add(labelBox(dst, m.At, m.Label))
		default:
			add(around(m.At, 17)) // ring of radius 10 and crosshair arms to 15, 2 px wide
			add(labelBox(dst, m.At.Add(image.Pt(16, 8)), m.Label))
		}
	}
	if cursor != nil {
		add(image.Rect(cursor.X, cursor.Y, cursor.X+12, cursor.Y+18))
	}
	return out
}

func drawCursor(dst *image.RGBA, at image.Point) {
	for y, row := range strings.Split(cursorShape, "\n") {
		for x, c := range row {
			switch c {
			case 'X':
				setPixel(dst, at.X+x, at.Y+y, color.RGBA{0, 0, 0, 255})
			case 'o':
				setPixel(dst, at.X+x, at.Y+y, color.RGBA{255, 255, 255, 255})
			}
		}
	}
}

// drawClick draws a circle of radius 10 with a crosshair through it.
func drawClick(dst *image.RGBA, c image.Point) {
	for pass, col := range []color.RGBA{rgb(outlineRGB), rgb(markRGB)} {
		grow := 1 - pass // the outline pass is one pixel wider each side
		ring(dst, c, 10, 1+grow, col)
		for _, d := range []image.Point{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			line(dst, c.Add(d.Mul(4)), c.Add(d.Mul(15)), 1+grow, col)
		}
	}
	setPixel(dst, c.X, c.Y, rgb(markRGB))
}

// drawArrow draws a line from a to b with an arrowhead at b and a dot at a.
func drawArrow(dst *image.RGBA, a, b image.Point) {
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	n := math.Hypot(dx, dy)
	var heads []image.Point
	if n > 0 {
		for _, turn := range []float64{-0.45, 0.45} { // about 26 degrees
			s, c := math.Sincos(turn)
			ux, uy := -(dx*c-dy*s)/n, -(dx*s+dy*c)/n
			heads = append(heads, b.Add(image.Pt(int(math.Round(12*ux)), int(math.Round(12*uy)))))
		}
	}
	for pass, col := range []color.RGBA{rgb(outlineRGB), rgb(markRGB)} {
		w := 3 - 2*pass
		line(dst, a, b, w+1, col)
		for _, h := range heads {
			line(dst, b, h, w+1, col)
		}
		disc(dst, a, 4-pass, col)
	}
}

// drawLabel draws text in a dark box whose top-left corner is at, moved
// inside dst when it would stick out.
func drawLabel(dst *image.RGBA, at image.Point, text string) {
	box := labelBox(dst.Rect, at, text)
	if box.Empty() {
		return
	}
	face := basicfont.Face7x13
	draw.Draw(dst, box, image.NewUniform(rgb(labelBgRGB)), image.Point{}, draw.Src)
	d := font.Drawer{
		Dst:  dst,
		Src:  image.NewUniform(rgb(labelFgRGB)),
		Face: face,
		Dot:  fixed.P(box.Min.X+3, box.Min.Y+2+face.Ascent),
	}
	d.DrawString(text)
}

// labelBox is the box drawLabel fills on an image with bounds b: its
// top-left corner at at, moved inside b when it would stick out; empty for
// no text.
func labelBox(b image.Rectangle, at image.Point, text string) image.Rectangle {
	if text == "" {
		return image.Rectangle{}
	}
	face := basicfont.Face7x13
	w := font.MeasureString(face, text).Ceil()
	box := image.Rect(0, 0, w+6, face.Height+4).Add(at)
	if box.Max.X > b.Max.X {
		box = box.Sub(image.Pt(box.Max.X-b.Max.X, 0))
	}
	if box.Max.Y > b.Max.Y {
		box = box.Sub(image.Pt(0, box.Max.Y-b.Max.Y))
	}
	if box.Min.X < b.Min.X {
		box = box.Add(image.Pt(b.Min.X-box.Min.X, 0))
	}
	if box.Min.Y < b.Min.Y {
		box = box.Add(image.Pt(0, b.Min.Y-box.Min.Y))
	}
	return box
}

// MaskRects paints each rectangle (in dst's coordinates, clipped to dst)
// flat grey with diagonal hatching and the word "masked", so the model sees
// that something is hidden there (deskpilot's own window). The hatching is
// 4 px wide every 16 px and survives downscaling.
func MaskRects(dst *image.RGBA, rects []image.Rectangle) {
	for _, r := range rects {
		r = r.Intersect(dst.Rect)
		if r.Empty() {
			continue
		}
		for y := r.Min.Y; y < r.Max.Y; y++ {
			row := dst.Pix[dst.PixOffset(r.Min.X, y):][:4*r.Dx()]
			for i := range r.Dx() {
				c := rgb(maskRGB)
				if (r.Min.X+i+y)%16 < 4 {
					c = rgb(hatchRGB)
				}
				row[4*i], row[4*i+1], row[4*i+2], row[4*i+3] = c.R, c.G, c.B, c.A
			}
		}
		const word = "masked"
		if r.Dx() >= 60 && r.Dy() >= 24 {
			w := font.MeasureString(basicfont.Face7x13, word).Ceil() + 6
			drawLabel(dst, image.Pt(r.Min.X+(r.Dx()-w)/2, r.Min.Y+(r.Dy()-17)/2), word)
		}
	}
}

// Crop returns a copy of the part of src inside r (clipped to src), with its
// top-left pixel at (0, 0). An empty intersection gives an empty image.
func Crop(src *image.RGBA, r image.Rectangle) *image.RGBA {
	r = r.Intersect(src.Rect)
	dst := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := range r.Dy() {
		copy(dst.Pix[y*dst.Stride:][:4*r.Dx()], src.Pix[src.PixOffset(r.Min.X, r.Min.Y+y):][:4*r.Dx()])
	}
	return dst
}

func setPixel(dst *image.RGBA, x, y int, c color.RGBA) {
	if !image.Pt(x, y).In(dst.Rect) {
		return
	}
	p := dst.Pix[dst.PixOffset(x, y):][:4:4]
	p[0], p[1], p[2], p[3] = c.R, c.G, c.B, c.A
}

// square fills a w x w square centred on (x, y).
func square(dst *image.RGBA, x, y, w int, c color.RGBA) {
	lo := -(w - 1) / 2
	for dy := lo; dy < lo+w; dy++ {
		for dx := lo; dx < lo+w; dx++ {
			setPixel(dst, x+dx, y+dy, c)
		}
	}
}

// line draws a w-pixel-wide line from a to b (Bresenham, a square per step).
func line(dst *image.RGBA, a, b image.Point, w int, c color.RGBA) {
	dx, dy := abs(b.X-a.X), -abs(b.Y-a.Y)
	sx, sy := sign(b.X-a.X), sign(b.Y-a.Y)
	e := dx + dy
	for x, y := a.X, a.Y; ; {
		square(dst, x, y, w, c)
		if x == b.X && y == b.Y {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x += sx
		}
		if e2 <= dx {
			e += dx
			y += sy
		}
	}
}

// ring draws a circle of radius r and width w centred on c.
func ring(dst *image.RGBA, c image.Point, r, w int, col color.RGBA) {
	lo, hi := float64(r)-float64(w)/2, float64(r)+float64(w)/2
	n := r + w
	for y := -n; y <= n; y++ {
		for x := -n; x <= n; x++ {
			if d := math.Hypot(float64(x), float64(y)); d >= lo && d <= hi {
				setPixel(dst, c.X+x, c.Y+y, col)
			}
		}
	}
}

// disc fills a circle of radius r centred on c.
func disc(dst *image.RGBA, c image.Point, r int, col color.RGBA) {
	for y := -r; y <= r; y++ {
		for x := -r; x <= r; x++ {
			if x*x+y*y <= r*r {
				setPixel(dst, c.X+x, c.Y+y, col)
			}
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func sign(v int) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}
