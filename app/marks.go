package app

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"deskpilot/actions"
	"deskpilot/agent/trace"
)

// withMarks returns a copy of img with acts drawn on it: a ring at each point and a
// line with an arrowhead for drags. Screen points are mapped into the image by
// subtracting scr's origin and scaling by image size over scr's size (scr nil:
// identity). Actions without a point are skipped.
func withMarks(img image.Image, acts []actions.Record, scr *trace.Rect) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	ox, oy, sx, sy := 0.0, 0.0, 1.0, 1.0
	if scr != nil && scr.W > 0 && scr.H > 0 {
		ox, oy = float64(scr.X), float64(scr.Y)
		sx, sy = float64(b.Dx())/float64(scr.W), float64(b.Dy())/float64(scr.H)
	}
	r := math.Max(7, float64(max(b.Dx(), b.Dy()))/60)
	markOK, markBad := color.RGBA{255, 140, 0, 255}, color.RGBA{220, 30, 30, 255}
	for _, a := range acts {
		if a.Screen == nil {
			continue
		}
		c := markOK
		if a.Error != "" {
			c = markBad
		}
		x, y := (float64(a.Screen[0])-ox)*sx, (float64(a.Screen[1])-oy)*sy
		if a.To != nil {
			tx, ty := (float64(a.To[0])-ox)*sx, (float64(a.To[1])-oy)*sy
			line(out, x, y, tx, ty, r/4, c)
			ang := math.Atan2(ty-y, tx-x)
			for _, d := range []float64{2.6, -2.6} {
				line(out, tx, ty, tx+r*math.Cos(ang+d), ty+r*math.Sin(ang+d), r/4, c)
			}
		}
		ring(out, x, y, r, r/4+1.5, color.White)
		ring(out, x, y, r, r/4, c)
		disc(out, x, y, r/5, c)
	}
	return out
}

// ring draws a circle outline of radius r and stroke width w centred at (x, y).
func ring(dst *image.RGBA, x, y, r, w float64, c color.Color) {
	paint(dst, x-r-w, y-r-w, x+r+w, y+r+w, c, func(px, py float64) bool {
		d := math.Hypot(px-x, py-y)
		return math.Abs(d-r) <= w/2
	})
}

// disc draws a filled circle.
func disc(dst *image.RGBA, x, y, r float64, c color.Color) {
	paint(dst, x-r, y-r, x+r, y+r, c, func(px, py float64) bool { return math.Hypot(px-x, py-y) <= r })
}

// line draws a segment of width w.
func line(dst *image.RGBA, x1, y1, x2, y2, w float64, c color.Color) {
	dx, dy := x2-x1, y2-y1
	l2 := dx*dx + dy*dy
	paint(dst, math.Min(x1, x2)-w, math.Min(y1, y2)-w, math.Max(x1, x2)+w, math.Max(y1, y2)+w, c,
		func(px, py float64) bool {
			t := 0.0
			if l2 > 0 {
				t = math.Max(0, math.Min(1, ((px-x1)*dx+(py-y1)*dy)/l2))
			}
			return math.Hypot(px-(x1+t*dx), py-(y1+t*dy)) <= w/2
		})
}

// paint sets the pixels inside the box for which in reports true.
func paint(dst *image.RGBA, x0, y0, x1, y1 float64, c color.Color, in func(x, y float64) bool) {
	r := image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x1))+1, int(math.Ceil(y1))+1).Intersect(dst.Bounds())
	for py := r.Min.Y; py < r.Max.Y; py++ {
		for px := r.Min.X; px < r.Max.X; px++ {
			if in(float64(px)+0.5, float64(py)+0.5) {
				dst.Set(px, py, c)
			}
		}
	}
}
