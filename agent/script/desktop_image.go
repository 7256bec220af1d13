package script

import (
	"deskpilot/actions"

	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"math"

	"deskpilot/vision"
)

// imageSize is the size of the screenshot the model sees.
func (d *desktop) imageSize() image.Point {
	if s := d.Mapper.Image; s.X > 0 && s.Y > 0 {
		return s
	}
	return d.Mapper.Display.Size()
}

// capture returns a fresh full-resolution frame of the target display.
func (d *desktop) capture(ctx context.Context) (*image.RGBA, error) {
	if d.Frames == nil {
		return nil, errors.New("no screen capture is available")
	}
	f, err := d.Frames.Capture(ctx)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	return f, nil
}

func (d *desktop) screenshot(c *Call, _ *Args) error {
	start := c.Now()
	act := actions.Record{Name: c.Name, Start: start}
	frame, err := d.capture(c.Ctx)
	if err == nil {
		img := vision.Downscale(frame, d.imageSize())
		c.Attach(Attachment{Label: "screenshot taken by screenshot() during the block", Image: img})
		act.Result = fmt.Sprintf("attached %dx%d", img.Rect.Dx(), img.Rect.Dy())
	} else {
		act.Result, act.Error = "failed", err.Error()
	}
	act.Duration = c.Now().Sub(start)
	c.Log(act)
	return err
}

func (d *desktop) zoom(c *Call, a *Args) error {
	m1, s1, err := d.point(a, "x1", "y1")
	if err != nil {
		return err
	}
	_, s2, err := d.point(a, "x2", "y2")
	if err != nil {
		return err
	}
	start := c.Now()
	act := actions.Record{Name: c.Name, Args: c.ArgsText(), Start: start,
		Model: &[2]float64{m1.X, m1.Y}, Screen: &[2]int{s1.X, s1.Y}, To: &[2]int{s2.X, s2.Y}}
	// The region spans both corner pixels, in screen coordinates.
	r := image.Rect(min(s1.X, s2.X), min(s1.Y, s2.Y), max(s1.X, s2.X)+1, max(s1.Y, s2.Y)+1)
	frame, err := d.capture(c.Ctx)
	if err == nil {
		// The frame shows Display; its own bounds may start at 0,0.
		fr := r.Sub(d.Mapper.Display.Min).Add(frame.Rect.Min).Intersect(frame.Rect)
		img, scale := fitZoom(crop(frame, fr), d.imageSize())
		c.Attach(Attachment{
			Label: fmt.Sprintf("zoom(%s): screen region %dx%d at (%d, %d) shown at %s; its pixels are not click coordinates",
				act.Args, fr.Dx(), fr.Dy(), r.Min.X, r.Min.Y, scale),
			Image: img,
		})
		act.Result = fmt.Sprintf("attached %dx%d (%s)", img.Rect.Dx(), img.Rect.Dy(), scale)
	} else {
		act.Result, act.Error = "failed", err.Error()
	}
	act.Duration = c.Now().Sub(start)
	c.Log(act)
	return err
}

// crop copies r of src into a new image with its origin at 0,0.
func crop(src *image.RGBA, r image.Rectangle) *image.RGBA {
	dst := image.NewRGBA(image.Rectangle{Max: r.Size()})
	draw.Draw(dst, dst.Rect, src, r.Min, draw.Src)
	return dst
}

// fitZoom sizes a zoom crop for the model: a crop larger than the screenshot
// size is scaled down to fit it, a small one enlarged by the largest whole
// factor (at most MaxZoomFactor) that fits; scale describes what was done.
func fitZoom(img *image.RGBA, limit image.Point) (out *image.RGBA, scale string) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if w == 0 || h == 0 {
		return img, "1x"
	}
	if w > limit.X || h > limit.Y {
		f := math.Min(float64(limit.X)/float64(w), float64(limit.Y)/float64(h))
		size := image.Pt(max(1, int(float64(w)*f+0.5)), max(1, int(float64(h)*f+0.5)))
		return vision.Downscale(img, size), fmt.Sprintf("%.2fx (scaled down to fit)", f)
	}
	k := min(limit.X/w, limit.Y/h, MaxZoomFactor)
	if k < 2 {
		return img, "1x (full resolution)"
	}
	return enlarge(img, k), fmt.Sprintf("%dx (each screen pixel as %dx%d)", k, k, k)
}

// enlarge scales src by the whole factor k with nearest neighbour, so
// pixel edges stay sharp.
func enlarge(src *image.RGBA, k int) *image.RGBA {
	w, h := src.Rect.Dx(), src.Rect.Dy()
	dst := image.NewRGBA(image.Rect(0, 0, w*k, h*k))
	for y := range h {
		srow := src.Pix[src.PixOffset(src.Rect.Min.X, src.Rect.Min.Y+y):][: w*4 : w*4]
		drow := dst.Pix[dst.PixOffset(0, y*k):][: w*k*4 : w*k*4]
		for x := range w {
			px := srow[x*4 : x*4+4]
			for i := range k {
				copy(drow[(x*k+i)*4:], px)
			}
		}
		for i := 1; i < k; i++ {
			copy(dst.Pix[dst.PixOffset(0, y*k+i):], drow)
		}
	}
	return dst
}

func roundInt(f float64) int { return int(math.Round(f)) }
