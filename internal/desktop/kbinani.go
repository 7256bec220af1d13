//go:build cgo && (linux || windows || darwin)

package desktop

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	"slices"

	"github.com/kbinani/screenshot"
)

// kbinaniDisplays lists the monitors through kbinani/screenshot, ordered like
// the x11 backend's (left to right, then top to bottom). Bounds are in the
// desktop's coordinates: on Windows the virtual screen, whose origin is the
// primary monitor's top-left corner (monitors left of it have negative x).
func kbinaniDisplays() ([]Display, error) {
	n := screenshot.NumActiveDisplays()
	if n <= 0 {
		return nil, errors.New("kbinani/screenshot found no active display")
	}
	ds := make([]Display, 0, n)
	for i := range n {
		b := screenshot.GetDisplayBounds(i)
		if b.Empty() {
			continue
		}
		ds = append(ds, Display{Name: fmt.Sprintf("display-%d", i), Bounds: b, Primary: i == 0})
	}
	if len(ds) == 0 {
		return nil, errors.New("kbinani/screenshot: every display has empty bounds")
	}
	slices.SortStableFunc(ds, func(a, b Display) int {
		return cmp.Or(cmp.Compare(a.Bounds.Min.X, b.Bounds.Min.X), cmp.Compare(a.Bounds.Min.Y, b.Bounds.Min.Y))
	})
	for i := range ds {
		ds[i].Index = i
	}
	return ds, nil
}

// kbinaniCapture captures r (desktop coordinates, not empty) through
// kbinani/screenshot and returns it with bounds (0,0)-r.Size(), opaque.
func kbinaniCapture(ctx context.Context, r image.Rectangle) (*image.RGBA, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	if r.Empty() {
		return nil, fmt.Errorf("capture: rectangle %v is empty", r)
	}
	img, err := screenshot.CaptureRect(r)
	if err != nil {
		return nil, fmt.Errorf("capture %v: %w", r, err)
	}
	if img.Rect.Size() != r.Size() {
		return nil, fmt.Errorf("capture %v: got an image of %v", r, img.Rect.Size())
	}
	img.Rect = img.Rect.Sub(img.Rect.Min) // the pixels do not move: Pix is relative to Rect.Min
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 0xff
	}
	return img, nil
}
