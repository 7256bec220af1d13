// Package calibrate measures which coordinate convention a model's points
// follow (`deskpilot doctor --calibrate`). It shows labelled round targets at
// known places of a monitor (corners, edges, centre), asks the configured
// model, in its own dialect, to click each by its label, and fits the
// answers against every convention models are known to use: pixels of the
// image it was sent, 0–1000, 0–999, 0–1, smart-resize pixels (factor 28 and
// 32), screen pixels; each also with x and y swapped and with the monitor's
// offset in the root window. Per convention it reports the median and worst
// error in screen pixels, says which ones land within the targets, and
// names the settings that make deskpilot read the model that way.
//
// The fit and the settings are pure (fit.go, settings.go); the window is
// an override-redirect X window (window_x11.go); Run ties them to a model.
package calibrate

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Target is one labelled target, in root coordinates.
type Target struct {
	Label  string
	Center image.Point
	Radius int // the target's radius: a click within it lands
}

// Layout places nine targets on a monitor (bounds in root coordinates):
// the four corners, the four edge middles and the centre, each inset so the
// whole target shows. The radius is 3% of the shorter side, at least 16 px.
func Layout(bounds image.Rectangle) []Target {
	w, h := bounds.Dx(), bounds.Dy()
	r := max(16, min(w, h)*3/100)
	inset := func(n int) int { return max(r*2, n*8/100) }
	xs := []int{inset(w), w / 2, w - 1 - inset(w)}
	ys := []int{inset(h), h / 2, h - 1 - inset(h)}
	labels := []string{"A", "B", "C", "D", "E", "F", "G", "H", "J"}
	var out []Target
	i := 0
	for _, y := range ys {
		for _, x := range xs {
			out = append(out, Target{Label: labels[i], Center: bounds.Min.Add(image.Pt(x, y)), Radius: r})
			i++
		}
	}
	return out
}

// Paint draws the targets of one monitor on an image of its size: a light
// grey page, each target a dark ring with a red centre dot and its label in
// large letters beside it.
func Paint(bounds image.Rectangle, targets []Target) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, bounds.Dx(), bounds.Dy()))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{0xee, 0xee, 0xe8, 0xff}), image.Point{}, draw.Src)
	face := labelFace(float64(targets[0].Radius) * 1.6)
	for _, t := range targets {
		c := t.Center.Sub(bounds.Min)
		disc(img, c, t.Radius, color.RGBA{0x20, 0x40, 0x90, 0xff})
		disc(img, c, t.Radius*3/4, color.RGBA{0xff, 0xff, 0xff, 0xff})
		disc(img, c, max(t.Radius/4, 3), color.RGBA{0xd0, 0x10, 0x10, 0xff})
		if face == nil {
			continue
		}
		d := font.Drawer{Dst: img, Src: image.NewUniform(color.RGBA{0x10, 0x10, 0x10, 0xff}), Face: face}
		adv := d.MeasureString(t.Label).Round()
		x := c.X + t.Radius + t.Radius/3
		if x+adv >= img.Rect.Dx() {
			x = c.X - t.Radius - t.Radius/3 - adv
		}
		d.Dot = fixed.P(x, c.Y+t.Radius/2)
		d.DrawString(t.Label)
	}
	return img
}

// labelFace is Go Bold at size px; nil if the font does not load.
func labelFace(px float64) font.Face {
	f, err := opentype.Parse(gobold.TTF)
	if err != nil {
		return nil
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: px, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil
	}
	return face
}

func disc(img *image.RGBA, c image.Point, r int, col color.RGBA) {
	for y := -r; y <= r; y++ {
		for x := -r; x <= r; x++ {
			if math.Hypot(float64(x), float64(y)) <= float64(r) {
				img.SetRGBA(c.X+x, c.Y+y, col)
			}
		}
	}
}
