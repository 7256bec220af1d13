//go:build linux

package desktop

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"deskpilot/actions"
	"deskpilot/internal/testapps"
	"deskpilot/internal/xconn"
	"deskpilot/vision/xdisplay"
)

// testBackends are the backends every Linux build must drive the same way.
var testBackends = []string{"x11", "robotgo"}

// openTest opens backend on the test display and closes it when the test ends.
func openTest(t *testing.T, o Options) *Desktop {
	t.Helper()
	d, err := Open(o)
	if err != nil {
		t.Fatalf("open %q: %v", o.Backend, err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return d
}

func attach(t testing.TB) *xdisplay.Display {
	t.Helper()
	x, err := xdisplay.Attach("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// center is the middle of a widget of the form.
func center(t *testing.T, f *testapps.Form, widget string) actions.Point {
	t.Helper()
	r, err := f.Widget(widget)
	if err != nil {
		t.Fatal(err)
	}
	return actions.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}
}

func combo(t *testing.T, s string) actions.Combo {
	t.Helper()
	c, err := actions.ParseCombo(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFormApp drives the Tk form with each backend: click into the fields,
// type, save with Ctrl+S, and read what the app saved.
func TestFormApp(t *testing.T) {
	// The field with characters outside the keymap is filled last: on the
	// x11 backend, after typing two or more of them into the Entry (ü and ß:
	// two borrowed keycodes), a click into the Text does not focus it (a
	// click on the Save button does work). That is actions/robot's keymap
	// borrowing meeting Tk, and is reported, not covered up: the order only
	// keeps this test about the backends.
	texts := []struct{ first, name, notes string }{
		{"notes", "Grüße, 東京 ✓", "line one\nline two\tend"},
		{"name", "plain ASCII: a+b=c? (100%) \"q\" ~!@#$^&*_{}|:<>", "naïve café — 100 € ± ½ «ok»\nПривет 😀 𝄞"},
	}
	for _, backend := range testBackends {
		t.Run(backend, func(t *testing.T) {
			x := attach(t)
			d := openTest(t, Options{Backend: backend})
			if d.Backend() != backend {
				t.Fatalf("Backend() = %q", d.Backend())
			}
			for i, tt := range texts {
				f := testapps.StartForm(t, x)
				in := d.Input()
				ctx := t.Context()
				fields := []string{"name", "notes"}
				if tt.first == "notes" {
					fields = []string{"notes", "name"}
				}
				for _, field := range fields {
					must(t, in.Click(ctx, center(t, f, field), actions.Left, 1))
					pace()
					text := tt.name
					if field == "notes" {
						text = tt.notes
					}
					must(t, in.Type(ctx, text))
				}
				must(t, in.Press(ctx, combo(t, "ctrl+s")))
				name, notes := waitSaved(t, f)
				if name != tt.name || notes != tt.notes {
					t.Errorf("text %d: saved name %q notes %q\nwant name %q notes %q", i, name, notes, tt.name, tt.notes)
				}
			}
		})
	}
}

// TestClickSaveButton clicks the Save button with each backend.
func TestClickSaveButton(t *testing.T) {
	for _, backend := range testBackends {
		t.Run(backend, func(t *testing.T) {
			x := attach(t)
			d := openTest(t, Options{Backend: backend})
			f := testapps.StartForm(t, x)
			ctx := t.Context()
			must(t, d.Input().Click(ctx, center(t, f, "name"), actions.Left, 1))
			pace()
			must(t, d.Input().Type(ctx, "clicked"))
			must(t, d.Input().Click(ctx, center(t, f, "save"), actions.Left, 1))
			if name, _ := waitSaved(t, f); name != "clicked" {
				t.Errorf("saved name %q, want %q", name, "clicked")
			}
			p, err := d.Input().Cursor()
			if err != nil || p != center(t, f, "save") {
				t.Errorf("cursor %v (%v), want it on Save at %v", p, err, center(t, f, "save"))
			}
		})
	}
}

// TestRefusals: points off the target and cancelled contexts send nothing.
func TestRefusals(t *testing.T) {
	for _, backend := range testBackends {
		t.Run(backend, func(t *testing.T) {
			d := openTest(t, Options{Backend: backend})
			in := d.Input()
			ctx := t.Context()
			must(t, in.Move(ctx, actions.Point{X: 40, Y: 40}))
			b := d.Target().Bounds
			var oob *actions.OutOfBoundsError
			for _, p := range []actions.Point{{X: -1, Y: 5}, {X: b.Max.X, Y: 5}, {X: 5, Y: b.Max.Y}} {
				if err := in.Click(ctx, p, actions.Left, 1); !errors.As(err, &oob) {
					t.Errorf("click at %v: %v, want an OutOfBoundsError", p, err)
				}
				if err := in.Drag(ctx, actions.Point{X: 50, Y: 50}, p); !errors.As(err, &oob) {
					t.Errorf("drag to %v: %v, want an OutOfBoundsError", p, err)
				}
			}
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			if err := in.Move(cancelled, actions.Point{X: 90, Y: 90}); !errors.Is(err, context.Canceled) {
				t.Errorf("move with a cancelled context: %v", err)
			}
			if err := in.Type(ctx, "bell\a"); err == nil {
				t.Error("typing a control character: no error")
			}
			if p, err := in.Cursor(); err != nil || p != (actions.Point{X: 40, Y: 40}) {
				t.Errorf("the pointer moved to %v (%v): a refused action sent input", p, err)
			}
		})
	}
}

// TestReleaseAllEndsHold: ReleaseAll during a Hold releases the keys at once.
func TestReleaseAllEndsHold(t *testing.T) {
	for _, backend := range testBackends {
		t.Run(backend, func(t *testing.T) {
			d := openTest(t, Options{Backend: backend})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			shift := combo(t, "shift")
			done := make(chan error, 1)
			go func() { done <- d.Input().Hold(ctx, shift, time.Hour) }()
			waitMask(t, xproto.ModMaskShift, true)
			must(t, d.Input().ReleaseAll())
			waitMask(t, xproto.ModMaskShift, false)
			cancel() // the hold still waits out its hour; cancelling ends it
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("hold ended with %v, want context.Canceled", err)
			}
		})
	}
}

// TestRobotgoRefusesOtherDisplays: robotgo drives $DISPLAY only.
func TestRobotgoRefusesOtherDisplays(t *testing.T) {
	t.Run("other display", func(t *testing.T) {
		_, err := Open(Options{Backend: "robotgo", XDisplay: ":4711"})
		if err == nil || !strings.Contains(err.Error(), "$DISPLAY") || !strings.Contains(err.Error(), ":4711") {
			t.Fatalf("open robotgo on :4711: %v", err)
		}
	})
	t.Run("same display named", func(t *testing.T) {
		openTest(t, Options{Backend: "robotgo", XDisplay: attach(t).Name})
	})
	t.Run("second in the process", func(t *testing.T) {
		openTest(t, Options{Backend: "robotgo"})
		if _, err := Open(Options{Backend: "robotgo"}); err == nil || !strings.Contains(err.Error(), "already open") {
			t.Fatalf("second robotgo desktop: %v", err)
		}
	})
	t.Run("no DISPLAY", func(t *testing.T) {
		t.Setenv("DISPLAY", "")
		if _, err := Open(Options{Backend: "robotgo"}); err == nil || !strings.Contains(err.Error(), "DISPLAY is not set") {
			t.Fatalf("robotgo without DISPLAY: %v", err)
		}
	})
	t.Run("display that does not answer", func(t *testing.T) {
		t.Setenv("DISPLAY", ":4711")
		if _, err := Open(Options{Backend: "robotgo"}); err == nil || !strings.Contains(err.Error(), "does not answer") {
			t.Fatalf("robotgo on a dead DISPLAY: %v", err)
		}
	})
	t.Run("unknown backend", func(t *testing.T) {
		if _, err := Open(Options{Backend: "wayland"}); err == nil || !strings.Contains(err.Error(), "robotgo, wlroots, x11") {
			t.Fatalf("unknown backend: %v", err)
		}
	})
}

// TestRobotgoUnmappedKey: a key missing from the keymap is refused with a
// reason (robotgo would end the process with an X error); x11 borrows a
// spare keycode and presses it.
func TestRobotgoUnmappedKey(t *testing.T) {
	d := openTest(t, Options{Backend: "robotgo"})
	err := d.Input().Press(t.Context(), combo(t, "f13"))
	if err == nil || !strings.Contains(err.Error(), "not on this keyboard layout") {
		t.Fatalf("press f13 (not on Xvfb's keymap): %v", err)
	}
}

// TestPasteRestoresClipboard: a text typed by paste leaves the clipboard as
// another program had set it.
func TestPasteRestoresClipboard(t *testing.T) {
	if _, err := exec.LookPath("xclip"); err != nil {
		t.Skip("xclip is not installed (make deps installs it)")
	}
	x := attach(t)
	d := openTest(t, Options{Backend: "robotgo"})
	setClip := x.Command(t.Context(), "xclip", "-selection", "clipboard", "-i")
	setClip.Stdin = strings.NewReader("the person's clipboard")
	must(t, setClip.Run()) // xclip forks a child that serves the selection
	f := testapps.StartForm(t, x)
	ctx := t.Context()
	must(t, d.Input().Click(ctx, center(t, f, "name"), actions.Left, 1))
	pace()
	must(t, d.Input().Type(ctx, "Grüße ✓"))
	must(t, d.Input().Press(ctx, combo(t, "ctrl+s")))
	if name, _ := waitSaved(t, f); name != "Grüße ✓" {
		t.Fatalf("saved %q", name)
	}
	out, err := x.Command(t.Context(), "xclip", "-selection", "clipboard", "-o").Output()
	if err != nil || string(out) != "the person's clipboard" {
		t.Fatalf("clipboard after the paste: %q (%v), want the person's text back", out, err)
	}
}

// waitSaved waits until the form has saved (its status reads "saved").
func waitSaved(t *testing.T, f *testapps.Form) (name, notes string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		name, notes, err := f.Saved()
		if err == nil {
			return name, notes
		}
		if time.Now().After(deadline) {
			t.Fatalf("the form never saved: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitMask waits until the X server reports modifier bit mask down (or up).
func waitMask(t *testing.T, mask uint16, down bool) {
	t.Helper()
	c, err := xconn.Dial("")
	if err != nil {
		t.Fatal(err)
	}
	defer xconn.Close(c)
	root := xproto.Setup(c).DefaultScreen(c).Root
	deadline := time.Now().Add(30 * time.Second)
	for {
		q, err := xproto.QueryPointer(c, root).Reply()
		if err != nil {
			t.Fatal(err)
		}
		if (q.Mask&mask != 0) == down {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("modifier %#x never went %v (state %#x)", mask, map[bool]string{true: "down", false: "up"}[down], q.Mask)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pace lets a click take effect before typing, as the agent's step does:
// the window manager (openbox) focuses a window on click through a pointer
// grab it then replays, and keys sent within a few milliseconds of the click
// reach the window that had the focus before. Seen with the x11 backend, fast
// enough to type "abc" in that gap: the letters were lost. The wait is not a
// timing assertion; it only has to be longer than the window manager takes.
func pace() { time.Sleep(600 * time.Millisecond) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestRobotgoEveryKey presses every canonical key name alone through the
// robotgo backend: each is pressed or refused with a reason, and none ends
// the process (robotgo turns a key it cannot resolve into keycode 0, a fatal
// X error, unless the backend refuses it first).
func TestRobotgoEveryKey(t *testing.T) {
	d := openTest(t, Options{Backend: "robotgo"})
	x := attach(t)
	testapps.StartForm(t, x) // the keys go to the form, not to the window manager's root
	refused := map[string]string{}
	for _, name := range actions.KeyNames() {
		err := d.Input().Press(t.Context(), combo(t, name))
		if err != nil {
			refused[name] = err.Error()
		}
	}
	if _, ok := refused["capslock"]; !ok {
		must(t, d.Input().Press(t.Context(), combo(t, "capslock"))) // back off
	}
	for name, why := range refused {
		if !strings.Contains(why, "not on this keyboard layout") && !strings.Contains(why, "Invalid key") {
			t.Errorf("key %s refused without a reason: %s", name, why)
		}
	}
	// Xvfb's keymap stops at F12, and robotgo has no Menu key on X11.
	for name := range refused {
		if n, err := strconv.Atoi(strings.TrimPrefix(name, "f")); name != "menu" && (err != nil || n < 13) {
			t.Errorf("key %s refused on Xvfb, where it exists", name)
		}
	}
	waitMask(t, xproto.ModMaskShift|xproto.ModMaskControl|xproto.ModMask1|xproto.ModMask4|xproto.ModMaskLock, false)
}
