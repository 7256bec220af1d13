//go:build linux

package desktop

import (
	"context"
	"strings"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/vision/wldisplay"
)

// checkHoldsKeys holds Shift across two key presses into a terminal running
// `cat > file` and lets it go (with the run stopped) before a third: the
// file must hold "XYz".
func checkHoldsKeys(t *testing.T, d *Desktop, file string) {
	t.Helper()
	h, ok := d.Input().(actions.Holder)
	if !ok {
		t.Fatalf("the %s input %T cannot hold keys or buttons", d.Backend(), d.Input())
	}
	in := d.Input()
	shift := combo(t, "shift")
	if err := h.KeyDown(t.Context(), shift); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"x", "y"} {
		if err := in.Press(t.Context(), combo(t, c)); err != nil {
			t.Fatal(err)
		}
	}
	// Releasing works after Stop (a cancelled ctx), as the X11 robot's does:
	// the held key must not outlive the run that pressed it.
	stopped, stop := context.WithCancel(t.Context())
	stop()
	if err := h.KeyUp(stopped, shift); err != nil {
		t.Fatalf("key up after Stop: %v", err)
	}
	for _, c := range []string{"z", "enter"} {
		if err := in.Press(t.Context(), combo(t, c)); err != nil {
			t.Fatal(err)
		}
	}
	if got := waitFileHolds(t, file, "XYz\n"); got != "XYz\n" {
		t.Errorf("the file holds %q, want XYz and a newline: shift held for x and y only", got)
	}
}

// checkHoldsButton presses the left button on ok, zenity's OK, and leaves it
// down: zenity must not answer until the button comes up there (GTK acts
// on the release), and then print its entry ("held").
func checkHoldsButton(t *testing.T, d *Desktop, a *wldisplay.App, ok actions.Point) {
	t.Helper()
	h, isHolder := d.Input().(actions.Holder)
	if !isHolder {
		t.Fatalf("the %s input %T cannot hold keys or buttons", d.Backend(), d.Input())
	}
	if err := h.ButtonDown(t.Context(), ok, actions.Left); err != nil {
		t.Fatal(err)
	}
	if err := h.ButtonDown(t.Context(), ok, actions.Left); err == nil {
		t.Error("a second ButtonDown of the held button succeeded")
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if out, err := a.Wait(ctx); err == nil {
		t.Fatalf("zenity exited on the press alone, printing %q: the button was not held", out)
	}
	if err := h.ButtonUp(t.Context(), ok, actions.Left); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel2()
	if out, err := a.Wait(ctx2); err != nil || out != "held\n" {
		t.Fatalf("zenity printed %q (%v) after the release at %v", out, err, ok)
	}
	if err := h.ButtonUp(t.Context(), ok, actions.Left); err == nil || !strings.Contains(err.Error(), "not down") {
		t.Errorf("ButtonUp with nothing down: %v", err)
	}
}
