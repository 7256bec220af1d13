package vision

import (
	"context"
	"errors"
	"image"
	"image/color"
	"sync"
	"testing"
	"time"
)

// script is a Capturer that returns a scripted sequence of frames, repeating
// the last one when the script runs out (or, with cycle, starting over).
type script struct {
	mu     sync.Mutex
	frames []*image.RGBA
	cycle  bool
	calls  int
	err    error // returned from the call after the script, when set
}

func (s *script) Capture(ctx context.Context) (*image.RGBA, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	i := s.calls
	s.calls++
	if i >= len(s.frames) {
		if s.err != nil {
			return nil, s.err
		}
		if s.cycle {
			i %= len(s.frames)
		} else {
			i = len(s.frames) - 1
		}
	}
	return s.frames[i], nil
}

// frame returns a 100x100 white frame with n pixels of the first rows set
// to shade, so frames differ by exactly the pixels named.
func frame(n int, shade uint8) *image.RGBA {
	m := whiteImage(100, 100)
	for i := range n {
		m.SetRGBA(i%100, i/100, color.RGBA{shade, shade, shade, 255})
	}
	return m
}

func TestSettle(t *testing.T) {
	a, b, c := frame(0, 0), frame(500, 0), frame(5000, 80)
	blink := frame(3, 0) // 3 of 10000 pixels: under a threshold of 0.001
	fast := SettleOptions{Interval: time.Millisecond, Timeout: time.Minute, Threshold: 0.001}
	tests := []struct {
		name        string
		before      *image.RGBA
		frames      []*image.RGBA
		cycle       bool
		opts        SettleOptions
		wantFrame   *image.RGBA
		wantSettled bool
		wantChanged bool
		wantCalls   int // 0: not checked
	}{
		{"nothing happens", a, []*image.RGBA{a}, false, fast, a, true, false, 4},
		{"change already done", a, []*image.RGBA{b, b}, false, fast, b, true, true, 2},
		{"animation then still", a, []*image.RGBA{a, b, c, b, c, c}, false, fast, c, true, true, 6},
		{"late change is waited for", a, []*image.RGBA{a, a, a, b, b}, false, fast, b, true, true, 5},
		{"blinking caret counts as still", a, []*image.RGBA{b, blink, blink}, false, fast, blink, true, true, 3},
		{"no patience", a, []*image.RGBA{a, a, b}, false, SettleOptions{Interval: time.Millisecond, Timeout: time.Minute, Patience: -1}, a, true, false, 2},
		{"exact threshold sees the caret", a, []*image.RGBA{a, blink, a, blink, blink}, false,
			SettleOptions{Interval: time.Millisecond, Timeout: time.Minute, Threshold: -1}, blink, true, true, 5},
		{"nil before counts as changed", nil, []*image.RGBA{a}, false, fast, a, true, true, 2},
		{"video never settles", a, []*image.RGBA{b, c}, true, SettleOptions{Interval: time.Millisecond, Timeout: 30 * time.Millisecond}, nil, false, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{frames: tt.frames, cycle: tt.cycle}
			res, err := Settle(t.Context(), s, tt.before, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Settled != tt.wantSettled || res.Changed != tt.wantChanged {
				t.Errorf("Settled, Changed = %v, %v; want %v, %v", res.Settled, res.Changed, tt.wantSettled, tt.wantChanged)
			}
			if tt.wantFrame != nil && res.Frame != tt.wantFrame {
				t.Errorf("returned frame %d of the script, want %d", indexOf(tt.frames, res.Frame), indexOf(tt.frames, tt.wantFrame))
			}
			if tt.wantCalls != 0 && s.calls != tt.wantCalls {
				t.Errorf("captured %d frames, want %d", s.calls, tt.wantCalls)
			}
			if res.Elapsed <= 0 {
				t.Errorf("Elapsed = %v, want > 0", res.Elapsed)
			}
		})
	}
}

func indexOf(frames []*image.RGBA, f *image.RGBA) int {
	for i, g := range frames {
		if g == f {
			return i
		}
	}
	return -1
}

func TestSettleStops(t *testing.T) {
	a, b := frame(0, 0), frame(5000, 0)
	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		s := &script{frames: []*image.RGBA{a, b}, cycle: true}
		done := make(chan error, 1)
		go func() {
			_, err := Settle(ctx, s, a, SettleOptions{Interval: time.Millisecond, Timeout: time.Hour})
			done <- err
		}()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want context.Canceled", err)
		}
	})
	t.Run("capture error", func(t *testing.T) {
		boom := errors.New("display gone")
		s := &script{frames: []*image.RGBA{a, b}, err: boom}
		_, err := Settle(t.Context(), s, a, SettleOptions{Interval: time.Millisecond, Timeout: time.Hour})
		if !errors.Is(err, boom) {
			t.Errorf("error = %v, want it to wrap %v", err, boom)
		}
	})
}

func TestDiffFraction(t *testing.T) {
	a := frame(0, 0)
	tests := []struct {
		name string
		b    *image.RGBA
		want float64
	}{
		{"same", frame(0, 0), 0},
		{"one pixel", frame(1, 0), 0.0001},
		{"odd pixel count", frame(333, 9), 0.0333},
		{"all", frame(10000, 1), 1},
		{"other size", whiteImage(100, 99), 1},
		{"alpha only", func() *image.RGBA { m := frame(0, 0); m.Pix[4*57+3] = 0; return m }(), 0.0001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DiffFraction(a, tt.b); got != tt.want {
				t.Errorf("DiffFraction = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("odd width and sub-images", func(t *testing.T) {
		x, y := whiteImage(7, 3), whiteImage(9, 5)
		y.SetRGBA(7, 3, color.RGBA{0, 0, 0, 255}) // last column of the sub-image
		sub := y.SubImage(image.Rect(1, 1, 8, 4)).(*image.RGBA)
		if got := DiffFraction(x, sub); got != 1.0/21 {
			t.Errorf("DiffFraction = %v, want 1/21", got)
		}
	})
	t.Run("empty", func(t *testing.T) {
		e := image.NewRGBA(image.Rectangle{})
		if got := DiffFraction(e, e); got != 0 {
			t.Errorf("DiffFraction of empty images = %v, want 0", got)
		}
	})
}

func TestSettleIgnoresOwnWindow(t *testing.T) {
	a := frame(0, 0)
	// Only pixels in rows 0-9 change: deskpilot's live view.
	live := []*image.RGBA{frame(1000, 10), frame(1000, 20), frame(1000, 30), frame(1000, 40)}
	opts := SettleOptions{Interval: time.Millisecond, Timeout: time.Minute, Threshold: -1}
	t.Run("ignored", func(t *testing.T) {
		o := opts
		o.Ignore = []image.Rectangle{image.Rect(0, 0, 100, 10)}
		res, err := Settle(t.Context(), &script{frames: live, cycle: true}, a, o)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Settled || res.Changed {
			t.Errorf("Settled, Changed = %v, %v; want true, false", res.Settled, res.Changed)
		}
	})
	t.Run("not ignored", func(t *testing.T) {
		o := opts
		o.Timeout = 20 * time.Millisecond
		res, err := Settle(t.Context(), &script{frames: live, cycle: true}, a, o)
		if err != nil {
			t.Fatal(err)
		}
		if res.Settled || !res.Changed {
			t.Errorf("Settled, Changed = %v, %v; want false, true", res.Settled, res.Changed)
		}
	})
}

func TestComparedSpans(t *testing.T) {
	r := image.Rect(10, 0, 110, 50) // frame at x=10
	tests := []struct {
		name   string
		y      int
		ignore []image.Rectangle
		want   [][2]int
	}{
		{"none", 5, nil, [][2]int{{0, 100}}},
		{"other rows", 30, []image.Rectangle{image.Rect(20, 0, 40, 10)}, [][2]int{{0, 100}}},
		{"middle", 5, []image.Rectangle{image.Rect(20, 0, 40, 10)}, [][2]int{{0, 10}, {30, 100}}},
		{"two overlapping", 5, []image.Rectangle{image.Rect(20, 0, 40, 10), image.Rect(30, 0, 60, 10)}, [][2]int{{0, 10}, {50, 100}}},
		{"two apart", 5, []image.Rectangle{image.Rect(0, 0, 20, 10), image.Rect(100, 0, 200, 10)}, [][2]int{{10, 90}}},
		{"everything", 5, []image.Rectangle{image.Rect(0, 0, 500, 500)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := compared(nil, nil, r, tt.y, tt.ignore)
			if len(got) != len(tt.want) {
				t.Fatalf("compared = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("compared = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestSameIgnoresRects(t *testing.T) {
	a := image.NewRGBA(image.Rect(0, 0, 40, 30))
	b := image.NewRGBA(image.Rect(0, 0, 40, 30))
	b.Set(35, 25, color.RGBA{255, 0, 0, 255})
	if Same(a, b, nil) {
		t.Error("frames that differ in one pixel are the same")
	}
	if !Same(a, b, []image.Rectangle{image.Rect(30, 20, 40, 30)}) {
		t.Error("the difference inside an ignored rectangle counts")
	}
	if Same(a, image.NewRGBA(image.Rect(0, 0, 40, 31)), nil) || Same(nil, b, nil) {
		t.Error("frames of different sizes, or a nil one, are the same")
	}
}

// into is a scripted IntoCapturer: CaptureInto copies the next scripted
// frame into dst and records which buffers it wrote.
type into struct {
	script
	wrote []*image.RGBA
}

func (c *into) CaptureInto(ctx context.Context, dst *image.RGBA) (*image.RGBA, error) {
	f, err := c.Capture(ctx)
	if err != nil || dst.Rect.Size() != f.Rect.Size() {
		return f, err
	}
	copy(dst.Pix, f.Pix)
	c.wrote = append(c.wrote, dst)
	return dst, nil
}

// TestSettleReusesSpentFrames checks that Settle writes its later captures
// into frames it has finished with, and never into before or the frame it
// returns.
func TestSettleReusesSpentFrames(t *testing.T) {
	a, b, c := frame(0, 0), frame(500, 0), frame(5000, 80)
	// The script's frames are copied, so Settle sees fresh buffers for the
	// first two captures and may reuse them after that.
	s := &into{script: script{frames: []*image.RGBA{b, c, b, c, b, c, c}}}
	before := Crop(a, a.Rect)
	res, err := Settle(t.Context(), s, before, SettleOptions{Interval: time.Millisecond, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Settled || !res.Changed {
		t.Fatalf("Settled, Changed = %v, %v; want true, true", res.Settled, res.Changed)
	}
	if !Same(res.Frame, c, nil) {
		t.Error("the returned frame does not show the last capture")
	}
	if !Same(before, a, nil) {
		t.Error("before was written")
	}
	if len(s.wrote) != s.calls-2 {
		t.Errorf("%d of %d captures reused a frame, want all but the first two", len(s.wrote), s.calls)
	}
	seen := map[*image.RGBA]bool{}
	for _, f := range s.wrote {
		if f == before {
			t.Error("a capture was written into before")
		}
		seen[f] = true
	}
	if len(seen) > 2 {
		t.Errorf("captures went into %d different buffers, want at most 2", len(seen))
	}
	// The returned frame is written last and never again: the frame before
	// it (the settled pair's first) must differ from it as a buffer.
	if n := len(s.wrote); n > 0 && s.wrote[n-1] != res.Frame {
		t.Error("the returned frame is not the last capture")
	}
}
