package vision

import (
	"image"
	"image/color"
	"image/draw"
	"strconv"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// BoxMark is one element of a set-of-marks overlay: a numbered box, in the
// coordinates of the image it is drawn on (see ImageRect).
type BoxMark struct {
	// N is the number shown next to the box (click_mark(N) refers to it).
	N int
	// Box is the element's rectangle.
	Box image.Rectangle
}

// MaxBoxMarks is the most marks DrawBoxMarks draws; later ones are skipped.
const MaxBoxMarks = 500

// boxColour returns the colour of the i-th mark: 8 saturated colours,
// cycled, each told apart from its neighbours in the cycle.
func boxColour(i int) color.RGBA {
	palette := [...]uint32{0xE6194B, 0x1F6FE8, 0x2E9E3E, 0xF58231, 0x911EB4, 0x0FA3B1, 0xD6249F, 0x8B5A2B}
	return rgb(palette[i%len(palette)])
}

// DrawBoxMarks draws a set-of-marks overlay on dst: each mark's box as a
// 2-pixel frame in one of 8 colours, with a 1-pixel halo, black or white,
// whichever contrasts more with the pixels under it, so boxes show on light
// and dark screens alike; and its number in a label of the same colour (white
// or black digits, whichever reads better on it, in basicfont's 7x13 face
// drawn bold).
//
// A label is placed, in order of preference, above the box's top-left
// corner, left of it, below it, right of it, or at its other corners, moved
// inside dst when it would stick out; the place covering the least of the
// box itself (its text), of other boxes and of labels already placed wins, and
// only when every place outside is taken does a label go inside the box's
// corner. Boxes are drawn before labels, so no frame crosses a number. It
// returns where each label went, in the order of marks (an empty rectangle for
// marks skipped: beyond MaxBoxMarks or with an empty box).
func DrawBoxMarks(dst *image.RGBA, marks []BoxMark) []image.Rectangle {
	labels := make([]image.Rectangle, len(marks))
	n := min(len(marks), MaxBoxMarks)
	for i, m := range marks[:n] {
		if m.Box.Canon().Intersect(dst.Rect).Empty() {
			continue
		}
		drawFrame(dst, m.Box.Canon(), boxColour(i))
	}
	var placed []image.Rectangle
	for i, m := range marks[:n] {
		box := m.Box.Canon()
		if box.Intersect(dst.Rect).Empty() {
			continue
		}
		text := strconv.Itoa(m.N)
		size := labelSize(text)
		l := placeLabel(dst.Rect, box, size, marks[:n], i, placed)
		placed = append(placed, l)
		labels[i] = l
		drawNumber(dst, l, text, boxColour(i))
	}
	return labels
}

// ImageRect maps a rectangle in root coordinates (an element's extents, an
// OCR word's box plus the display's origin) to the pixels of the image the
// model sees, for DrawBoxMarks. The result covers every image pixel that
// shows part of r.
func ImageRect(m Mapper, r image.Rectangle) image.Rectangle {
	r = r.Canon()
	if r.Empty() {
		return image.Rectangle{}
	}
	lo := m.ToImage(ScreenPoint{X: r.Min.X, Y: r.Min.Y})
	hi := m.ToImage(ScreenPoint{X: r.Max.X - 1, Y: r.Max.Y - 1})
	return image.Rectangle{Min: lo, Max: hi.Add(image.Pt(1, 1))}
}

// frameWidth is the width of a box's coloured frame, in pixels.
const frameWidth = 2

// drawFrame draws a frameWidth-pixel frame just inside r, with a 1-pixel
// halo just outside it.
func drawFrame(dst *image.RGBA, r image.Rectangle, c color.RGBA) {
	halo := contrastOf(dst, r)
	outer := r.Inset(-1)
	strokeRect(dst, outer, 1, halo)
	strokeRect(dst, r, min(frameWidth, r.Dx(), r.Dy()), c)
}

// strokeRect paints the w-pixel border just inside r, clipped to dst.
func strokeRect(dst *image.RGBA, r image.Rectangle, w int, c color.RGBA) {
	if w <= 0 {
		return
	}
	u := image.NewUniform(c)
	for _, side := range []image.Rectangle{
		{r.Min, image.Pt(r.Max.X, r.Min.Y+w)},
		{image.Pt(r.Min.X, r.Max.Y-w), r.Max},
		{r.Min, image.Pt(r.Min.X+w, r.Max.Y)},
		{image.Pt(r.Max.X-w, r.Min.Y), r.Max},
	} {
		draw.Draw(dst, side.Intersect(dst.Rect), u, image.Point{}, draw.Src)
	}
}

// contrastOf returns black or white, whichever differs more from the mean
// luminance of dst's pixels along r's border.
func contrastOf(dst *image.RGBA, r image.Rectangle) color.RGBA {
	var sum, n int
	add := func(x, y int) {
		if image.Pt(x, y).In(dst.Rect) {
			p := dst.Pix[dst.PixOffset(x, y):][:3:3]
			sum += luma(p[0], p[1], p[2])
			n++
		}
	}
	stepX, stepY := max(r.Dx()/16, 1), max(r.Dy()/16, 1)
	for x := r.Min.X; x < r.Max.X; x += stepX {
		add(x, r.Min.Y-1)
		add(x, r.Max.Y)
	}
	for y := r.Min.Y; y < r.Max.Y; y += stepY {
		add(r.Min.X-1, y)
		add(r.Max.X, y)
	}
	if n > 0 && sum/n < 128 {
		return color.RGBA{255, 255, 255, 255}
	}
	return color.RGBA{0, 0, 0, 255}
}

func luma(r, g, b uint8) int { return (77*int(r) + 150*int(g) + 29*int(b)) >> 8 }

// labelSize returns the size of the label holding text: bold 7x13 digits
// (8 px each) with a 2-pixel margin and a 1-pixel border.
func labelSize(text string) image.Point {
	w := font.MeasureString(basicfont.Face7x13, text).Ceil() + 1
	return image.Pt(w+6, basicfont.Face7x13.Height+4)
}

// placeLabel picks the label rectangle of the given size for mark i's box
// (see DrawBoxMarks).
func placeLabel(bounds, box image.Rectangle, size image.Point, marks []BoxMark, i int, placed []image.Rectangle) image.Rectangle {
	w, h := size.X, size.Y
	candidates := []image.Point{
		{box.Min.X - 1, box.Min.Y - 1 - h}, // above, left-aligned
		{box.Min.X - 1 - w, box.Min.Y - 1}, // left, top-aligned
		{box.Min.X - 1, box.Max.Y + 1},     // below, left-aligned
		{box.Max.X + 1, box.Min.Y - 1},     // right, top-aligned
		{box.Max.X + 1 - w, box.Min.Y - 1 - h},
		{box.Max.X + 1 - w, box.Max.Y + 1},
		{box.Min.X + frameWidth, box.Min.Y + frameWidth}, // inside, last resort
	}
	best, bestCost := image.Rectangle{}, -1
	for rank, at := range candidates {
		l := inside(image.Rectangle{Min: at, Max: at.Add(size)}, bounds)
		cost := 8*area(l.Intersect(box)) + rank
		for _, p := range placed {
			cost += 16 * area(l.Intersect(p))
		}
		for j, m := range marks {
			if j != i {
				cost += 2 * area(l.Intersect(m.Box.Canon()))
			}
		}
		if rank == len(candidates)-1 {
			cost += w * h // inside the box only when nothing outside is clear
		}
		if bestCost < 0 || cost < bestCost {
			best, bestCost = l, cost
		}
	}
	return best
}

// inside moves r (never resizes it) so that it lies in bounds where it fits.
func inside(r, bounds image.Rectangle) image.Rectangle {
	if r.Max.X > bounds.Max.X {
		r = r.Sub(image.Pt(r.Max.X-bounds.Max.X, 0))
	}
	if r.Max.Y > bounds.Max.Y {
		r = r.Sub(image.Pt(0, r.Max.Y-bounds.Max.Y))
	}
	if r.Min.X < bounds.Min.X {
		r = r.Add(image.Pt(bounds.Min.X-r.Min.X, 0))
	}
	if r.Min.Y < bounds.Min.Y {
		r = r.Add(image.Pt(0, bounds.Min.Y-r.Min.Y))
	}
	return r
}

func area(r image.Rectangle) int { return r.Dx() * r.Dy() }

// drawNumber fills label l with bg, borders it in black or white (whichever
// contrasts with bg) and writes text in bold, also in that colour.
func drawNumber(dst *image.RGBA, l image.Rectangle, text string, bg color.RGBA) {
	fg := color.RGBA{255, 255, 255, 255}
	if luma(bg.R, bg.G, bg.B) > 150 {
		fg = color.RGBA{0, 0, 0, 255}
	}
	draw.Draw(dst, l.Intersect(dst.Rect), image.NewUniform(bg), image.Point{}, draw.Src)
	strokeRect(dst, l, 1, fg)
	face := basicfont.Face7x13
	for dx := range 2 { // bold: the glyphs twice, one pixel apart
		d := font.Drawer{
			Dst:  dst,
			Src:  image.NewUniform(fg),
			Face: face,
			Dot:  fixed.P(l.Min.X+3+dx, l.Min.Y+2+face.Ascent),
		}
		d.DrawString(text)
	}
}
