package wlroots

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"deskpilot/actions/keysym"
	"deskpilot/vision/wldisplay"
)

// startSway starts a private headless sway for one test, or skips naming
// the missing package.
func startSway(t *testing.T, o wldisplay.SwayOptions) *wldisplay.Sway {
	t.Helper()
	s, err := wldisplay.StartSway(t.Context(), o)
	if wldisplay.IsMissing(err) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func dial(t *testing.T, s *wldisplay.Sway) *Client {
	t.Helper()
	c, err := Dial(t.Context(), s.Socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// startCat starts foot running cat > file and waits for its window.
func startCat(t *testing.T, s *wldisplay.Sway) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "typed.txt")
	a, err := s.Start("foot", "-o", "font=monospace:size=10", "sh", "-c", "cat > "+file)
	if err != nil {
		t.Skip("foot:", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := s.WaitWindow(ctx, a.PID()); err != nil {
		t.Fatalf("%v\nfoot said: %s", err, a.Output())
	}
	return file
}

// waitFile waits until file holds want (at most 10 s) and returns what it holds.
func waitFile(t *testing.T, file, want string) string {
	t.Helper()
	var got string
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(file)
		if got = string(b); got == want {
			break
		}
	}
	return got
}

func TestOutputs(t *testing.T) {
	s := startSway(t, wldisplay.SwayOptions{Width: 1920, Height: 1080, Scale: 2})
	c := dial(t, s)
	outs := c.Outputs()
	if len(outs) != 1 {
		t.Fatalf("outputs: %+v", outs)
	}
	o := outs[0]
	if o.Name != "HEADLESS-1" || o.Pixels != image.Pt(1920, 1080) || o.Logical != image.Rect(0, 0, 960, 540) || o.Scale != 2 {
		t.Errorf("output: %+v", o)
	}
	if m := c.Missing(); len(m) != 0 {
		t.Errorf("missing: %v", m)
	}
}

func TestTypeUnicode(t *testing.T) {
	s := startSway(t, wldisplay.SwayOptions{Width: 1280, Height: 720})
	file := startCat(t, s)
	c := dial(t, s)
	kb, err := c.NewKeyboard(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	text := "Hello, Wayland! äöü ß € 日本語 ✓ 😀 ~`{}|\"<>?\n"
	syms, err := keysym.Text(text)
	if err != nil {
		t.Fatal(err)
	}
	if err := kb.Type(t.Context(), syms, 0); err != nil {
		t.Fatal(err)
	}
	if got := waitFile(t, file, text); got != text {
		t.Errorf("typed %q, the file holds %q", text, got)
	}
}

func TestCaptureMatchesGrim(t *testing.T) {
	s := startSway(t, wldisplay.SwayOptions{Width: 1920, Height: 1080})
	startCat(t, s)
	c := dial(t, s)
	path := filepath.Join(t.TempDir(), "grim.png")
	// grim's PNG against captures just before and after it that agree, so a
	// window still drawing cannot make them differ.
	for try := 0; ; try++ {
		before, err := c.Capture(t.Context(), "HEADLESS-1", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Grim(t.Context(), "HEADLESS-1", path); err != nil {
			t.Fatal(err)
		}
		got, err := c.Capture(t.Context(), "HEADLESS-1", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before.Pix, got.Pix) && try < 20 {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		f, _ := os.Open(path)
		want, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if want.Bounds() != got.Bounds() {
			t.Fatalf("grim %v, capture %v", want.Bounds(), got.Bounds())
		}
		diff := 0
		for y := 0; y < got.Rect.Dy(); y++ {
			for x := 0; x < got.Rect.Dx(); x++ {
				r, g, b, _ := want.At(x, y).RGBA()
				c := got.RGBAAt(x, y)
				if uint8(r>>8) != c.R || uint8(g>>8) != c.G || uint8(b>>8) != c.B {
					diff++
				}
			}
		}
		if diff > 0 {
			t.Errorf("%d pixels differ from grim's; at (5,5) grim %v, capture %v", diff, want.At(5, 5), got.RGBAAt(5, 5))
		}
		return
	}
}

// TestCaptureFollowsTheScreen: after the screen changes, the next capture
// shows the change (the stream's damage copies keep up), and on a still
// screen captures agree.
func TestCaptureFollowsTheScreen(t *testing.T) {
	s := startSway(t, wldisplay.SwayOptions{})
	startCat(t, s)
	c := dial(t, s)
	kb, err := c.NewKeyboard(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.Capture(t.Context(), "HEADLESS-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	syms, _ := keysym.Text("XXXXXXXXXXXXXXXXXXXX")
	if err := kb.Type(t.Context(), syms, 0); err != nil {
		t.Fatal(err)
	}
	changed := false
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end) && !changed; time.Sleep(10 * time.Millisecond) {
		f, err := c.Capture(t.Context(), "HEADLESS-1", nil)
		if err != nil {
			t.Fatal(err)
		}
		changed = !bytes.Equal(f.Pix, first.Pix)
	}
	if !changed {
		t.Fatal("the typed text never showed in a capture")
	}
}
