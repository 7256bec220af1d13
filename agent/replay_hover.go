package agent

import (
	"image"
	"image/color"

	"deskpilot/vision"
)

// A control under the pointer lights up (a hover highlight) where the
// recorded frame, taken with the pointer elsewhere, shows it plain: the same
// screen, which a replay must not call changed. The area the pointer lights
// is left out of a check when, and only when, it shows the same marks as
// recorded on another face colour: a different control there still differs.
const (
	// hoverReach bounds, either side of the pointer, how far a highlight may
	// extend: wider changes are not a hover.
	hoverReachX, hoverReachY = 240, 80
	// hoverDelta is the colour distance (summed over channels) that makes
	// a pixel differ between frames.
	hoverDelta = 30
	// A differing pixel is explained by the face's change when it moved by
	// a share t of it, -shiftSlack <= t <= 1+shiftSlack, give or take
	// shiftResidual (Euclidean, 0..255 channels); hoverAgree of them must be.
	shiftSlack    = 0.15
	shiftResidual = 20
	hoverAgree    = 0.95
)

// hoverArea returns the area around the pointer hotspot at (frame pixels)
// where now differs from rec only by a control's highlight, or the empty
// rectangle when there is none. sprite is the pointer's own image, never
// compared.
func hoverArea(now *image.RGBA, rec image.Image, at image.Point, sprite image.Rectangle) image.Rectangle {
	reach := image.Rect(at.X-hoverReachX, at.Y-hoverReachY, at.X+hoverReachX, at.Y+hoverReachY)
	win := reach.Intersect(now.Rect).Intersect(rec.Bounds())
	if !at.In(win) {
		return image.Rectangle{}
	}
	var diff image.Rectangle
	for y := win.Min.Y; y < win.Max.Y; y++ {
		for x := win.Min.X; x < win.Max.X; x++ {
			p := image.Pt(x, y)
			if p.In(sprite) {
				continue
			}
			if vision.ColourDistance(now.RGBAAt(x, y), rgbaAt(rec, x, y)) > hoverDelta {
				diff = diff.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	// The highlight lies under the pointer and ends inside the reach; a
	// change that runs to the reach's edge is more than one control.
	switch {
	case diff.Empty(), !at.In(diff.Inset(-4)):
		return image.Rectangle{}
	case diff.Min.X <= reach.Min.X || diff.Min.Y <= reach.Min.Y || diff.Max.X >= reach.Max.X || diff.Max.Y >= reach.Max.Y:
		return image.Rectangle{}
	}
	if !faceShift(now, rec, diff, sprite) {
		return image.Rectangle{}
	}
	return diff
}

// faceShift reports whether, in area, now differs from rec only as a new
// face colour would make it: each pixel that differs moved by a share of the
// face's own change (text drawn over the face blends with it, so its edges
// move by less), the sprite aside. A control with other marks there (another
// label) differs in ways the face's change does not explain.
func faceShift(now *image.RGBA, rec image.Image, area, sprite image.Rectangle) bool {
	fa, fb := commonColour(now, area, sprite), commonColour(rec, area, sprite)
	f := [3]float64{float64(fa.R) - float64(fb.R), float64(fa.G) - float64(fb.G), float64(fa.B) - float64(fb.B)}
	ff := f[0]*f[0] + f[1]*f[1] + f[2]*f[2]
	if ff < hoverDelta*hoverDelta/3 {
		return false // the face kept its colour: not a highlight
	}
	n, explained := 0, 0
	for y := area.Min.Y; y < area.Max.Y; y++ {
		for x := area.Min.X; x < area.Max.X; x++ {
			a, b := now.RGBAAt(x, y), rgbaAt(rec, x, y)
			if image.Pt(x, y).In(sprite) || vision.ColourDistance(a, b) <= hoverDelta {
				continue
			}
			n++
			d := [3]float64{float64(a.R) - float64(b.R), float64(a.G) - float64(b.G), float64(a.B) - float64(b.B)}
			t := (d[0]*f[0] + d[1]*f[1] + d[2]*f[2]) / ff
			var res float64
			for i := range d {
				e := d[i] - t*f[i]
				res += e * e
			}
			if t >= -shiftSlack && t <= 1+shiftSlack && res <= shiftResidual*shiftResidual {
				explained++
			}
		}
	}
	return n > 0 && float64(explained) >= hoverAgree*float64(n)
}

// commonColour is the most common colour of img in area, sprite aside.
func commonColour(img image.Image, area, sprite image.Rectangle) color.RGBA {
	counts := map[color.RGBA]int{}
	for y := area.Min.Y; y < area.Max.Y; y++ {
		for x := area.Min.X; x < area.Max.X; x++ {
			if !image.Pt(x, y).In(sprite) {
				counts[rgbaAt(img, x, y)]++
			}
		}
	}
	var best color.RGBA
	n := 0
	for c, k := range counts {
		if k > n || k == n && rgbaLess(c, best) {
			best, n = c, k
		}
	}
	return best
}

func rgbaLess(a, b color.RGBA) bool {
	if a.R != b.R {
		return a.R < b.R
	}
	if a.G != b.G {
		return a.G < b.G
	}
	return a.B < b.B
}

func rgbaAt(img image.Image, x, y int) color.RGBA {
	if m, ok := img.(*image.RGBA); ok {
		return m.RGBAAt(x, y)
	}
	return color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
}
