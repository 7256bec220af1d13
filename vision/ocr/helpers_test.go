//go:build linux && cgo && !noocr

package ocr

import (
	"context"
	"image"
	"image/draw"
	"image/png"
	"os"
	"testing"
	"time"

	"deskpilot/actions/robot"
	"deskpilot/vision"
	"deskpilot/vision/screen"
	"deskpilot/vision/xdisplay"
)

// desk is a private display with a screen to capture and a robot to click.
type desk struct {
	d      *xdisplay.Display
	screen *screen.Screen
	robot  *robot.Robot
}

// startDesk starts a private display of the given size with openbox and
// closes everything when the test ends.
func startDesk(tb testing.TB, w, h int) *desk {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d, err := xdisplay.Start(ctx, xdisplay.Options{Width: w, Height: h})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = d.Close() })
	tb.Setenv("XAUTHORITY", d.XAuthority)
	s, err := screen.Open(d.Name)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	r, err := robot.New(d.Name, image.Rectangle{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = r.Close() })
	return &desk{d: d, screen: s, robot: r}
}

// settled captures the screen once three captures 150 ms apart are
// identical (apps draw a little after their window appears).
func (k *desk) settled(tb testing.TB) *image.RGBA {
	tb.Helper()
	var last *image.RGBA
	still := 0
	waitFor(tb, "a still screen", func() bool {
		img, err := k.screen.Capture(tb.Context(), image.Rectangle{})
		if err != nil {
			tb.Fatal(err)
		}
		if last != nil && vision.DiffFraction(last, img) == 0 {
			still++
		} else {
			still = 0
		}
		last = img
		time.Sleep(100 * time.Millisecond)
		return still >= 2
	})
	return last
}

// newTestReader returns a Reader closed when the test ends.
func newTestReader(tb testing.TB, o Options) *Reader {
	tb.Helper()
	r, err := New(o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = r.Close() })
	return r
}

// loadPNG reads a PNG as *image.RGBA.
func loadPNG(tb testing.TB, path string) *image.RGBA {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		tb.Fatalf("decode %s: %v", path, err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Rect, img, img.Bounds().Min, draw.Src)
	return rgba
}

// mustFind returns the best match of text, failing with what was read.
func mustFind(tb testing.TB, txt *Text, text string) Match {
	tb.Helper()
	m := txt.Find(text, false)
	if len(m) == 0 {
		tb.Fatalf("%q not found; closest %v; read:\n%s", text, txt.Closest(text, 3), txt)
	}
	return m[0]
}

// waitFor polls cond every 50 ms until it holds or 20 s pass.
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
