//go:build linux && cgo && !noocr

package ocr

import (
	"context"
	"errors"
	"image"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/internal/testapps"
	"deskpilot/vision"
)

// An Xaw xmessage has no accessibility and draws its labels in a small
// bitmap font inside oval outlines: the hardest common case. The test finds
// "Charlie" by its text alone, clicks it with real input, and xmessage's own
// output proves which button was pressed.
func TestXmessageClickCharlie(t *testing.T) {
	k := startDesk(t, 1366, 768)
	blank := k.settled(t)
	app, err := k.d.StartApp(t.Context(), "xmessage", "-buttons", "Alpha,Bravo,Charlie", "-print",
		"Pick one of the buttons below, please.")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = app.Stop() })
	// Wait for the window's pixels rather than the window manager's client
	// list, which under load sometimes never listed xmessage.
	waitFor(t, "xmessage's window", func() bool {
		img, err := k.screen.Capture(t.Context(), image.Rectangle{})
		return err == nil && vision.DiffFraction(blank, img) > 0.005
	})
	r := newTestReader(t, Options{})
	txt, err := r.Read(t.Context(), k.settled(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, label := range []string{"Alpha", "Bravo", "Pick one of the buttons"} {
		mustFind(t, txt, label)
	}
	m := mustFind(t, txt, "Charlie")
	if m.Score < scoreLookPart {
		t.Errorf("Charlie matched with score %v: %+v", m.Score, m)
	}
	c := m.Center()
	if err := k.robot.Click(t.Context(), actions.Point{X: c.X, Y: c.Y}, actions.Left, 1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "xmessage to exit", app.Exited)
	// Output mixes stderr in (Xaw may warn about missing charsets first):
	// the button name is the last line.
	out := strings.Split(strings.TrimSpace(app.Output()), "\n")
	if got := out[len(out)-1]; got != "Charlie" {
		t.Fatalf("xmessage printed %q, want Charlie last (clicked %v)", app.Output(), c)
	}
}

// The Tk form at two screen sizes: the labels are found inside the widgets
// the app reports, clicking the text "Save" saves, and text typed into a
// field is read back there.
func TestTkForm(t *testing.T) {
	for _, size := range []image.Point{{1920, 1080}, {1366, 768}} {
		t.Run(size.String(), func(t *testing.T) {
			k := startDesk(t, size.X, size.Y)
			form := testapps.StartForm(t, k.d)
			r := newTestReader(t, Options{})
			txt, err := r.Read(t.Context(), k.settled(t))
			if err != nil {
				t.Fatal(err)
			}
			for text, widget := range map[string]string{"Save": "save", "not saved": "status"} {
				want, err := form.Widget(widget)
				if err != nil {
					t.Fatal(err)
				}
				if m := mustFind(t, txt, text); !m.Center().In(want) {
					t.Errorf("%q found at %v, outside the %s widget %v", text, m.Box, widget, want)
				}
			}
			mustFind(t, txt, "Name")
			mustFind(t, txt, "Notes")

			name, err := form.Widget("name")
			if err != nil {
				t.Fatal(err)
			}
			typeInto(t, k, name, "Hello OCR 42")
			save := mustFind(t, txt, "Save")
			click(t, k, save.Center())
			waitFor(t, "the form to save", func() bool { _, _, err := form.Saved(); return err == nil })
			if got, _, _ := form.Saved(); got != "Hello OCR 42" {
				t.Errorf("form saved name %q", got)
			}

			txt, err = r.Read(t.Context(), k.settled(t))
			if err != nil {
				t.Fatal(err)
			}
			if m := mustFind(t, txt, "Hello OCR 42"); !m.Center().In(name) {
				t.Errorf("typed text found at %v, outside the name field %v", m.Box, name)
			}
			status, _ := form.Widget("status")
			if m := mustFind(t, txt, "saved"); !m.Center().In(status) {
				t.Errorf("status found at %v, outside %v", m.Box, status)
			}
		})
	}
}

func click(t *testing.T, k *desk, p image.Point) {
	t.Helper()
	if err := k.robot.Click(t.Context(), actions.Point{X: p.X, Y: p.Y}, actions.Left, 1); err != nil {
		t.Fatal(err)
	}
}

// typeInto clicks into a field and types text once the field has the focus
// (the window manager moves the focus a moment after the click).
func typeInto(t *testing.T, k *desk, field image.Rectangle, text string) {
	t.Helper()
	click(t, k, center(field))
	time.Sleep(300 * time.Millisecond)
	if err := k.robot.Type(t.Context(), text); err != nil {
		t.Fatal(err)
	}
}

// An unchanged screen is never read twice; a change is read again, and only
// the segments whose pixels changed are.
func TestCache(t *testing.T) {
	k := startDesk(t, 1280, 800)
	form := testapps.StartForm(t, k.d)
	r := newTestReader(t, Options{})
	frame := k.settled(t)
	if _, err := r.Read(t.Context(), frame); err != nil {
		t.Fatal(err)
	}
	first := r.Stats()
	if first.Recognized == 0 {
		t.Fatal("the first read recognised nothing")
	}

	txt, err := r.Read(t.Context(), k.settled(t)) // a new capture of the same screen
	if err != nil {
		t.Fatal(err)
	}
	second := r.Stats()
	if n := second.Recognized - first.Recognized; n != 0 {
		t.Errorf("an unchanged screen was read again: %d segments", n)
	}
	if bands := int64(len(bands(frame.Rect, bandHeight, overlap))); second.BandHits-first.BandHits != bands {
		t.Errorf("band hits %d, want all %d bands", second.BandHits-first.BandHits, bands)
	}
	mustFind(t, txt, "Save")

	name, err := form.Widget("name")
	if err != nil {
		t.Fatal(err)
	}
	typeInto(t, k, name, "Changed region")
	txt, err = r.Read(t.Context(), k.settled(t))
	if err != nil {
		t.Fatal(err)
	}
	third := r.Stats()
	reread := third.Recognized - second.Recognized
	if reread == 0 || reread >= first.Recognized {
		t.Errorf("after a change %d segments were read again, want some but fewer than the first read's %d",
			reread, first.Recognized)
	}
	if m := mustFind(t, txt, "Changed region"); !m.Center().In(name) {
		t.Errorf("typed text found at %v, outside the name field %v", m.Box, name)
	}
	mustFind(t, txt, "Notes") // from the cache or read again, still there
}

// gated wraps an engine: before the first recognition it calls onFirst and
// waits for release, so a test can cancel while Tesseract is busy.
type gated struct {
	engine
	calls   *atomic.Int32
	onFirst func()
	release <-chan struct{}
}

func (g gated) recognize(img *image.Gray, scale float64) ([]rawWord, error) {
	if g.calls.Add(1) == 1 {
		g.onFirst()
		<-g.release
	}
	return g.engine.recognize(img, scale)
}

// Cancelling a Read returns at once, even while Tesseract is busy; the
// segments it had queued are dropped, not read.
func TestCancel(t *testing.T) {
	real, err := defaultEngine()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	release := make(chan struct{})
	var calls atomic.Int32
	o := Options{Workers: 2}.withDefaults()
	r := newReader(o, func() (engine, error) {
		e, err := real()
		return gated{engine: e, calls: &calls, onFirst: cancel, release: release}, err
	})
	frame := loadPNG(t, "../testdata/busy1080.png")
	_, err = r.Read(ctx, frame)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Read after cancel: %v, want context.Canceled", err)
	}
	// Read returned while the first recognition is still held: it never
	// waits for Tesseract.
	close(release)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if got := r.Stats().Recognized; got > int64(o.Workers) {
		t.Errorf("%d segments read after the cancel, want at most the %d in flight", got, o.Workers)
	}
	if _, err := r.Read(t.Context(), frame); !errors.Is(err, ErrClosed) {
		t.Errorf("Read after Close: %v, want ErrClosed", err)
	}
}

// A Read whose ctx is already done reads nothing.
func TestReadCancelledBefore(t *testing.T) {
	r := newTestReader(t, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := r.Read(ctx, image.NewRGBA(image.Rect(0, 0, 64, 64))); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read = %v, want context.Canceled", err)
	}
	if n := r.Stats().Recognized; n != 0 {
		t.Errorf("%d segments read", n)
	}
}

func TestReadBadFrames(t *testing.T) {
	r := newTestReader(t, Options{})
	tests := []struct {
		name    string
		frame   *image.RGBA
		wantErr bool
	}{
		{"nil", nil, true},
		{"too wide", &image.RGBA{Rect: image.Rect(0, 0, MaxSide+1, 1)}, true},
		{"empty", image.NewRGBA(image.Rectangle{}), false},
		{"blank", image.NewRGBA(image.Rect(0, 0, 300, 200)), false},
		{"one pixel", image.NewRGBA(image.Rect(0, 0, 1, 1)), false},
		{"offset origin", image.NewRGBA(image.Rect(100, 100, 300, 200)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			txt, err := r.Read(t.Context(), tt.frame)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Read: %v, want error %v", err, tt.wantErr)
			}
			if err == nil && len(txt.Lines) != 0 {
				t.Errorf("read %q on a blank frame", txt)
			}
		})
	}
}

// The busy desktop fixture: dark and light terminals, a Tk dialog, a photo.
// Light-on-dark text is read like dark-on-light.
func TestReadBusyFixture(t *testing.T) {
	r := newTestReader(t, Options{})
	txt, err := r.Read(t.Context(), loadPNG(t, "../testdata/busy1080.png"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Option 3: enable feature number 21", // Tk, light
		"Downloads", "Cancel",
		"[kworker/R-writeback]", "[khugepaged]", // xterm, light on dark
		"ypdomainname -> hostname", "zipdetails", // xterm, dark on light
	} {
		mustFind(t, txt, want)
	}
	// A line across a band edge (row 160) is read once, whole.
	if m := mustFind(t, txt, "xzcmp -> xzdiff"); m.Box.Min.Y >= bandHeight || m.Box.Max.Y <= bandHeight {
		t.Errorf("the line at %v does not cross the band edge: the test lost its point", m.Box)
	}
	for i, a := range txt.Lines {
		for _, b := range txt.Lines[i+1:] {
			if in := a.Box.Intersect(b.Box); 2*area(in) > area(a.Box) || 2*area(in) > area(b.Box) {
				t.Errorf("lines %q %v and %q %v overlap: read twice?", a.Text, a.Box, b.Text, b.Box)
			}
		}
	}
}
