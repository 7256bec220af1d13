package cli

import (
	"fmt"
	"image"
	"image/color"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/trace"
	"deskpilot/app"
	"deskpilot/internal/testapps"
	"deskpilot/vision/xdisplay"
)

// The app's usability end to end: the real binary on the private display, a
// person's real clicks and keys, a scripted model. Screenshots go to
// $DESKPILOT_ARTIFACTS as app-e2e-*.png.

// TestAppOwnInputIsNoTakeover: the person expands the strip, presses Esc to
// get it back and allows an action in the strip; none of it pauses the run
// (each used to: "you moved the mouse").
func TestAppOwnInputIsNoTakeover(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and launches the app")
	}
	// The person acts while the model thinks: give the model time.
	h := startAppE2E(t, func(s *appSetup) { s.cfg.TimeoutSec = 180 })
	allowed := make(chan error, 1)
	h.srv.Add(
		h.step(func(req llmtest.Request) string {
			return fmt.Sprintf("Thought: the name first.\n```python\nclick(%s)\ntype_text(\"Grace\")\n```", center(t, h.form, "name", req))
		}),
		h.step(func(req llmtest.Request) string {
			// While the model thinks, the person looks at the full window and goes back.
			if err := h.expandAndBack(); err != nil {
				t.Error(err)
			}
			go func() { allowed <- h.allowInStrip() }()
			return fmt.Sprintf("Thought: start a helper, then the notes.\n```python\nlaunch(\"true\")\nclick(%s)\ntype_text(\"own input\")\nclick(%s)\n```",
				center(t, h.form, "notes", req), center(t, h.form, "save", req))
		}),
		h.step(func(llmtest.Request) string {
			return "Thought: saved.\n```python\nfinal_answer(\"done\")\n```"
		}),
	)
	h.focusApp()
	h.typeTask("Fill in the form.")
	tr := h.waitRunEnd(0)
	if err := <-allowed; err != nil {
		t.Fatal(err)
	}
	if hasEvent(tr, trace.TypePaused) {
		t.Errorf("the run paused: the person's use of deskpilot's own window counted as a takeover")
	}
	if tr.End.Outcome != "answered" {
		t.Errorf("run ended %q (%s)", tr.End.Outcome, tr.End.Error)
	}
	if name, notes, err := h.form.Saved(); err != nil || name != "Grace" || notes != "own input" {
		t.Errorf("form saved %q, %q (%v); want Grace, own input", name, notes, err)
	}
}

// expandAndBack clicks the strip's expand button, waits for the full window,
// presses Esc and waits for the strip.
func (h *appE2E) expandAndBack() error {
	w := h.waitWindow()
	stop, ok := h.colourBox(w.Bounds, isDanger)
	if !ok {
		return fmt.Errorf("no Stop button on the strip %v", w.Bounds)
	}
	btn, err := h.buttonLeftOf(stop, 2)
	if err != nil {
		return err
	}
	h.shot("own-1-strip")
	h.clickAt(btn)
	if err := h.waitSize(func(r image.Rectangle) bool { return r.Dy() > 300 }); err != nil {
		return fmt.Errorf("expand: %w", err)
	}
	if w, ok := h.appWindow(); ok {
		h.settled(w.Bounds) // drawn: the toolkit paints the new content a moment after the resize
	}
	h.shot("own-2-expanded")
	if err := h.person.Press(h.t.Context(), actions.Combo{Key: "escape"}); err != nil {
		return err
	}
	if err := h.waitSize(func(r image.Rectangle) bool { return r.Dy() < 300 }); err != nil {
		return fmt.Errorf("esc: %w", err)
	}
	return nil
}

// allowInStrip waits for the approval in the strip and presses Allow, the one
// blue button there. The strip grows for the approval and goes back to its
// corner (the placer may wait a second for the window manager before it
// moves): the button is clicked once the strip has stood still for 2.4 s, and
// again if the approval is still there after the click.
func (h *appE2E) allowInStrip() error {
	deadline := time.Now().Add(60 * time.Second)
	var last image.Rectangle
	still := 0
	for time.Now().Before(deadline) {
		time.Sleep(300 * time.Millisecond)
		w, ok := h.appWindow()
		if !ok || w.Bounds.Dy() >= 300 || w.Bounds != last {
			last, still = w.Bounds, 0
			continue
		}
		box, ok := h.colourBox(w.Bounds, isPrimary)
		if still++; !ok || still < 8 {
			continue
		}
		h.shot("own-3-approval-in-strip")
		h.clickAt(mid(box))
		for range 10 {
			time.Sleep(300 * time.Millisecond)
			if w, ok := h.appWindow(); ok && w.Bounds.Dy() < 300 {
				if _, shown := h.colourBox(w.Bounds, isPrimary); !shown {
					return nil
				}
			}
		}
		still = 0 // not taken: look again
	}
	h.shot("fail-no-approval")
	return fmt.Errorf("no approval showed in the strip, or Allow did not take it")
}

// isDanger is the fill of a danger (red) button, as the app's theme draws it.
func isDanger(c color.RGBA) bool { return c.R > 200 && c.G < 140 && c.B < 140 }

// buttonLeftOf returns the middle of the n-th button left of the button at r
// (1 = the next one), walking left along r's middle row: the strip's buttons
// stand side by side on its background, with a gap between them.
func (h *appE2E) buttonLeftOf(r image.Rectangle, n int) (image.Point, error) {
	y := (r.Min.Y + r.Max.Y) / 2
	row, err := h.sc.Capture(h.t.Context(), h.onScreen(image.Rect(r.Min.X-400, y, r.Min.X, y+1)))
	if err != nil {
		return image.Point{}, err
	}
	bg := row.RGBAAt(row.Rect.Max.X-3, row.Rect.Min.Y) // the gap left of r, past its anti-aliased edge
	x := row.Rect.Max.X - 3
	near := func(c color.RGBA) bool {
		d := func(a, b uint8) int { return max(int(a), int(b)) - min(int(a), int(b)) }
		return d(c.R, bg.R) < 6 && d(c.G, bg.G) < 6 && d(c.B, bg.B) < 6
	}
	for i := 1; i <= n; i++ {
		for x >= row.Rect.Min.X && near(row.RGBAAt(x, row.Rect.Min.Y)) { // the gap
			x--
		}
		right := x
		for x >= row.Rect.Min.X && !near(row.RGBAAt(x, row.Rect.Min.Y)) { // the button
			x--
		}
		if i == n {
			if right-x < 16 {
				return image.Point{}, fmt.Errorf("no button %d left of %v", n, r)
			}
			return image.Pt(r.Min.X-400+(x+right)/2-row.Rect.Min.X, y), nil
		}
	}
	return image.Point{}, fmt.Errorf("no button left of %v", r)
}

// appWindow returns the app's main window, if shown.
func (h *appE2E) appWindow() (xdisplay.Window, bool) {
	ws, err := h.d.Windows(h.t.Context())
	if err != nil {
		return xdisplay.Window{}, false
	}
	for _, w := range ws {
		if w.Title == app.Title && w.PID == h.app.Cmd.Process.Pid && w.Viewable && !w.Bounds.Empty() {
			return w, true
		}
	}
	return xdisplay.Window{}, false
}

// waitSize waits until the app's window satisfies ok.
func (h *appE2E) waitSize(ok func(image.Rectangle) bool) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if w, shown := h.appWindow(); shown && ok(w.Bounds) {
			time.Sleep(300 * time.Millisecond) // drawn
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the app's window never took the size wanted")
}

// TestAppStripDodges: with a dialog in the bottom-right corner the strip goes
// to another corner, so the model sees the dialog and clicks it; a click the
// model aims inside the strip moves the strip out of the way first.
func TestAppStripDodges(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and launches the app")
	}
	h := startAppE2E(t)
	h.moveForm(image.Pt(740, 400)) // the form's Save sits in the bottom-right corner now
	var target image.Point
	overlap := make(chan error, 1)
	h.srv.Add(
		h.step(func(req llmtest.Request) string {
			return fmt.Sprintf("Thought: the name.\n```python\nclick(%s)\ntype_text(\"Dodge\")\n```", center(t, h.form, "name", req))
		}),
		h.step(func(req llmtest.Request) string {
			overlap <- h.stripClearOf("save")
			h.shot("dodge-1-strip-clear-of-dialog")
			return fmt.Sprintf("Thought: save.\n```python\nclick(%s)\n```", center(t, h.form, "save", req))
		}),
		h.step(func(req llmtest.Request) string {
			w, ok := h.appWindow()
			if !ok {
				t.Error("no strip")
				return "```python\nfinal_answer(\"no strip\")\n```"
			}
			target = mid(w.Bounds).Add(image.Pt(-80, 0)) // on the strip, off its buttons
			img := req.Images()[len(req.Images())-1].Size
			return fmt.Sprintf("Thought: click where the strip is.\n```python\nclick(%d, %d)\n```",
				target.X*img.X/1280, target.Y*img.Y/800)
		}),
		h.step(func(llmtest.Request) string {
			h.shot("dodge-2-made-room")
			return "Thought: done.\n```python\nfinal_answer(\"done\")\n```"
		}),
	)
	h.focusApp()
	h.typeTask("Type Dodge in the form and save it.")
	tr := h.waitRunEnd(0)
	if err := <-overlap; err != nil {
		t.Error(err)
	}
	if name, _, err := h.form.Saved(); err != nil || name != "Dodge" {
		t.Errorf("form saved %q (%v), want Dodge", name, err)
	}
	s, _ := tr.Step(3)
	if len(s.Actions) != 1 || s.Actions[0].Error != "" {
		t.Fatalf("step 3 ran %+v; want the click inside the strip to go through", s.Actions)
	}
	if at, err := h.sc.Cursor(); err != nil || abs(at.X-target.X) > 2 || abs(at.Y-target.Y) > 2 {
		t.Errorf("pointer at %v (%v), want the click at %v", at, err, target)
	}
}

func abs(n int) int { return max(n, -n) }

// moveForm moves the form window to at (its frame's top-left) and waits for
// its layout to follow.
func (h *appE2E) moveForm(at image.Point) {
	h.t.Helper()
	before, _ := h.form.Widget("save")
	cmd := exec.CommandContext(h.t.Context(), "xdotool", "search", "--name", testapps.FormTitle,
		"windowmove", strconv.Itoa(at.X), strconv.Itoa(at.Y))
	cmd.Env = h.d.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		h.t.Fatalf("xdotool: %v: %s", err, out)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if r, err := h.form.Widget("save"); err == nil && r != before {
			time.Sleep(500 * time.Millisecond) // the frame settles
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatal("the form did not move")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stripClearOf reports an error when the strip covers the form's widget.
func (h *appE2E) stripClearOf(widget string) error {
	w, ok := h.appWindow()
	if !ok {
		return fmt.Errorf("no strip")
	}
	r, err := h.form.Widget(widget)
	if err != nil {
		return err
	}
	if w.Bounds.Dy() > 300 {
		return fmt.Errorf("the app shows its full window %v, want the strip", w.Frame)
	}
	if w.Frame.Overlaps(r) {
		return fmt.Errorf("the strip %v covers the form's %s %v", w.Frame, widget, r)
	}
	return nil
}

// TestAppExpandedWindowBelow: with the strip off, the full window stays up
// during the run; the form the person raised above it is not masked, and the
// model's clicks into it go through.
func TestAppExpandedWindowBelow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and launches the app")
	}
	h := startAppE2E(t, func(s *appSetup) { s.noStrip = true })
	h.srv.Add(
		h.step(func(req llmtest.Request) string {
			h.raiseForm()
			h.shot("expanded-1-form-above")
			return fmt.Sprintf("Thought: fill in and save.\n```python\nclick(%s)\ntype_text(\"Above\")\nclick(%s)\n```",
				center(t, h.form, "name", req), center(t, h.form, "save", req))
		}),
		h.step(func(llmtest.Request) string {
			return "Thought: saved.\n```python\nfinal_answer(\"done\")\n```"
		}),
	)
	h.focusApp()
	h.typeTask("Type Above in the form and save it.")
	tr := h.waitRunEnd(0)
	if name, _, err := h.form.Saved(); err != nil || name != "Above" {
		t.Errorf("form saved %q (%v), want Above", name, err)
	}
	s, _ := tr.Step(1)
	for _, a := range s.Actions {
		if a.Error != "" {
			t.Errorf("%s(%s) failed: %s", a.Name, a.Args, a.Error)
		}
	}
	if w, ok := h.appWindow(); !ok || w.Bounds.Dy() < 300 {
		t.Errorf("the app window is %v, want the full window", w.Bounds)
	}
}

// raiseForm activates the form so it is stacked above the app's full window.
func (h *appE2E) raiseForm() {
	h.t.Helper()
	cmd := exec.CommandContext(h.t.Context(), "xdotool", "search", "--name", testapps.FormTitle, "windowactivate", "--sync")
	cmd.Env = h.d.Env()
	if out, err := cmd.CombinedOutput(); err != nil {
		h.t.Fatalf("xdotool: %v: %s", err, out)
	}
	time.Sleep(500 * time.Millisecond) // stacked and drawn
}

// TestAppDeadEndpoint: nothing listens at the base URL; the run fails at
// once with one line naming the URL and what to check.
func TestAppDeadEndpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and launches the app")
	}
	h := startAppE2E(t, func(s *appSetup) { s.cfg.BaseURL = "http://127.0.0.1:1/v1" })
	h.focusApp()
	h.typeTask("Write a haiku.")
	tr := h.waitRunEnd(0)
	h.shot("dead-endpoint")
	if tr.End.Outcome != "failed" || !strings.Contains(tr.End.Error, "cannot reach the model at http://127.0.0.1:1/v1") {
		t.Errorf("run ended %q: %q; want failed, naming the URL", tr.End.Outcome, tr.End.Error)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the scripted server", n)
	}
}
