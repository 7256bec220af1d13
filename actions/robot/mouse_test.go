//go:build linux

package robot

import (
	"context"
	"errors"
	"image"
	"strings"
	"testing"

	"deskpilot/actions"
	"deskpilot/vision/xdisplay"
)

func TestClickHitsWidget(t *testing.T) {
	tg := startTarget(t)
	for _, widget := range []string{"btn_b", "btn_a", "btn_c"} {
		t.Run(widget, func(t *testing.T) {
			p := tg.center(widget)
			if err := tg.r.Click(t.Context(), p, actions.Left, 1); err != nil {
				t.Fatal(err)
			}
			e := tg.next("a press", func(e event) bool { return e.Ev == "press" })
			if e.W != widget || e.B != 1 || e.X != p.X || e.Y != p.Y {
				t.Errorf("click at %v arrived as %v, want a left press on %s there", p, e, widget)
			}
			e = tg.next("a release", func(e event) bool { return e.Ev == "release" })
			if e.W != widget || e.B != 1 {
				t.Errorf("release arrived as %v, want left on %s", e, widget)
			}
		})
	}
}

func TestClickButtonsAndCounts(t *testing.T) {
	tg := startTarget(t)
	tests := []struct {
		name   string
		button actions.Button
		n      int
		want   string // event logged by the last press
		xb     int
	}{
		{"right", actions.Right, 1, "press", 3},
		{"middle", actions.Middle, 1, "press", 2},
		{"double", actions.Left, 2, "double", 1},
		{"triple", actions.Left, 3, "triple", 1},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tg.at("canvas", 100+150*i, 80+40*i)
			if err := tg.r.Click(t.Context(), p, tt.button, tt.n); err != nil {
				t.Fatal(err)
			}
			evs := tg.until(tt.want, func(e event) bool { return e.Ev == tt.want && e.B == tt.xb })
			last := evs[len(evs)-1]
			if last.W != "canvas" || last.X != p.X || last.Y != p.Y {
				t.Errorf("%s click at %v arrived as %v", tt.name, p, last)
			}
			// a double click is one single press and then a double; two
			// single presses in a row would mean the presses were too far apart
			presses := 0
			for _, e := range evs {
				if e.Ev == "press" || e.Ev == "double" || e.Ev == "triple" {
					presses++
				}
			}
			if presses != tt.n {
				t.Errorf("%d presses arrived (%v), want %d", presses, evs, tt.n)
			}
			tg.next("the last release", func(e event) bool { return e.Ev == "release" })
		})
	}
}

func TestDrag(t *testing.T) {
	tg := startTarget(t)
	from, to := tg.at("canvas", 60, 50), tg.at("canvas", 700, 260)
	if err := tg.r.Drag(t.Context(), from, to); err != nil {
		t.Fatal(err)
	}
	press := tg.next("the press", func(e event) bool { return e.Ev == "press" })
	if press.B != 1 || press.X != from.X || press.Y != from.Y || press.W != "canvas" {
		t.Errorf("drag started with %v, want a left press at %v", press, from)
	}
	evs := tg.until("the release", func(e event) bool { return e.Ev == "release" })
	release := evs[len(evs)-1]
	if release.B != 1 || release.X != to.X || release.Y != to.Y {
		t.Errorf("drag ended with %v, want a left release at %v", release, to)
	}
	const button1Mask = 0x100
	moves, lastX := 0, from.X
	for _, e := range evs[:len(evs)-1] {
		if e.Ev != "motion" {
			t.Errorf("unexpected %v during the drag", e)
			continue
		}
		if e.State&button1Mask == 0 || e.X < lastX {
			t.Errorf("motion %v during the drag: want button 1 held and x moving right", e)
		}
		lastX = e.X
		moves++
	}
	if moves < minDragSteps/2 {
		t.Errorf("%d motion events during the drag, want a movement in steps", moves)
	}
	if s := serverState(t); s&button1Mask != 0 {
		t.Errorf("button 1 still down after the drag (state %#x)", s)
	}
}

func TestDragCancelledReleases(t *testing.T) {
	tg := startTarget(t)
	ctx, cancel := context.WithCancel(t.Context())
	from, to := tg.at("canvas", 60, 50), tg.at("canvas", 700, 260)
	done := make(chan error, 1)
	go func() { done <- tg.r.Drag(ctx, from, to) }()
	tg.next("a motion with button 1", func(e event) bool { return e.Ev == "motion" && e.State&0x100 != 0 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Drag after cancel = %v, want context.Canceled", err)
	}
	e := tg.next("the release", func(e event) bool { return e.Ev == "release" })
	if e.B != 1 || e.X == to.X {
		t.Errorf("cancelled drag ended with %v, want a left release before reaching %v", e, to)
	}
	if s := serverState(t); s&0x100 != 0 {
		t.Errorf("button 1 still down after the cancelled drag (state %#x)", s)
	}
}

func TestScroll(t *testing.T) {
	tg := startTarget(t)
	// Tk 8.6 reports the horizontal wheel (X buttons 6 and 7) as Shift with
	// buttons 4 and 5.
	tests := []struct {
		d      actions.Direction
		amount int
		xb     int
		shift  bool
	}{
		{actions.ScrollDown, 3, 5, false}, {actions.ScrollUp, 1, 4, false},
		{actions.ScrollLeft, 2, 4, true}, {actions.ScrollRight, 4, 5, true},
	}
	for i, tt := range tests {
		t.Run(string(tt.d), func(t *testing.T) {
			p := tg.at("canvas", 200+50*i, 100)
			if err := tg.r.Scroll(t.Context(), p, tt.d, tt.amount); err != nil {
				t.Fatal(err)
			}
			sentinel := tg.at("canvas", 600, 250+i)
			if err := tg.r.Move(t.Context(), sentinel); err != nil {
				t.Fatal(err)
			}
			evs := tg.until("the motion to the sentinel", func(e event) bool {
				return e.Ev == "motion" && e.X == sentinel.X && e.Y == sentinel.Y
			})
			wheel := 0
			for _, e := range evs {
				if e.Ev == "press" && e.B == tt.xb && e.X == p.X && e.Y == p.Y && e.W == "canvas" && (e.State&1 != 0) == tt.shift {
					wheel++
				} else if e.Ev == "press" {
					t.Errorf("unexpected %v", e)
				}
			}
			if wheel != tt.amount {
				t.Errorf("scroll %s %d at %v gave %d presses of button %d (shift %v): %v", tt.d, tt.amount, p, wheel, tt.xb, tt.shift, evs)
			}
		})
	}
}

func TestMoveAndCursor(t *testing.T) {
	tg := startTarget(t)
	for i, p := range []actions.Point{tg.at("canvas", 10, 10), tg.at("canvas", 500, 222)} {
		if err := tg.r.Move(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		e := tg.next("a motion", func(e event) bool { return e.Ev == "motion" && e.X == p.X && e.Y == p.Y })
		if e.W != "canvas" {
			t.Errorf("move %d arrived as %v", i, e)
		}
		got, err := tg.r.Cursor()
		if err != nil || got != p {
			t.Errorf("Cursor() = %v, %v after moving to %v", got, err, p)
		}
	}
}

func TestBoundsAndValidation(t *testing.T) {
	tg := startTarget(t)
	canvas := tg.widgets["canvas"]
	r, err := New("", canvas)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	start := tg.at("canvas", 5, 5)
	if err := r.Move(t.Context(), start); err != nil {
		t.Fatal(err)
	}
	outside := actions.Point{X: canvas.Max.X, Y: canvas.Min.Y + 10}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name string
		call func() error
		want func(error) bool
	}{
		{"click outside", func() error { return r.Click(t.Context(), outside, actions.Left, 1) }, isOutOfBounds},
		{"move outside", func() error { return r.Move(t.Context(), outside) }, isOutOfBounds},
		{"drag to outside", func() error { return r.Drag(t.Context(), start, outside) }, isOutOfBounds},
		{"scroll outside", func() error { return r.Scroll(t.Context(), outside, actions.ScrollDown, 1) }, isOutOfBounds},
		{"zero clicks", func() error { return r.Click(t.Context(), start, actions.Left, 0) }, isErr},
		{"four clicks", func() error { return r.Click(t.Context(), start, actions.Left, 4) }, isErr},
		{"bad button", func() error { return r.Click(t.Context(), start, actions.Button(9), 1) }, isErr},
		{"bad direction", func() error { return r.Scroll(t.Context(), start, "north", 1) }, isErr},
		{"zero scroll", func() error { return r.Scroll(t.Context(), start, actions.ScrollUp, 0) }, isErr},
		{"cancelled click", func() error { return r.Click(cancelled, start, actions.Left, 1) }, isCanceled},
		{"cancelled type", func() error { return r.Type(cancelled, "x") }, isCanceled},
		{"cancelled press", func() error { return r.Press(cancelled, combo(t, "x")) }, isCanceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); !tt.want(err) {
				t.Errorf("got %v", err)
			}
			if got, err := r.Cursor(); err != nil || got != start {
				t.Errorf("pointer at %v (%v) after a refused call, want it left at %v", got, err, start)
			}
		})
	}
	// what arrived: nothing from the refused calls, then this click
	p := tg.at("canvas", 30, 40)
	if err := r.Click(t.Context(), p, actions.Left, 1); err != nil {
		t.Fatal(err)
	}
	evs := tg.until("the press inside the bounds", func(e event) bool { return e.Ev == "press" && e.X == p.X && e.Y == p.Y })
	for _, e := range evs[:len(evs)-1] {
		if e.Ev == "press" || e.Ev == "key" {
			t.Errorf("a refused call still produced %v", e)
		}
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		display string
		bounds  image.Rectangle
		wantErr bool
	}{
		{"whole screen", "", image.Rectangle{}, false},
		{"part of the screen", "", image.Rect(100, 100, 500, 400), false},
		{"bounds beyond the screen", "", image.Rect(0, 0, 5000, 400), true},
		{"missing display", t.TempDir() + "/none:0", image.Rectangle{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := New(tt.display, tt.bounds)
			if (err != nil) != tt.wantErr {
				t.Fatalf("New(%q, %v) error = %v, want error %v", tt.display, tt.bounds, err, tt.wantErr)
			}
			if err != nil {
				return
			}
			want := tt.bounds
			if want.Empty() {
				want = r.Bounds()
				if want.Min != (image.Point{}) || want.Dx() < 100 {
					t.Errorf("Bounds() = %v, want the root window", want)
				}
			}
			if r.Bounds() != want {
				t.Errorf("Bounds() = %v, want %v", r.Bounds(), want)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			if err := r.Move(t.Context(), actions.Point{X: 200, Y: 200}); !errors.Is(err, ErrClosed) {
				t.Errorf("Move after Close = %v, want ErrClosed", err)
			}
			if _, err := r.Cursor(); !errors.Is(err, ErrClosed) {
				t.Errorf("Cursor after Close = %v, want ErrClosed", err)
			}
			if err := r.Close(); err != nil {
				t.Errorf("second Close = %v", err)
			}
		})
	}
}

func isOutOfBounds(err error) bool {
	var oob *actions.OutOfBoundsError
	return errors.As(err, &oob)
}

func isErr(err error) bool { return err != nil }

func isCanceled(err error) bool { return errors.Is(err, context.Canceled) }

// TestNewAuth: a display with a cookie of its own is driven through its
// authority file while $XAUTHORITY names another display's; xdotool, a client
// of that display, sees the pointer where the Robot put it. New alone cannot
// reach the display.
func TestNewAuth(t *testing.T) {
	d, err := xdisplay.Start(t.Context(), xdisplay.Options{Width: 640, Height: 480, NoWindowManager: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if r, err := New(d.Name, image.Rectangle{}); err == nil {
		r.Close()
		t.Fatalf("New(%s) with another display's authority connected: the test proves nothing", d.Name)
	}
	r, err := NewAuth(d.Name, d.XAuthority, image.Rectangle{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Bounds() != image.Rect(0, 0, 640, 480) {
		t.Errorf("Bounds() = %v, want the 640x480 display", r.Bounds())
	}
	if err := r.Move(t.Context(), actions.Point{X: 321, Y: 123}); err != nil {
		t.Fatal(err)
	}
	out, err := d.Command(t.Context(), "xdotool", "getmouselocation").Output()
	if err != nil {
		t.Fatalf("xdotool: %v", err)
	}
	if !strings.HasPrefix(string(out), "x:321 y:123 ") {
		t.Errorf("xdotool sees the pointer at %q, want x:321 y:123", out)
	}
}
