package agent

import (
	"context"
	"image"
	"testing"
	"time"

	"deskpilot/vision"
	"deskpilot/vision/screen"
	"deskpilot/vision/xdisplay"
)

// wholeShots captures the display part of the test display's root, as a
// plain vision.Capturer; rectShots can capture any rectangle of the root too,
// as internal/desktop's Desktop can.
type wholeShots struct {
	s       *screen.Screen
	display image.Rectangle
}

func (w wholeShots) Capture(ctx context.Context) (*image.RGBA, error) {
	return w.s.Capture(ctx, w.display)
}

type rectShots struct{ wholeShots }

func (r rectShots) CaptureRect(ctx context.Context, rr image.Rectangle) (*image.RGBA, error) {
	return r.s.Capture(ctx, rr)
}

// TestAroundClick checks that the picture around a click is the same
// whether the area is captured alone or cut from a whole frame, on a display
// at the root's origin or elsewhere on it, where the area is clipped too.
func TestAroundClick(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	d, err := xdisplay.Attach("")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	app, err := d.StartApp(ctx, "xmessage", "-geometry", "+300+200", "around the click")
	if err != nil {
		t.Fatal(err)
	}
	defer app.Stop()
	w, err := d.WaitWindow(ctx, "xmessage")
	if err != nil {
		t.Fatal(err)
	}
	s, err := screen.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	root, err := s.Capture(ctx, image.Rectangle{})
	if err != nil {
		t.Fatal(err)
	}
	mid := w.Bounds.Min.Add(w.Bounds.Size().Div(2))
	for _, display := range []image.Rectangle{root.Rect, image.Rect(250, 150, root.Rect.Dx(), root.Rect.Dy())} {
		for _, at := range []image.Point{mid, display.Min.Add(image.Pt(3, 3)), display.Max.Sub(image.Pt(2, 2))} {
			want := vision.Crop(root, clickArea.Add(at).Intersect(display))
			whole := wholeShots{s, display}
			for name, c := range map[string]vision.Capturer{"rectangle": rectShots{whole}, "whole frame": whole} {
				ti := &trackedInput{screen: c, display: display}
				got, err := ti.around(ctx, at)
				if err != nil {
					t.Fatal(err)
				}
				if !vision.Same(got, want, nil) {
					t.Errorf("display %v, click at %v, %s: got %v, want the %v around it", display, at, name, got.Rect, want.Rect)
				}
			}
		}
	}
	// The area at the window's middle shows the window: the comparison
	// above is not between two blank pictures.
	if vision.Same(vision.Crop(root, clickArea.Add(mid)), vision.Crop(root, clickArea.Add(image.Pt(10, 700))), nil) {
		t.Error("the area around the window looks like an empty corner of the screen")
	}
}

// BenchmarkAroundClick is the picture of the area around a click taken
// before every click and every 15 ms while keys wait for the click's answer:
// the area alone, against cutting it from a whole frame of the 1280x800 test
// display.
func BenchmarkAroundClick(b *testing.B) {
	s, err := screen.Open("")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	display := image.Rect(0, 0, 1280, 800)
	whole := wholeShots{s, display}
	for name, c := range map[string]vision.Capturer{"rectangle": rectShots{whole}, "whole_frame": whole} {
		b.Run(name, func(b *testing.B) {
			ti := &trackedInput{screen: c, display: display}
			for b.Loop() {
				if _, err := ti.around(b.Context(), image.Pt(640, 400)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
