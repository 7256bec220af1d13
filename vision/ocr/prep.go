package ocr

import (
	"image"
	"math"
)

// cellSize is the side, in frame pixels, of the square cells whose dominant
// luminance is taken as the local background. Small enough that a cell rarely
// spans two windows, large enough that text never fills one (a 16x16 cell of
// 12 px UI text is still mostly background).
const cellSize = 16

// fullInk is the distance from the background, in luminance levels, at and
// beyond which a pixel is rendered black. UI text differs from its
// background by 100 levels or more (grey title-bar text on a gradient too);
// smaller differences, such as the texture of a photo, stay light grey and
// fall below Tesseract's threshold, while faint text still reaches mid grey.
const fullInk = 160

// prepare renders the part r of frame (clipped to frame.Rect) as the image
// Tesseract reads best, at scale 1: dark ink on a white background whatever
// the colours of the screen, contrast stretched per neighbourhood. The
// result's origin is r.Min's pixel at (0, 0).
//
// Polarity is decided per cell: the background of a cell is its dominant
// luminance, and ink is how far a pixel is from it, so light-on-dark text
// (terminals, title bars, selected items) comes out dark-on-light too. The
// cost is that a cell straddling two backgrounds renders its minority part as
// ink; cells are small so only a few pixels along window edges suffer.
func prepare(frame *image.RGBA, r image.Rectangle) *image.Gray {
	r = r.Intersect(frame.Rect)
	w, h := r.Dx(), r.Dy()
	g := &image.Gray{Pix: inkMap(luminance(frame, r), w, h), Stride: w, Rect: image.Rect(0, 0, w, h)}
	removeRules(g)
	return g
}

// Ink runs at least this long, in frame pixels, are rules (borders, frames,
// separators, underlines, button outlines), not glyph strokes. Vertical
// strokes of large headings can be long, hence the larger vertical bound.
const (
	minRuleH = 24
	minRuleV = 40
)

// removeRules whitens horizontal and vertical ink runs of rule length, then
// what is left of the outlines they belonged to (see removeRemnants). UI
// text sits inside boxes: a button outline enclosing its label makes
// Tesseract's single-block segmentation take the outline for one big blob
// and skip what is inside it (an Xaw button's "Charlie" is lost), and
// borders next to text are read as "|" or "l". Without the rules the labels
// stand alone.
func removeRules(g *image.Gray) {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	erase := make([]bool, w*h)
	for y := range h {
		row := g.Pix[y*g.Stride:][:w]
		for x := 0; x < w; {
			if row[x] >= inkLevel {
				x++
				continue
			}
			end := x
			for end < w && row[end] < inkLevel {
				end++
			}
			if end-x >= minRuleH {
				for i := x; i < end; i++ {
					erase[y*w+i] = true
				}
			}
			x = end
		}
	}
	for x := range w {
		for y := 0; y < h; {
			if g.Pix[y*g.Stride+x] >= inkLevel {
				y++
				continue
			}
			end := y
			for end < h && g.Pix[end*g.Stride+x] < inkLevel {
				end++
			}
			if end-y >= minRuleV {
				for i := y; i < end; i++ {
					erase[i*w+x] = true
				}
			}
			y = end
		}
	}
	for i, e := range erase {
		if e {
			g.Pix[(i/w)*g.Stride+i%w] = 255
		}
	}
	removeRemnants(g, erase)
}

// removeRemnants whitens the pieces of outlines that removeRules leaves: the
// curved ends of an oval button (Xaw's, read as "(Charlie)" and worse, "B"
// becoming "@" beside them) and the short sides of a box too low for a
// vertical rule. Such a piece is a connected run of ink that joins two rules:
// it touches erased rule pixels both in its top two rows and in its bottom
// two, and is no wider than it is tall. Glyphs do not join two rules (a
// descender may touch an underline, but only at its bottom).
func removeRemnants(g *image.Gray, erased []bool) {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	ink := func(i int) bool { return g.Pix[(i/w)*g.Stride+i%w] < inkLevel }
	seen := make([]bool, w*h)
	var comp, stack []int
	for start := range seen {
		if seen[start] || !ink(start) {
			continue
		}
		comp, stack = comp[:0], append(stack[:0], start)
		seen[start] = true
		box := image.Rect(start%w, start/w, start%w+1, start/w+1)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			comp = append(comp, i)
			x, y := i%w, i/w
			box = box.Union(image.Rect(x, y, x+1, y+1))
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if nx < 0 || ny < 0 || nx >= w || ny >= h {
						continue
					}
					if j := ny*w + nx; !seen[j] && ink(j) {
						seen[j] = true
						stack = append(stack, j)
					}
				}
			}
		}
		if box.Dx() <= box.Dy() && box.Dy() >= 6 && joinsRules(comp, box, erased, w, h) {
			for _, i := range comp {
				g.Pix[(i/w)*g.Stride+i%w] = 255
			}
		}
	}
}

// joinsRules reports whether the component comp (pixel indexes, bounding box
// box) touches erased pixels from its top two rows and from its bottom two.
func joinsRules(comp []int, box image.Rectangle, erased []bool, w, h int) bool {
	touches := func(x, y int) bool {
		for ny := max(y-1, 0); ny <= min(y+1, h-1); ny++ {
			for nx := max(x-1, 0); nx <= min(x+1, w-1); nx++ {
				if erased[ny*w+nx] {
					return true
				}
			}
		}
		return false
	}
	top, bottom := false, false
	for _, i := range comp {
		x, y := i%w, i/w
		nearTop, nearBottom := y < box.Min.Y+2, y >= box.Max.Y-2
		if (nearTop && !top || nearBottom && !bottom) && touches(x, y) {
			top, bottom = top || nearTop, bottom || nearBottom
		}
		if top && bottom {
			return true
		}
	}
	return false
}

// luminance returns the Rec. 601 luma of each pixel of r, row after row.
func luminance(frame *image.RGBA, r image.Rectangle) []uint8 {
	w, h := r.Dx(), r.Dy()
	lum := make([]uint8, w*h)
	for y := range h {
		row := frame.Pix[frame.PixOffset(r.Min.X, r.Min.Y+y):][:4*w]
		out := lum[y*w:][:w]
		for x := range w {
			p := row[4*x:][:3:3]
			out[x] = uint8((77*uint32(p[0]) + 150*uint32(p[1]) + 29*uint32(p[2])) >> 8)
		}
	}
	return lum
}

// inkMap turns luminance into 255 - ink, where ink is a pixel's distance
// from its cell's background, stretched so that fullInk or more is black.
func inkMap(lum []uint8, w, h int) []uint8 {
	cw, ch := (w+cellSize-1)/cellSize, (h+cellSize-1)/cellSize
	bg := make([]int, cw*ch)
	for cy := range ch {
		for cx := range cw {
			cell := image.Rect(cx*cellSize, cy*cellSize, min((cx+1)*cellSize, w), min((cy+1)*cellSize, h))
			bg[cy*cw+cx] = dominant(lum, w, cell)
		}
	}
	out := make([]uint8, w*h)
	for y := range h {
		cells := bg[(y/cellSize)*cw:][:cw]
		row, dst := lum[y*w:][:w], out[y*w:][:w]
		for x, v := range row {
			d := abs(int(v) - cells[x/cellSize])
			dst[x] = uint8(255 - min(255, d*255/fullInk))
		}
	}
	return out
}

// dominant returns the most common luminance of the cell: the mean of the
// pixels in the fullest window of three adjacent 8-level histogram bins (a
// window, so that a gradient background such as a title bar's still counts
// as one background).
func dominant(lum []uint8, w int, cell image.Rectangle) int {
	var count, sum [34]int // bins 1..32; 0 and 33 stay empty
	for y := cell.Min.Y; y < cell.Max.Y; y++ {
		for _, v := range lum[y*w+cell.Min.X : y*w+cell.Max.X] {
			count[1+v>>3]++
			sum[1+v>>3] += int(v)
		}
	}
	best, bestN := 0, 0
	for i := 1; i <= 32; i++ {
		if n := count[i-1] + count[i] + count[i+1]; n > bestN {
			best, bestN = i, n
		}
	}
	if bestN == 0 {
		return 255
	}
	return (sum[best-1] + sum[best] + sum[best+1]) / bestN
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// upscale returns the part r of src enlarged by scale (at least 1) with
// bilinear interpolation (sampling at pixel centres, edges repeated), with its
// origin at (0, 0), so that small UI fonts reach the x-height Tesseract
// expects.
func upscale(src *image.Gray, r image.Rectangle, scale float64) *image.Gray {
	r = r.Intersect(src.Rect)
	scale = max(scale, 1)
	w, h := r.Dx(), r.Dy()
	dw, dh := int(float64(w)*scale+0.5), int(float64(h)*scale+0.5)
	dst := image.NewGray(image.Rect(0, 0, dw, dh))
	if w == 0 || h == 0 {
		return dst
	}
	// Destination pixel i samples the source at (i + 0.5) / scale - 0.5,
	// between pixels i0 and i1 with weight f/256 on i1.
	type tap struct{ i0, i1, f int }
	taps := func(n, dn int) []tap {
		t := make([]tap, dn)
		for i := range dn {
			p := (float64(i)+0.5)*float64(n)/float64(dn) - 0.5
			i0 := int(math.Floor(p))
			f := int((p - float64(i0)) * 256)
			t[i] = tap{min(max(i0, 0), n-1), min(max(i0+1, 0), n-1), f}
		}
		return t
	}
	xs, ys := taps(w, dw), taps(h, dh)
	for y, ty := range ys {
		r0 := src.Pix[src.PixOffset(r.Min.X, r.Min.Y+ty.i0):][:w]
		r1 := src.Pix[src.PixOffset(r.Min.X, r.Min.Y+ty.i1):][:w]
		out := dst.Pix[y*dst.Stride:][:dw]
		for x, tx := range xs {
			top := int(r0[tx.i0])*(256-tx.f) + int(r0[tx.i1])*tx.f
			bot := int(r1[tx.i0])*(256-tx.f) + int(r1[tx.i1])*tx.f
			out[x] = uint8((top*(256-ty.f) + bot*ty.f + 1<<15) >> 16)
		}
	}
	return dst
}
