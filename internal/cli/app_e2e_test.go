package cli

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/actions/robot"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/trace"
	"deskpilot/app"
	"deskpilot/internal/config"
	"deskpilot/internal/testapps"
	"deskpilot/vision/screen"
	"deskpilot/vision/xdisplay"
)

// TestAppEndToEnd launches the real deskpilot binary on the private display, types a
// task into its window with real keystrokes and lets a scripted model fill in a Tk
// form through it. A second run proves takeover: the person moves the mouse while the
// agent waits, the agent pauses instead of clicking, and Resume lets it finish.
//
// Screenshots of the whole display are kept in $DESKPILOT_ARTIFACTS when set.
func TestAppEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and launches the app")
	}
	h := startAppE2E(t)
	h.fillForm()
	h.takeover()
}

// appE2E is the real app, a form to drive and a scripted model on the test display.
type appE2E struct {
	t      *testing.T
	d      *xdisplay.Display
	sc     *screen.Screen
	person *robot.Robot // the person at the keyboard and mouse
	srv    *llmtest.Server
	form   *testapps.Form
	app    *xdisplay.App
	traces string
	shots  string
}

// appSetup changes what startAppE2E writes before the app starts.
type appSetup struct {
	cfg     config.Settings
	noStrip bool // the app keeps its full window while running
}

func startAppE2E(t *testing.T, opts ...func(*appSetup)) *appE2E {
	bin := buildDeskpilot(t)
	d, err := xdisplay.Attach("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	sc, err := screen.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close() })
	person, err := robot.New("", image.Rectangle{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { person.Close() })
	h := &appE2E{t: t, d: d, sc: sc, person: person, srv: llmtest.New(t), shots: artifactsDir(t)}
	h.form = testapps.StartForm(t, d)

	dir := t.TempDir()
	h.traces = filepath.Join(dir, "traces")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	for _, k := range []string{"OPENAI_BASE_URL", "OPENAI_API_KEY", "DESKPILOT_MODEL", "DESKPILOT_BASE_URL",
		"DESKPILOT_PRESET", "DBUS_SESSION_BUS_ADDRESS"} {
		t.Setenv(k, "")
	}
	setup := appSetup{cfg: config.Settings{BaseURL: h.srv.URL, Model: "scripted", TraceDir: h.traces, MaxSteps: 8, TimeoutSec: 30}}
	for _, o := range opts {
		o(&setup)
	}
	if err := config.SaveFile(config.Path(), setup.cfg); err != nil {
		t.Fatal(err)
	}
	if setup.noStrip {
		// Fyne keeps preferences under the config folder, by app ID.
		prefs := filepath.Join(dir, "config", "fyne", app.ID, "preferences.json")
		if err := os.MkdirAll(filepath.Dir(prefs), 0o755); err != nil {
			t.Fatal(err)
		}
		data := fmt.Sprintf(`{%q: false}`, app.PrefCompactWhileRunning)
		if err := os.WriteFile(prefs, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.app, err = d.StartApp(t.Context(), bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.app.Stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("app output:\n%s", h.app.Output())
		}
	})
	h.waitWindow()
	return h
}

// buildDeskpilot returns the binary under test, built once per test process.
func buildDeskpilot(t *testing.T) string {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatalf("go build: %v", err)
	}
	return bin
}

// artifactsDir is where screenshots go: $DESKPILOT_ARTIFACTS, else a temp folder.
func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("DESKPILOT_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fillForm types a task into the app and lets the scripted model fill in the form.
func (h *appE2E) fillForm() {
	t := h.t
	name, notes := "Ada Lovelace", "first run\nfrom the app"
	var once sync.Once
	strip := make(chan error, 1) // the check made while the agent works
	h.srv.Add(
		h.step(func(req llmtest.Request) string {
			return fmt.Sprintf("Thought: click the name field and type the name.\n```python\nclick(%s)\ntype_text(%q)\n```",
				center(t, h.form, "name", req), name)
		}),
		h.step(func(req llmtest.Request) string {
			return fmt.Sprintf("Thought: now the notes.\n```python\nclick(%s)\ntype_text(%q)\n```",
				center(t, h.form, "notes", req), notes)
		}),
		h.step(func(req llmtest.Request) string {
			once.Do(func() {
				h.shot("1-mid-run")
				strip <- h.stripOnTop()
			})
			return fmt.Sprintf("Thought: both fields are filled; save.\n```python\nclick(%s)\n```",
				center(t, h.form, "save", req))
		}),
		h.step(func(llmtest.Request) string {
			return "Thought: the form says saved.\n```python\nfinal_answer(\"saved the form\")\n```"
		}),
	)
	h.focusApp()
	h.typeTask("Fill in the form with the name Ada Lovelace and two lines of notes, then save it.")
	tr := h.waitRunEnd(0)
	h.shot("2-finished")
	select {
	case err := <-strip:
		if err != nil {
			t.Errorf("while the agent worked: %v", err)
		}
	default:
		t.Errorf("the strip was never checked during the run")
	}

	gotName, gotNotes, err := h.form.Saved()
	if err != nil {
		t.Fatal(err)
	}
	if gotName != name || gotNotes != notes {
		t.Errorf("form saved name %q notes %q; want %q, %q", gotName, gotNotes, name, notes)
	}
	if tr.End.Outcome != "answered" || tr.Answer() != "saved the form" || tr.End.Steps != 4 {
		t.Errorf("trace ends %q with answer %q after %d steps; want answered, \"saved the form\", 4",
			tr.End.Outcome, tr.Answer(), tr.End.Steps)
	}
	if !strings.Contains(h.srv.Requests()[0].Last("user").Text(), "Ada Lovelace") {
		t.Errorf("the task typed into the app did not reach the model")
	}
}

// takeover starts a second run whose step waits and then clicks; the person moves
// the mouse during the wait, so the agent must pause instead of clicking.
func (h *appE2E) takeover() {
	t := h.t
	waiting := make(chan struct{})
	before := len(h.srv.Requests())
	h.srv.Add(
		h.step(func(req llmtest.Request) string {
			defer close(waiting)
			return fmt.Sprintf("Thought: give the form a moment, then click the name field.\n```python\nwait(2)\nclick(%s)\n```",
				center(t, h.form, "name", req))
		}),
		h.step(func(llmtest.Request) string {
			return "Thought: done.\n```python\nfinal_answer(\"clicked after the person was done\")\n```"
		}),
	)
	h.focusApp()
	h.typeTask("Click the name field of the form.")
	select {
	case <-waiting:
	case <-time.After(60 * time.Second):
		h.shot("fail-no-second-run")
		t.Fatal("the second run never asked the model")
	}
	// The first run answered, so the app offered a follow-up (ticked): this run's
	// model first gets the first run's task and replies, and its code runs in
	// the first run's process (the variables are still there).
	if body := string(h.srv.Requests()[before].Body); !strings.Contains(body, "Fill in the form with the name Ada Lovelace") ||
		!strings.Contains(body, "follow-up") {
		t.Errorf("the second run is no follow-up of the first: its request lacks the first task")
	} else if !strings.Contains(body, "still there") {
		t.Errorf("the follow-up did not keep the first run's code process (its variables)")
	}
	// Into the agent's wait(2); moving earlier, before the wait began, would be
	// caught by the same check before the click.
	time.Sleep(300 * time.Millisecond)
	spot := actions.Point{X: 900, Y: 420} // empty desktop
	if err := h.person.Move(t.Context(), spot); err != nil {
		t.Fatal(err)
	}
	dir := h.waitTraceEvent(1, trace.TypePaused)
	time.Sleep(time.Second) // the agent would have clicked by now
	h.shot("3-paused")
	if at, err := h.sc.Cursor(); err != nil || at != image.Pt(spot.X, spot.Y) {
		t.Errorf("pointer at %v (%v) while paused; want it where the person left it, %v", at, err, spot)
	}
	if n := len(h.srv.Requests()) - before; n != 1 {
		t.Errorf("%d model calls while paused, want 1", n)
	}
	h.resume()
	tr := h.waitRunEnd(1)
	h.shot("4-resumed-finished")
	if tr.Dir != dir {
		t.Errorf("paused in %s but finished %s", dir, tr.Dir)
	}
	if tr.End.Outcome != "answered" {
		t.Errorf("takeover run ended %q (%s), want answered", tr.End.Outcome, tr.End.Error)
	}
	if !hasEvent(tr, trace.TypeResumed) {
		t.Errorf("the trace has no resumed event")
	}
	if c, _ := tr.Step(1); len(c.Actions) != 2 || c.Actions[1].Name != "click" {
		t.Errorf("step 1 ran %+v; want wait, then the click after Resume", c.Actions)
	}
}

// step is a scripted reply that takes a model's time to arrive, so the agent's clicks
// in different fields never fall inside Tk's double-click interval.
func (h *appE2E) step(f func(llmtest.Request) string) llmtest.Reply {
	return llmtest.Reply{Func: func(req llmtest.Request) string {
		time.Sleep(600 * time.Millisecond)
		return f(req)
	}}
}

// stripOnTop checks that the app shows its compact strip above the form the agent
// has been clicking in, so Stop stays in reach.
func (h *appE2E) stripOnTop() error {
	ws, err := h.d.Windows(context.Background())
	if err != nil {
		return err
	}
	strip, form := -1, -1
	for i, w := range ws { // bottom of the stack first
		switch {
		case w.Title == app.Title && w.PID == h.app.Cmd.Process.Pid:
			strip = i
			if w.Bounds.Dy() > 200 || !w.Frame.In(image.Rect(0, 0, h.d.Width, h.d.Height)) {
				return fmt.Errorf("the app window is %v, want a compact strip on the screen", w.Frame)
			}
		case strings.Contains(w.Title, "test form"):
			form = i
		}
	}
	if strip < form {
		return fmt.Errorf("the strip is below the form (stack positions %d, %d)", strip, form)
	}
	return nil
}

// waitWindow waits for the app's main window (the form's title contains "deskpilot"
// too, so match the title exactly and the app's PID) and for it to be painted.
func (h *appE2E) waitWindow() xdisplay.Window {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.t.Context(), 60*time.Second)
	defer cancel()
	for {
		ws, err := h.d.Windows(ctx)
		if err != nil && ctx.Err() == nil {
			h.t.Fatal(err)
		}
		for _, w := range ws {
			if w.Title == app.Title && w.PID == h.app.Cmd.Process.Pid && w.Viewable && !w.Bounds.Empty() {
				h.settled(w.Bounds)
				return w
			}
		}
		select {
		case <-ctx.Done():
			h.shot("fail-no-window")
			h.t.Fatalf("the app's window never showed: %v\n%s", ctx.Err(), h.app.Output())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// settled waits until area of the screen stops changing (at most 10 s).
func (h *appE2E) settled(area image.Rectangle) {
	h.t.Helper()
	var last *image.RGBA
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		// A window the window manager is still moving may stand partly off
		// the screen: only its visible part is watched.
		area := h.onScreen(area)
		if area.Empty() {
			time.Sleep(300 * time.Millisecond)
			continue
		}
		img, err := h.sc.Capture(h.t.Context(), area)
		if err != nil {
			h.t.Fatal(err)
		}
		if last != nil && string(last.Pix) == string(img.Pix) {
			return
		}
		last = img
		time.Sleep(300 * time.Millisecond)
	}
}

// onScreen is the part of r on the display's screen.
func (h *appE2E) onScreen(r image.Rectangle) image.Rectangle {
	return r.Intersect(image.Rect(0, 0, h.d.Width, h.d.Height))
}

// focusApp clicks the app window's title bar, as a person would to bring it forward.
func (h *appE2E) focusApp() {
	h.t.Helper()
	w := h.waitWindow()
	p := actions.Point{X: w.Bounds.Min.X + w.Bounds.Dx()/2, Y: (w.Frame.Min.Y + w.Bounds.Min.Y) / 2}
	if w.Frame.Min.Y >= w.Bounds.Min.Y {
		p.Y = w.Bounds.Min.Y + 5 // no title bar: the top edge of the tab bar
	}
	if err := h.person.Click(h.t.Context(), p, actions.Left, 1); err != nil {
		h.t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
}

// typeTask types task into the focused task entry, replacing its text, and runs it
// with Ctrl+Enter.
func (h *appE2E) typeTask(task string) {
	h.t.Helper()
	ctx := h.t.Context()
	for _, step := range []func() error{
		func() error { return h.person.Press(ctx, mustCombo(h.t, "ctrl+a")) },
		func() error { return h.person.Type(ctx, task) },
		func() error { return h.person.Press(ctx, mustCombo(h.t, "ctrl+enter")) },
	} {
		if err := step(); err != nil {
			h.t.Fatal(err)
		}
	}
}

func mustCombo(t *testing.T, s string) actions.Combo {
	t.Helper()
	c, err := actions.ParseCombo(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runTrace returns the folder of run n (0 = the first run of the test), or "".
func (h *appE2E) runTrace(n int) string {
	list, err := trace.List(h.traces)
	if err != nil {
		h.t.Fatal(err)
	}
	if n >= len(list) {
		return ""
	}
	return list[len(list)-1-n].Dir // List is newest first
}

// waitRunEnd waits for run n to end with its report written and the app back to
// its full window, and returns the run's trace.
func (h *appE2E) waitRunEnd(n int) *trace.Trace {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if tr := h.endedRun(n); tr != nil {
			h.settled(image.Rect(0, 0, h.d.Width, h.d.Height))
			return tr
		}
		if time.Now().After(deadline) {
			h.shot(fmt.Sprintf("fail-run%d-did-not-end", n+1))
			h.t.Fatalf("run %d did not end with a report and the full window back; %d model calls, %d replies left",
				n+1, len(h.srv.Requests()), h.srv.Pending())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// endedRun returns run n's trace once it has ended, its report is written and the
// app shows its full window again; nil before.
func (h *appE2E) endedRun(n int) *trace.Trace {
	dir := h.runTrace(n)
	if dir == "" {
		return nil
	}
	tr, err := trace.Read(dir)
	if err != nil || tr.End == nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		return nil
	}
	if w := h.waitWindow(); w.Bounds.Dy() < 300 {
		return nil // still the strip
	}
	return tr
}

// waitTraceEvent waits until run n's trace has an event of type typ; it returns the
// trace folder.
func (h *appE2E) waitTraceEvent(n int, typ trace.Type) string {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if dir := h.runTrace(n); dir != "" {
			if tr, err := trace.Read(dir); err == nil && hasEvent(tr, typ) {
				return dir
			}
		}
		if time.Now().After(deadline) {
			h.shot(fmt.Sprintf("fail-run%d-no-%s", n+1, typ))
			h.t.Fatalf("run %d has no %q event", n+1, typ)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func hasEvent(tr *trace.Trace, typ trace.Type) bool {
	for _, s := range tr.Steps {
		for _, e := range s.Events {
			if e.Type == typ {
				return true
			}
		}
	}
	return false
}

// shot saves a screenshot of the whole display as a test artifact.
func (h *appE2E) shot(name string) {
	img, err := h.sc.Capture(context.Background(), image.Rect(0, 0, h.d.Width, h.d.Height))
	if err != nil {
		h.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	p := filepath.Join(h.shots, "app-e2e-"+name+".png")
	f, err := os.Create(p)
	if err == nil {
		err = png.Encode(f, img)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		h.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	h.t.Logf("screenshot: %s", p)
}

// center returns where the scripted model clicks to hit widget name, in the
// pixels of the request's newest image (the screen is 1280x800). It runs on the
// model server's goroutine, so it reports with Errorf.
func center(t *testing.T, f *testapps.Form, name string, req llmtest.Request) string {
	imgs := req.Images()
	if len(imgs) == 0 {
		t.Errorf("request has no image")
		return "0, 0"
	}
	at, err := f.Click(name, imgs[len(imgs)-1].Size, image.Pt(1280, 800), "pixels")
	if err != nil {
		t.Error(err)
		return "0, 0"
	}
	return at
}

// resume presses Resume on the strip, the one blue (primary) button there while
// the run is paused.
func (h *appE2E) resume() {
	h.t.Helper()
	w := h.waitWindow()
	box, ok := h.colourBox(w.Bounds, isPrimary)
	if !ok {
		h.t.Fatalf("no Resume button on the app window %v (blue area %v)", w.Bounds, box)
	}
	h.clickAt(mid(box))
}

// isPrimary is the fill of a primary (blue) button, as the app's theme draws it.
func isPrimary(c color.RGBA) bool { return c.B > 180 && c.R < 110 && int(c.B)-int(c.G) > 60 }

// colourBox returns the bounding box, root coordinates, of the pixels of area
// that match, and whether it is big enough to be a button.
func (h *appE2E) colourBox(area image.Rectangle, match func(color.RGBA) bool) (image.Rectangle, bool) {
	if area = h.onScreen(area); area.Empty() {
		return image.Rectangle{}, false
	}
	img, err := h.sc.Capture(h.t.Context(), area)
	if err != nil {
		h.t.Fatal(err)
	}
	var box image.Rectangle
	for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
		for x := img.Rect.Min.X; x < img.Rect.Max.X; x++ {
			if match(img.RGBAAt(x, y)) {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	box = box.Add(area.Min.Sub(img.Rect.Min)) // the capture may start at 0, 0
	return box, box.Dx() >= 20 && box.Dy() >= 10
}

func mid(r image.Rectangle) image.Point { return image.Pt((r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2) }

// clickAt clicks at p as the person.
func (h *appE2E) clickAt(p image.Point) {
	h.t.Helper()
	if err := h.person.Click(h.t.Context(), actions.Point{X: p.X, Y: p.Y}, actions.Left, 1); err != nil {
		h.t.Fatal(err)
	}
}

// TestBinaryStartsQuietly: under the POSIX locale of containers and CI, the real
// binary prints its help without Fyne's locale error (internal/clocale).
func TestBinaryStartsQuietly(t *testing.T) {
	bin := buildDeskpilot(t)
	cmd := exec.CommandContext(t.Context(), bin, "--help")
	cmd.Env = append(os.Environ(), "LANG=C.UTF-8", "LC_ALL=", "LC_MESSAGES=", "LANGUAGE=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("deskpilot --help: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "Fyne error") || !strings.Contains(string(out), "Usage:") {
		t.Errorf("deskpilot --help printed:\n%s", out)
	}
}

// TestAppStartsQuietly: the app starts without a Fyne error in its log,
// configured (on the Run tab) and on a first start (on the settings, where
// the hidden task entry cannot take the focus).
func TestAppStartsQuietly(t *testing.T) {
	for name, cfg := range map[string]*config.Settings{"configured": nil, "first start": {}} {
		t.Run(name, func(t *testing.T) {
			h := startAppE2E(t, func(s *appSetup) {
				if cfg != nil {
					s.cfg = *cfg
				}
			})
			if out := h.app.Output(); strings.Contains(out, "Fyne error") {
				t.Errorf("the app logged:\n%s", out)
			}
		})
	}
}
