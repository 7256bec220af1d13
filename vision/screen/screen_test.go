//go:build linux

package screen

import (
	"cmp"
	"context"
	"errors"
	"image"
	"image/color"
	"os"
	"slices"
	"sync"
	"testing"

	"deskpilot/internal/xconn"
	"deskpilot/vision/xdisplay"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/randr"
	"github.com/jezek/xgb/xproto"
)

func TestMain(m *testing.M) {
	os.Exit(xdisplay.Main(m, xdisplay.Options{NoWindowManager: true}))
}

var (
	background = color.RGBA{1, 2, 3, 255}
	red        = color.RGBA{255, 0, 0, 255}
	green      = color.RGBA{0, 255, 0, 255}
	blue       = color.RGBA{0, 0, 255, 255}
	odd        = color.RGBA{17, 200, 99, 255}
)

// pattern paints a known layout on a w x h screen: a uniform background, three
// adjacent squares from (100,50), and a 1x1 dot in the bottom-right corner.
// background and odd default to colours that only a 24-bit display shows exactly.
func pattern(w, h int, background, odd color.RGBA) []patch {
	return []patch{
		{image.Rect(0, 0, w, h), background},
		{image.Rect(100, 50, 140, 90), red},
		{image.Rect(140, 50, 180, 90), green},
		{image.Rect(180, 50, 220, 90), blue},
		{image.Rect(w-1, h-1, w, h), odd},
	}
}

// patternPixels are the root pixels pattern guarantees, including the edges.
func patternPixels(w, h int, background, odd color.RGBA) map[image.Point]color.RGBA {
	return map[image.Point]color.RGBA{
		{0, 0}: background, {99, 50}: background, {100, 49}: background,
		{100, 50}: red, {139, 89}: red, {120, 70}: red,
		{140, 50}: green, {179, 89}: green,
		{180, 50}: blue, {219, 89}: blue, {220, 89}: background, {180, 90}: background,
		{w - 1, h - 1}: odd, {w - 2, h - 1}: background, {w - 1, h - 2}: background,
	}
}

func TestCaptureFullScreen(t *testing.T) {
	tests := []struct {
		name    string
		opts    xdisplay.Options // zero: Main's display
		noSHM   bool
		wantSHM bool
		bg, odd color.RGBA // zero: the 24-bit colours
	}{
		{name: "shm", wantSHM: true},
		{name: "getimage", noSHM: true},
		{name: "1080p_shm", opts: xdisplay.Options{Width: 1920, Height: 1080, NoWindowManager: true}, wantSHM: true},
		{name: "1080p_getimage", opts: xdisplay.Options{Width: 1920, Height: 1080, NoWindowManager: true}, noSHM: true},
		{
			name: "depth16_odd_width", opts: xdisplay.Options{Width: 641, Height: 480, Depth: 16, NoWindowManager: true}, wantSHM: true,
			// Exact in RGB565: 5- and 6-bit maxima scale back to 255.
			bg: color.RGBA{255, 255, 255, 255}, odd: color.RGBA{255, 0, 255, 255},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := os.Getenv("DISPLAY")
			var s *Screen
			if tt.opts == (xdisplay.Options{}) {
				var err error
				if s, err = Open(""); err != nil {
					t.Fatal(err)
				}
				defer s.Close()
			} else {
				d := startDisplay(t, tt.opts)
				s, name = openScreen(t, d), d.Name
			}
			if tt.noSHM {
				s.DisableSHM()
			}
			size, err := s.Size()
			if err != nil {
				t.Fatal(err)
			}
			w, h := size.X, size.Y
			bg, dot := cmp.Or(tt.bg, background), cmp.Or(tt.odd, odd)
			paint(t, name, pattern(w, h, bg, dot)...)
			img, err := s.Capture(t.Context(), image.Rectangle{})
			if err != nil {
				t.Fatal(err)
			}
			if img.Rect != image.Rect(0, 0, w, h) {
				t.Fatalf("bounds %v, want %dx%d", img.Rect, w, h)
			}
			checkPixels(t, img, patternPixels(w, h, bg, dot))
			if s.SHM() != tt.wantSHM {
				t.Errorf("SHM() = %v after capture, want %v", s.SHM(), tt.wantSHM)
			}
		})
	}
}

// openPainted opens Main's display, closed when the test ends, with the test
// pattern painted over the whole root, and returns the root's size.
func openPainted(t *testing.T) (*Screen, image.Point) {
	t.Helper()
	s, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	size, err := s.Size()
	if err != nil {
		t.Fatal(err)
	}
	paint(t, os.Getenv("DISPLAY"), pattern(size.X, size.Y, background, odd)...)
	return s, size
}

func TestCaptureRegion(t *testing.T) {
	s, size := openPainted(t)
	tests := []struct {
		name string
		r    image.Rectangle
		want map[image.Point]color.RGBA // image coordinates
	}{
		{
			name: "straddling_squares",
			r:    image.Rect(130, 60, 190, 100),
			want: map[image.Point]color.RGBA{{0, 0}: red, {9, 29}: red, {10, 0}: green, {49, 29}: green, {50, 0}: blue, {59, 29}: blue, {0, 30}: background},
		},
		{
			name: "single_pixel",
			r:    image.Rect(180, 50, 181, 51),
			want: map[image.Point]color.RGBA{{0, 0}: blue},
		},
		{
			name: "bottom_right_corner",
			r:    image.Rect(size.X-3, size.Y-2, size.X, size.Y),
			want: map[image.Point]color.RGBA{{2, 1}: odd, {1, 1}: background, {2, 0}: background},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, err := s.Region(tt.r).Capture(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if img.Rect != (image.Rectangle{Max: tt.r.Size()}) {
				t.Fatalf("bounds %v, want (0,0)-%v", img.Rect, tt.r.Size())
			}
			checkPixels(t, img, tt.want)
		})
	}
}

func TestCaptureErrors(t *testing.T) {
	s, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	size, err := s.Size()
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		r    image.Rectangle
	}{
		{"outside", t.Context(), image.Rect(size.X, 0, size.X+10, 10)},
		{"overlapping_edge", t.Context(), image.Rect(size.X-5, 0, size.X+5, 10)},
		{"negative", t.Context(), image.Rect(-1, -1, 10, 10)},
		{"empty", t.Context(), image.Rect(10, 10, 10, 20)},
		{"cancelled", cancelled, image.Rect(0, 0, 10, 10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if img, err := s.Capture(tt.ctx, tt.r); err == nil {
				t.Fatalf("Capture(%v) = %v, want an error", tt.r, img.Rect)
			}
		})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Capture(t.Context(), image.Rect(0, 0, 1, 1)); !errors.Is(err, ErrClosed) {
		t.Errorf("Capture after Close: %v, want ErrClosed", err)
	}
}

func TestConcurrentCaptures(t *testing.T) {
	s, _ := openPainted(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			// Different sizes force the shared segment to be used by all of them.
			r := image.Rect(100, 50, 140+10*i, 90)
			for range 10 {
				img, err := s.Capture(t.Context(), r)
				if err != nil {
					errs <- err
					return
				}
				if got := img.RGBAAt(0, 0); got != red {
					errs <- errors.New("wrong pixel under concurrency")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCursor(t *testing.T) {
	s, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, want := range []image.Point{{123, 45}, {0, 0}, {1279, 799}} {
		if err := xproto.WarpPointerChecked(s.conn, 0, s.root, 0, 0, 0, 0, int16(want.X), int16(want.Y)).Check(); err != nil {
			t.Fatal(err)
		}
		got, err := s.Cursor()
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("Cursor() = %v after warping to %v", got, want)
		}
	}
}

func TestDisplays(t *testing.T) {
	t.Run("single", func(t *testing.T) {
		s, err := Open("")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ds, err := s.Displays()
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) != 1 || ds[0].Bounds != image.Rect(0, 0, 1280, 800) || ds[0].Index != 0 {
			t.Errorf("Displays() = %+v, want one 1280x800 display", ds)
		}
	})
	t.Run("setmonitor", func(t *testing.T) {
		d := startDisplay(t, xdisplay.Options{Width: 3000, Height: 1080, NoWindowManager: true})
		s := openScreen(t, d)
		if err := xconn.Enable(s.conn, xconn.RandR); err != nil {
			t.Fatal(err)
		}
		res, err := randr.GetScreenResources(s.conn, s.root).Reply()
		if err != nil || len(res.Outputs) == 0 {
			t.Fatalf("screen resources: %v, %d outputs", err, len(res.Outputs))
		}
		// Like xrandr --setmonitor: LEFT takes over Xvfb's one output (replacing its
		// automatic monitor), RIGHT has none; RIGHT is defined first.
		setMonitor(t, s.conn, s.root, "RIGHT", image.Rect(1920, 0, 3000, 1080), false)
		setMonitor(t, s.conn, s.root, "LEFT", image.Rect(0, 0, 1920, 1080), true, res.Outputs[0])
		ds, err := s.Displays()
		if err != nil {
			t.Fatal(err)
		}
		want := []Display{
			{Index: 0, Name: "LEFT", Bounds: image.Rect(0, 0, 1920, 1080), Primary: true},
			{Index: 1, Name: "RIGHT", Bounds: image.Rect(1920, 0, 3000, 1080)},
		}
		if !equalDisplays(ds, want) {
			t.Errorf("Displays() = %+v\nwant %+v", ds, want)
		}
	})
}

func setMonitor(t *testing.T, c *xgb.Conn, root xproto.Window, name string, r image.Rectangle, primary bool, outputs ...randr.Output) {
	t.Helper()
	a, err := xproto.InternAtom(c, false, uint16(len(name)), name).Reply()
	if err != nil {
		t.Fatal(err)
	}
	m := randr.MonitorInfo{Name: a.Atom, Primary: primary, X: int16(r.Min.X), Y: int16(r.Min.Y),
		Width: uint16(r.Dx()), Height: uint16(r.Dy()), WidthInMillimeters: uint32(r.Dx() / 4), HeightInMillimeters: uint32(r.Dy() / 4),
		NOutput: uint16(len(outputs)), Outputs: outputs}
	if err := randr.SetMonitorChecked(c, root, m).Check(); err != nil {
		t.Fatalf("set monitor %s: %v", name, err)
	}
}

func equalDisplays(a, b []Display) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestOpenAuth: a display with a cookie of its own is captured through its
// authority file while $XAUTHORITY names another display's (as in one process
// watching several private displays); Open alone cannot reach it.
func TestOpenAuth(t *testing.T) {
	d := startDisplay(t, xdisplay.Options{Width: 640, Height: 480, NoWindowManager: true})
	mine := os.Getenv("XAUTHORITY")
	t.Setenv("XAUTHORITY", d.XAuthority) // paint goes through xgb's own lookup
	paint(t, d.Name, pattern(640, 480, background, odd)...)
	t.Setenv("XAUTHORITY", mine)

	if s, err := Open(d.Name); err == nil {
		s.Close()
		t.Fatalf("Open(%s) with another display's authority connected: the test proves nothing", d.Name)
	}
	s, err := OpenAuth(d.Name, d.XAuthority)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	img, err := s.Capture(t.Context(), image.Rectangle{})
	if err != nil {
		t.Fatal(err)
	}
	if img.Rect != image.Rect(0, 0, 640, 480) {
		t.Fatalf("bounds %v, want the 640x480 display", img.Rect)
	}
	checkPixels(t, img, patternPixels(640, 480, background, odd))
}

// TestCaptureInto checks that a frame handed back is written over in place
// when it fits, with what the display shows now, and is left alone otherwise.
func TestCaptureInto(t *testing.T) {
	s, size := openPainted(t)
	name := os.Getenv("DISPLAY")
	first, err := s.Capture(t.Context(), image.Rectangle{})
	if err != nil {
		t.Fatal(err)
	}
	// Another picture, then the capture into the first frame.
	paint(t, name, patch{image.Rectangle{Max: size}, green})
	got, err := s.CaptureInto(t.Context(), image.Rectangle{}, first)
	if err != nil {
		t.Fatal(err)
	}
	if got != first || &got.Pix[0] != &first.Pix[0] {
		t.Fatal("a frame of the right size was not reused")
	}
	checkPixels(t, got, map[image.Point]color.RGBA{{0, 0}: green, {size.X - 1, size.Y - 1}: green, {size.X / 2, size.Y / 2}: green})

	// A region written into a reused frame gets the region's bounds.
	r := image.Rect(10, 20, 50, 40)
	small := image.NewRGBA(image.Rect(5, 5, 45, 25)) // same size, other origin
	got, err = s.Region(r).CaptureInto(t.Context(), small)
	if err != nil {
		t.Fatal(err)
	}
	if got != small || got.Rect != (image.Rectangle{Max: r.Size()}) {
		t.Fatalf("region into a same-size frame: reused %v, bounds %v", got == small, got.Rect)
	}
	checkPixels(t, got, map[image.Point]color.RGBA{{0, 0}: green, {39, 19}: green})

	// Frames that do not fit are left alone: another size, or a sub-image
	// whose rows are not packed.
	wrong := image.NewRGBA(image.Rect(0, 0, 3, 3))
	sub := first.SubImage(r).(*image.RGBA)
	for _, dst := range []*image.RGBA{wrong, sub} {
		before := slices.Clone(dst.Pix[:4*dst.Rect.Dx()])
		got, err := s.Region(r).CaptureInto(t.Context(), dst)
		if err != nil {
			t.Fatal(err)
		}
		if got == dst || got.Rect != (image.Rectangle{Max: r.Size()}) {
			t.Fatalf("dst %v: reused %v, bounds %v", dst.Rect, got == dst, got.Rect)
		}
		if !slices.Equal(before, dst.Pix[:4*dst.Rect.Dx()]) {
			t.Errorf("dst %v was written although it does not fit", dst.Rect)
		}
	}
}
