package vision

// Likeness and template matching: how a replay tells whether the screen still
// looks as it did when a run was recorded, and where a recorded target went.

import (
	"cmp"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
)

// Parameters of Compare.
const (
	// CompareSide is the longest side, in pixels, Compare shrinks pictures to
	// before comparing them: small enough that anti-aliasing, a blinking caret
	// or a one-pixel shift vanish in the average, large enough that a moved
	// dialog or a new window does not.
	CompareSide = 320
	// CompareMargin is the difference in grey level (of 255) up to which two
	// compared pixels count as the same.
	CompareMargin = 16
)

// Likeness says how alike two pictures of the screen look.
type Likeness struct {
	// Score is the share of the compared area that looks the same, 0..1.
	Score float64
	// Diff bounds the parts that look different, in the first picture's
	// coordinates; empty when nothing does.
	Diff image.Rectangle
}

// Compare reports how alike a and b look. Both are turned grey, shrunk by
// area averaging until the longer side of a is at most CompareSide, and
// blurred with a 3x3 box; a pixel of the result looks the same when the two
// grey levels differ by at most CompareMargin. b is scaled to a's size when
// the sizes differ. Pixels near an ignore rectangle (in a's coordinates:
// deskpilot's own windows, the cursor) are not compared. Two empty pictures,
// or nothing left to compare, score 1; one empty picture scores 0.
func Compare(a, b image.Image, ignore []image.Rectangle) Likeness {
	ra, rb := a.Bounds(), b.Bounds()
	switch {
	case ra.Empty() && rb.Empty():
		return Likeness{Score: 1}
	case ra.Empty() || rb.Empty():
		return Likeness{Diff: ra}
	}
	size := smallSize(ra.Size(), CompareSide)
	ga, gb := shrink(a, ra, size), shrink(b, rb, size)
	skip := ignoredCells(ra, size, ignore)
	ga, gb = ga.blur(), gb.blur()
	compared, differ := 0, 0
	cells := image.Rectangle{}
	for y := range size.Y {
		for x := range size.X {
			i := y*size.X + x
			if skip[i] {
				continue
			}
			compared++
			if math.Abs(float64(ga.pix[i]-gb.pix[i])) > CompareMargin {
				differ++
				cells = cells.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	if compared == 0 {
		return Likeness{Score: 1}
	}
	l := Likeness{Score: 1 - float64(differ)/float64(compared)}
	if !cells.Empty() {
		l.Diff = image.Rect(
			ra.Min.X+cells.Min.X*ra.Dx()/size.X, ra.Min.Y+cells.Min.Y*ra.Dy()/size.Y,
			ra.Min.X+ceilDiv(cells.Max.X*ra.Dx(), size.X), ra.Min.Y+ceilDiv(cells.Max.Y*ra.Dy(), size.Y),
		).Intersect(ra)
	}
	return l
}

// ignoredCells marks the cells of a picture r shrunk to size that an ignore
// rectangle touches, and their neighbours (the blur spreads them one cell).
func ignoredCells(r image.Rectangle, size image.Point, ignore []image.Rectangle) []bool {
	skip := make([]bool, size.X*size.Y)
	for _, ig := range ignore {
		ig = ig.Intersect(r)
		if ig.Empty() {
			continue
		}
		x0 := (ig.Min.X-r.Min.X)*size.X/r.Dx() - 1
		y0 := (ig.Min.Y-r.Min.Y)*size.Y/r.Dy() - 1
		x1 := ceilDiv((ig.Max.X-r.Min.X)*size.X, r.Dx()) + 1
		y1 := ceilDiv((ig.Max.Y-r.Min.Y)*size.Y, r.Dy()) + 1
		for y := max(y0, 0); y < min(y1, size.Y); y++ {
			for x := max(x0, 0); x < min(x1, size.X); x++ {
				skip[y*size.X+x] = true
			}
		}
	}
	return skip
}

// Match is where FindTemplate found a template.
type Match struct {
	// At is the top-left corner of the best match, in the searched picture's
	// coordinates.
	At image.Point
	// Score is the zero-mean normalised cross-correlation there: 1 is a
	// perfect match (up to brightness and contrast), 0 no likeness.
	Score float64
	// Next is the best score at least half a template away from At. Close to
	// Score, the template fits two places and At is a guess.
	Next float64
}

// ErrFlatTemplate is returned by FindTemplate for a template with too little
// contrast to be found: it would fit any plain area alike.
var ErrFlatTemplate = errors.New("vision: the template is flat: it would match any plain area")

// flatDeviation is the least standard deviation of grey levels a template
// needs to be worth searching for.
const flatDeviation = 4

// maxCandidates is how many coarse matches FindTemplate follows, and
// finalCandidates how many of them it compares at full resolution.
const (
	maxCandidates   = 6
	finalCandidates = 3
)

// FindTemplate finds where tmpl looks most like a part of img, by zero-mean
// normalised cross-correlation of grey levels, coarse to fine: over the
// whole of img with both shrunk by a whole factor (so that the shrunk
// template is about 16 pixels on its shorter side), then around the best
// few matches at finer scales (each a quarter of the last) down to full
// resolution. It does not search other scales or rotations. A template
// larger than img is an error, a flat one ErrFlatTemplate. An 80x80
// template on a 1280x800 screen takes 35-60 ms on a loaded 2-core machine
// (BenchmarkFindTemplate; Compare of two such screens 27-50 ms).
func FindTemplate(img, tmpl image.Image) (Match, error) {
	ri, rt := img.Bounds(), tmpl.Bounds()
	if rt.Empty() || rt.Dx() > ri.Dx() || rt.Dy() > ri.Dy() {
		return Match{}, fmt.Errorf("vision: find template: a %dx%d template does not fit in a %dx%d picture", rt.Dx(), rt.Dy(), ri.Dx(), ri.Dy())
	}
	if shrink(tmpl, rt, rt.Size()).deviation() < flatDeviation {
		return Match{}, ErrFlatTemplate
	}
	f := max(min(rt.Dx(), rt.Dy())/16, 1)
	coarseImg := shrink(img, ri, image.Pt(ri.Dx()/f, ri.Dy()/f))
	coarseTmpl := shrink(tmpl, rt, image.Pt(rt.Dx()/f, rt.Dy()/f))
	cands := coarseImg.peaks(coarseTmpl, maxCandidates)
	for i := range cands {
		// Coarse cell c covers full pixels from c*ri/coarse.
		cands[i].at = image.Pt(cands[i].at.X*ri.Dx()/coarseImg.w, cands[i].at.Y*ri.Dy()/coarseImg.h)
	}
	reach := ceilDiv(ri.Dx(), coarseImg.w) + 1
	byScore := func(a, b candidate) int { return cmp.Compare(b.score, a.score) }
	for k := f / 4; k > 1; k /= 4 {
		t := shrink(tmpl, rt, image.Pt(rt.Dx()/k, rt.Dy()/k))
		for i := range cands {
			cands[i] = refine(img, ri, t, rt.Size(), cands[i].at, reach, k)
		}
		reach = k + 1
	}
	slices.SortStableFunc(cands, byScore)
	cands = cands[:min(len(cands), finalCandidates)]
	full := shrink(tmpl, rt, rt.Size())
	for i := range cands {
		cands[i] = refine(img, ri, full, rt.Size(), cands[i].at, reach, 1)
	}
	slices.SortStableFunc(cands, byScore)
	best := cands[0]
	m := Match{At: best.at.Add(ri.Min), Score: best.score}
	for _, c := range cands[1:] {
		d := c.at.Sub(best.at)
		if abs(d.X) >= rt.Dx()/2 || abs(d.Y) >= rt.Dy()/2 {
			m.Next = max(m.Next, c.score)
		}
	}
	return m, nil
}

// candidate is a place a template may be: its top-left corner (relative to
// the searched picture's origin) and its score there.
type candidate struct {
	at    image.Point
	score float64
}

// refine searches the positions within reach of guess (relative to r.Min)
// for the best correlation with the template t (of full size ts), with
// picture and template shrunk by k.
func refine(img image.Image, r image.Rectangle, t grey, ts image.Point, guess image.Point, reach, k int) candidate {
	lo := image.Pt(max(guess.X-reach, 0), max(guess.Y-reach, 0))
	hi := image.Pt(min(guess.X+reach, r.Dx()-ts.X), min(guess.Y+reach, r.Dy()-ts.Y))
	lo = image.Pt(min(lo.X, hi.X), min(lo.Y, hi.Y))
	win := image.Rect(lo.X, lo.Y, hi.X+ts.X, hi.Y+ts.Y).Add(r.Min)
	g := shrink(img, win, image.Pt(max(win.Dx()/k, t.w), max(win.Dy()/k, t.h)))
	tz, tnorm := t.zeroMean()
	best := candidate{at: guess, score: math.Inf(-1)}
	for y := 0; y <= g.h-t.h; y++ {
		for x := 0; x <= g.w-t.w; x++ {
			if s := g.ncc(tz, tnorm, t.w, t.h, x, y); s > best.score {
				best = candidate{lo.Add(image.Pt(x*win.Dx()/g.w, y*win.Dy()/g.h)), s}
			}
		}
	}
	return best
}

// grey is a picture as grey levels 0..255, row by row.
type grey struct {
	w, h int
	pix  []float32
}

// smallSize is size scaled down (never up) so that its longer side is at
// most side, keeping at least one pixel each way.
func smallSize(size image.Point, side int) image.Point {
	long := max(size.X, size.Y)
	if long <= side {
		return size
	}
	return image.Pt(max(size.X*side/long, 1), max(size.Y*side/long, 1))
}

// shrink turns the part r of img grey and averages it down to size: each
// source pixel adds to the one cell it falls in.
func shrink(img image.Image, r image.Rectangle, size image.Point) grey {
	g := grey{w: size.X, h: size.Y, pix: make([]float32, size.X*size.Y)}
	if g.w == 0 || g.h == 0 {
		return g
	}
	count := make([]float32, len(g.pix))
	cellX := make([]int, r.Dx())
	for x := range cellX {
		cellX[x] = x * size.X / r.Dx()
	}
	row := make([]float32, r.Dx())
	for y := range r.Dy() {
		lumaRow(img, r.Min.Y+y, r.Min.X, row)
		base := (y * size.Y / r.Dy()) * size.X
		for x, v := range row {
			g.pix[base+cellX[x]] += v
			count[base+cellX[x]]++
		}
	}
	for i := range g.pix {
		if count[i] > 0 {
			g.pix[i] /= count[i]
		}
	}
	return g
}

// lumaRow fills row with the grey levels of len(row) pixels of img from (x0, y).
func lumaRow(img image.Image, y, x0 int, row []float32) {
	switch m := img.(type) {
	case *image.RGBA:
		p := m.Pix[m.PixOffset(x0, y):]
		for i := range row {
			row[i] = greyLevel(p[4*i], p[4*i+1], p[4*i+2])
		}
	case *image.NRGBA:
		p := m.Pix[m.PixOffset(x0, y):]
		for i := range row {
			row[i] = greyLevel(p[4*i], p[4*i+1], p[4*i+2])
		}
	case *image.YCbCr:
		for i := range row {
			row[i] = float32(m.Y[m.YOffset(x0+i, y)])
		}
	case *image.Gray:
		p := m.Pix[m.PixOffset(x0, y):]
		for i := range row {
			row[i] = float32(p[i])
		}
	default:
		for i := range row {
			row[i] = float32(color.GrayModel.Convert(img.At(x0+i, y)).(color.Gray).Y)
		}
	}
}

// greyLevel is the grey level of an RGB colour (ITU-R BT.601 weights).
func greyLevel(r, g, b uint8) float32 {
	return (299*float32(r) + 587*float32(g) + 114*float32(b)) / 1000
}

// blur returns g smoothed by a 3x3 box (edges use the pixels there are).
func (g grey) blur() grey {
	out := grey{w: g.w, h: g.h, pix: make([]float32, len(g.pix))}
	for y := range g.h {
		for x := range g.w {
			var sum, n float32
			for yy := max(y-1, 0); yy <= min(y+1, g.h-1); yy++ {
				for xx := max(x-1, 0); xx <= min(x+1, g.w-1); xx++ {
					sum += g.pix[yy*g.w+xx]
					n++
				}
			}
			out.pix[y*g.w+x] = sum / n
		}
	}
	return out
}

// deviation is the standard deviation of g's grey levels.
func (g grey) deviation() float64 {
	_, norm := g.zeroMean()
	if len(g.pix) == 0 {
		return 0
	}
	return norm / math.Sqrt(float64(len(g.pix)))
}

// zeroMean returns g's levels minus their mean, and the norm of the result.
func (g grey) zeroMean() ([]float32, float64) {
	var sum float64
	for _, v := range g.pix {
		sum += float64(v)
	}
	mean := float32(sum / float64(max(len(g.pix), 1)))
	z := make([]float32, len(g.pix))
	var sq float64
	for i, v := range g.pix {
		z[i] = v - mean
		sq += float64(z[i]) * float64(z[i])
	}
	return z, math.Sqrt(sq)
}

// ncc is the zero-mean normalised cross-correlation of the window of g at
// (x, y) with a template of size tw x th given as zero-mean levels tz of
// norm tnorm. A flat window scores 0.
func (g grey) ncc(tz []float32, tnorm float64, tw, th, x, y int) float64 {
	var cross, sum, sq float64
	for j := range th {
		row := g.pix[(y+j)*g.w+x:][:tw]
		trow := tz[j*tw:][:tw]
		var c, s, q float32
		for i, v := range row {
			c += v * trow[i]
			s += v
			q += v * v
		}
		cross, sum, sq = cross+float64(c), sum+float64(s), sq+float64(q)
	}
	n := float64(tw * th)
	v := sq - sum*sum/n
	if v < 1e-6 || tnorm == 0 {
		return 0
	}
	return max(-1, min(1, cross/(math.Sqrt(v)*tnorm)))
}

// peaks returns up to k best, well separated matches of t in g (the coarse
// search): each pick suppresses the positions within half a template of it.
func (g grey) peaks(t grey, k int) []candidate {
	nx, ny := g.w-t.w+1, g.h-t.h+1
	if nx <= 0 || ny <= 0 || t.w == 0 || t.h == 0 {
		return []candidate{{}}
	}
	tz, tnorm := t.zeroMean()
	scores := make([]float64, nx*ny)
	for y := range ny {
		for x := range nx {
			scores[y*nx+x] = g.ncc(tz, tnorm, t.w, t.h, x, y)
		}
	}
	var out []candidate
	gone := make([]bool, len(scores))
	for len(out) < k {
		best := -1
		for i, s := range scores {
			if !gone[i] && (best < 0 || s > scores[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		p := image.Pt(best%nx, best/nx)
		out = append(out, candidate{p, scores[best]})
		rx, ry := max(t.w/2, 1), max(t.h/2, 1)
		for y := max(p.Y-ry+1, 0); y < min(p.Y+ry, ny); y++ {
			for x := max(p.X-rx+1, 0); x < min(p.X+rx, nx); x++ {
				gone[y*nx+x] = true
			}
		}
	}
	return out
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// maskCell is the side of the cells MaskedAreas looks at, pixels.
const maskCell = 16

// MaskedAreas finds where img shows the hatching MaskRects paints over
// deskpilot's own windows: 16x16 cells whose pixels are its two colours
// (each present; one row or column may differ), as rectangles (runs of
// cells along a row, grown by a cell each way to take in the partly
// masked cells at the edges) in img's coordinates. A recorded frame's masked areas say
// nothing about the screen, so a replay does not compare them.
func MaskedAreas(img image.Image) []image.Rectangle {
	b := img.Bounds()
	mask, hatch := rgb(maskRGB), rgb(hatchRGB)
	var out []image.Rectangle
	for y0 := b.Min.Y; y0+maskCell <= b.Max.Y; y0 += maskCell {
		run := image.Rectangle{}
		for x0 := b.Min.X; x0+maskCell <= b.Max.X; x0 += maskCell {
			nm, nh := 0, 0
			for y := y0; y < y0+maskCell; y++ {
				for x := x0; x < x0+maskCell; x++ {
					switch rgbaAt(img, x, y) {
					case mask:
						nm++
					case hatch:
						nh++
					}
				}
			}
			const n = maskCell * maskCell
			cell := image.Rect(x0, y0, x0+maskCell, y0+maskCell)
			if nm+nh >= n-maskCell && nm >= n/20 && nh >= n/20 {
				run = run.Union(cell)
				continue
			}
			if !run.Empty() {
				out = append(out, run.Inset(-maskCell).Intersect(b))
				run = image.Rectangle{}
			}
		}
		if !run.Empty() {
			out = append(out, run.Inset(-maskCell).Intersect(b))
		}
	}
	return out
}

// rgbaAt is the colour of img at (x, y), read directly from an RGBA image.
func rgbaAt(img image.Image, x, y int) color.RGBA {
	if m, ok := img.(*image.RGBA); ok {
		p := m.Pix[m.PixOffset(x, y):]
		return color.RGBA{p[0], p[1], p[2], p[3]}
	}
	return color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
}

// ColourDistance is how far apart two colours are: the sum of their red,
// green and blue differences (0 to 765); alpha is not compared.
func ColourDistance(a, b color.RGBA) int {
	d := func(x, y uint8) int { return max(int(x), int(y)) - min(int(x), int(y)) }
	return d(a.R, b.R) + d(a.G, b.G) + d(a.B, b.B)
}
