//go:build linux

package desktop

import (
	"image"
	"os"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/actions/robot"
	"deskpilot/internal/xconn"
)

// TestOwnInput: a person's pointer and keys in a window of this process are
// reported (OwnInput); in another program's window they are not.
func TestOwnInput(t *testing.T) {
	x := attach(t)
	c, err := xconn.Dial("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { xconn.Close(c) })
	person, err := robot.New("", image.Rectangle{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { person.Close() })
	ctx := t.Context()
	if err := person.Move(ctx, actions.Point{X: 1200, Y: 60}); err != nil { // away from both windows
		t.Fatal(err)
	}
	own := newXWindow(t, c, "owninput-own", image.Rect(40, 300, 340, 500), os.Getpid())
	other := newXWindow(t, c, "owninput-other", image.Rect(700, 300, 1000, 500), os.Getpid()+100000)
	fo := other.show(t, x, "owninput-other")
	f := own.show(t, x, "owninput-own")

	for _, backend := range testBackends {
		t.Run(backend, func(t *testing.T) {
			d := openTest(t, Options{Backend: backend, HasWindow: true})
			deadline := time.Now().Add(30 * time.Second)
			for !in(f.Min.Add(image.Pt(5, 5)), d.OwnWindows()) { // listed: its input is watched
				if time.Now().After(deadline) {
					t.Fatalf("OwnWindows = %v, want %v", d.OwnWindows(), f)
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err := person.Move(ctx, actions.Point{X: 1200, Y: 60}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond)
			start := d.OwnInput()

			// Another program's window: nothing to report.
			mid := fo.Min.Add(fo.Size().Div(2))
			for _, p := range []image.Point{mid, mid.Add(image.Pt(20, 10))} {
				if err := person.Move(ctx, actions.Point{X: p.X, Y: p.Y}); err != nil {
					t.Fatal(err)
				}
			}
			if err := person.Click(ctx, actions.Point{X: mid.X, Y: mid.Y}, actions.Left, 1); err != nil {
				t.Fatal(err)
			}
			time.Sleep(500 * time.Millisecond)
			if got := d.OwnInput(); !got.Equal(start) {
				t.Fatalf("input in another program's window was reported as deskpilot's (%v)", got)
			}

			// Ours: the pointer moving over it and a click there are.
			before := time.Now()
			inside := f.Min.Add(f.Size().Div(2))
			if err := person.Click(ctx, actions.Point{X: inside.X, Y: inside.Y}, actions.Left, 1); err != nil {
				t.Fatal(err)
			}
			waitInput(t, d, before, "the click in deskpilot's window")

			// A key pressed while ours has the focus.
			own.raise(t)
			time.Sleep(300 * time.Millisecond)
			before = time.Now()
			if err := person.Press(ctx, actions.Combo{Key: "a"}); err != nil {
				t.Fatal(err)
			}
			waitInput(t, d, before, "the key in deskpilot's window")

			// Leaving it is the way back from it.
			before = time.Now()
			if err := person.Move(ctx, actions.Point{X: 1200, Y: 60}); err != nil {
				t.Fatal(err)
			}
			waitInput(t, d, before, "the pointer leaving deskpilot's window")
		})
	}
}

// waitInput waits until d reports own input after since.
func waitInput(t *testing.T, d *Desktop, since time.Time, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !d.OwnInput().After(since) {
		if time.Now().After(deadline) {
			t.Fatalf("%s was not reported (last own input %v)", what, d.OwnInput())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestOwnInputWithoutWindow: a desktop that shows no window reports none.
func TestOwnInputWithoutWindow(t *testing.T) {
	attach(t)
	d := openTest(t, Options{Backend: "x11"})
	if got := d.OwnInput(); !got.IsZero() {
		t.Errorf("OwnInput = %v, want zero", got)
	}
}
