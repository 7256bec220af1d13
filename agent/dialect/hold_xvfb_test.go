//go:build linux

package dialect

import (
	"context"
	"fmt"
	"image"
	"strings"
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"go.starlark.net/starlark"

	"deskpilot/actions/robot"
	"deskpilot/agent/convo"
	"deskpilot/agent/script"
	"deskpilot/internal/xconn"
	"deskpilot/vision"
	"deskpilot/vision/xdisplay"
)

// xevent is a pointer event an X client received: its kind, button, where
// on the root window, and the modifier and button state before it.
type xevent struct {
	kind   string // "press", "release", "motion"
	button byte
	at     image.Point
	state  uint16
}

// pointerWatch is a real X client with a window over the whole screen
// (override-redirect: no window manager needed) that receives every button
// press, release and motion: what it sees is what an application sees.
type pointerWatch struct{ conn *xgb.Conn }

func watchPointer(t *testing.T, d *xdisplay.Display) *pointerWatch {
	t.Helper()
	conn, err := xconn.DialAuth(d.Name, d.XAuthority)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	screen := xproto.Setup(conn).DefaultScreen(conn)
	win, err := xproto.NewWindowId(conn)
	if err != nil {
		t.Fatal(err)
	}
	mask := uint32(xproto.EventMaskButtonPress | xproto.EventMaskButtonRelease | xproto.EventMaskPointerMotion)
	if err := xproto.CreateWindowChecked(conn, screen.RootDepth, win, screen.Root, 0, 0, screen.WidthInPixels, screen.HeightInPixels, 0,
		xproto.WindowClassInputOutput, screen.RootVisual, xproto.CwBackPixel|xproto.CwOverrideRedirect|xproto.CwEventMask,
		[]uint32{screen.WhitePixel, 1, mask}).Check(); err != nil {
		t.Fatal(err)
	}
	if err := xproto.MapWindowChecked(conn, win).Check(); err != nil {
		t.Fatal(err)
	}
	return &pointerWatch{conn}
}

// drain returns the events received so far. The robot returns once the X
// server has handled its input (a round trip on its connection); a round
// trip on the watcher's connection after that comes back behind every event
// that input made, so all of them are queued when it returns.
func (w *pointerWatch) drain(t *testing.T) []xevent {
	t.Helper()
	if _, err := xproto.GetInputFocus(w.conn).Reply(); err != nil {
		t.Fatal(err)
	}
	var out []xevent
	for {
		ev, err := w.conn.PollForEvent()
		if err != nil {
			t.Fatalf("X error: %v", err)
		}
		switch e := ev.(type) {
		case nil:
			return out
		case xproto.ButtonPressEvent:
			out = append(out, xevent{"press", byte(e.Detail), image.Pt(int(e.RootX), int(e.RootY)), e.State})
		case xproto.ButtonReleaseEvent:
			out = append(out, xevent{"release", byte(e.Detail), image.Pt(int(e.RootX), int(e.RootY)), e.State})
		case xproto.MotionNotifyEvent:
			out = append(out, xevent{"motion", 0, image.Pt(int(e.RootX), int(e.RootY)), e.State})
		}
	}
}

// TestHeldKeysAndButtonsOnRealX runs vendor replies that hold modifiers
// during mouse actions, and one that presses the left button in one reply
// and releases it in the next, through the real executor, desktop builtins
// and XTest robot on private Xvfb displays of 1920x1080, 2560x1440 and
// 1366x768, with the family's own screenshot space. A real X client sees:
// the shift-click's press with Shift down, the ctrl-scroll's wheel with
// Control down, and no modifier left down after; the button pressed by the
// first reply stays down across the end of its program (motion with
// Button1 held), and is released by the second reply at its point; a
// button left down is released by ReleaseAll (what the run does at its
// end or on Stop).
func TestHeldKeysAndButtonsOnRealX(t *testing.T) {
	if testing.Short() {
		t.Skip("starts X displays")
	}
	for _, size := range []image.Point{fullHD, {2560, 1440}, wxga} {
		t.Run(size.String(), func(t *testing.T) {
			d, r := robotOnDisplay(t, size)
			events := watchPointer(t, d)
			for _, model := range []string{"claude-sonnet-4-5", "claude-opus-4-7"} {
				t.Run(model, func(t *testing.T) { heldOnRealX(t, r, events, size, model) })
			}
		})
	}
}

func heldOnRealX(t *testing.T, r *robot.Robot, events *pointerWatch, size image.Point, model string) {
	d := AnthropicComputer{Model: model}
	sp := d.Space(size, 0)
	m := vision.Mapper{Display: image.Rectangle{Max: size}, Image: sp.Image, Mode: sp.Mode}
	ex := script.New(script.Options{}, script.Desktop(script.DesktopDeps{Mapper: m, Input: r})...)
	// Targets in screen pixels, written in the model's space as the model
	// would, and where they land back.
	targets := []image.Point{{size.X / 4, size.Y / 4}, {size.X / 2, size.Y / 2}, {size.X - 40, size.Y - 30}, {30, size.Y - 20}}
	var mp []vision.ModelPoint
	var want []image.Point
	for _, p := range targets {
		q, err := m.ToModel(vision.ScreenPoint(p))
		if err != nil {
			t.Fatal(err)
		}
		q.X, q.Y = float64(int(q.X)), float64(int(q.Y))
		s, err := m.ToScreen(q)
		if err != nil {
			t.Fatal(err)
		}
		if dx, dy := s.X-p.X, s.Y-p.Y; dx*dx+dy*dy > 9 {
			t.Fatalf("model point %v maps back to %v, %v from %v", q, s, image.Pt(dx, dy), p)
		}
		mp = append(mp, q)
		want = append(want, image.Point(s))
	}
	at := func(i int) string { return fmt.Sprintf("[%d, %d]", int(mp[i].X), int(mp[i].Y)) }
	run := func(calls ...string) {
		t.Helper()
		res := convo.Response{}
		for i, c := range calls {
			res.Calls = append(res.Calls, tcall("computer", fmt.Sprint("toolu_", i), c))
		}
		reply, err := d.ParseResponse(res)
		if err != nil {
			t.Fatal(err)
		}
		if out := ex.Exec(t.Context(), reply.Code); out.Err != nil {
			t.Fatalf("program failed: %v\n%s", out.Err, reply.Code)
		}
	}
	events.drain(t)

	run(`{"action": "left_click", "coordinate": `+at(0)+`, "text": "shift"}`,
		`{"action": "scroll", "coordinate": `+at(1)+`, "scroll_direction": "down", "scroll_amount": 2, "text": "ctrl"}`,
		`{"action": "left_click", "coordinate": `+at(2)+`}`)
	got := events.drain(t)
	presses := filter(got, "press")
	if len(presses) != 4 { // click, two wheel clicks, click
		t.Fatalf("%d presses, want 4: %+v", len(presses), got)
	}
	if p := presses[0]; p.button != 1 || p.at != want[0] || p.state&xproto.ModMaskShift == 0 || p.state&xproto.ModMaskControl != 0 {
		t.Errorf("shift-click: %+v, want button 1 at %v with Shift alone", p, want[0])
	}
	for _, p := range presses[1:3] {
		if p.button != 5 || p.at != want[1] || p.state&xproto.ModMaskControl == 0 || p.state&xproto.ModMaskShift != 0 {
			t.Errorf("ctrl-scroll: %+v, want wheel down at %v with Control alone", p, want[1])
		}
	}
	if p := presses[3]; p.button != 1 || p.at != want[2] || p.state&(xproto.ModMaskShift|xproto.ModMaskControl) != 0 {
		t.Errorf("plain click after them: %+v, want button 1 at %v with no modifier held", p, want[2])
	}

	// left_mouse_down in one reply, moves, then left_mouse_up in the next.
	run(`{"action": "left_mouse_down", "coordinate": `+at(0)+`}`, `{"action": "mouse_move", "coordinate": `+at(1)+`}`)
	got = events.drain(t)
	presses, releases := filter(got, "press"), filter(got, "release")
	if len(presses) != 1 || presses[0].button != 1 || presses[0].at != want[0] || len(releases) != 0 {
		t.Fatalf("first reply: presses %+v releases %+v, want one press at %v and no release", presses, releases, want[0])
	}
	if ms := filter(got, "motion"); len(ms) == 0 || ms[len(ms)-1].at != want[1] || ms[len(ms)-1].state&xproto.ButtonMask1 == 0 {
		t.Errorf("the move after left_mouse_down does not drag to %v: %+v", want[1], ms)
	}
	run(`{"action": "left_mouse_up", "coordinate": ` + at(3) + `}`)
	got = events.drain(t)
	releases = filter(got, "release")
	if len(releases) != 1 || releases[0].button != 1 || releases[0].at != want[3] || releases[0].state&xproto.ButtonMask1 == 0 {
		t.Errorf("second reply: releases %+v, want the held button released at %v", releases, want[3])
	}

	// A button left down is released by ReleaseAll.
	run(`{"action": "left_mouse_down", "coordinate": ` + at(2) + `}`)
	events.drain(t)
	if err := r.ReleaseAll(); err != nil {
		t.Fatal(err)
	}
	if rel := filter(events.drain(t), "release"); len(rel) != 1 || rel[0].button != 1 {
		t.Errorf("ReleaseAll released %+v, want the left button", rel)
	}
	// And a release with nothing held is an error for the model, nothing sent.
	reply, err := d.ParseResponse(convo.Response{Calls: []convo.ToolCall{tcall("computer", "t", `{"action": "left_mouse_up", "coordinate": `+at(1)+`}`)}})
	if err != nil {
		t.Fatal(err)
	}
	if out := ex.Exec(context.WithoutCancel(t.Context()), reply.Code); out.Err == nil {
		t.Error("left_mouse_up with no button down succeeded")
	}
	if ev := filter(events.drain(t), "release"); len(ev) != 0 {
		t.Errorf("a release was sent with nothing held: %+v", ev)
	}
}

func filter(evs []xevent, kind string) []xevent {
	var out []xevent
	for _, e := range evs {
		if e.kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// TestPyAutoGUIDragAcrossRepliesOnRealX: a pyautogui program presses the
// button with mouseDown and ends; the next moves (a drag: Button1 held in
// the motion an application sees) and releases with mouseUp at its point,
// through the real executor and XTest robot on a private display.
func TestPyAutoGUIDragAcrossRepliesOnRealX(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an X display")
	}
	d, r := robotOnDisplay(t, fullHD)
	events := watchPointer(t, d)
	m := vision.Mapper{Display: image.Rectangle{Max: fullHD}, Image: fullHD, Mode: vision.CoordPixels}
	ex := script.New(script.Options{Modules: func(call func(*starlark.Thread, string, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)) starlark.StringDict {
		return PyAutoGUI{}.Modules(call)
	}}, script.Desktop(script.DesktopDeps{Mapper: m, Input: r})...)
	run := func(code string) {
		t.Helper()
		if out := ex.Exec(t.Context(), code); out.Err != nil {
			t.Fatalf("program failed: %v\n%s", out.Err, code)
		}
	}
	events.drain(t)
	run("pyautogui.mouseDown(300, 200)")
	got := events.drain(t)
	if p := filter(got, "press"); len(p) != 1 || p[0].button != 1 || p[0].at != image.Pt(300, 200) || len(filter(got, "release")) != 0 {
		t.Fatalf("first reply: %+v, want one press of button 1 at (300, 200) and no release", got)
	}
	run("pyautogui.moveTo(700, 500)\npyautogui.mouseUp(900, 600)")
	got = events.drain(t)
	if ms := filter(got, "motion"); len(ms) == 0 || ms[0].state&xproto.ButtonMask1 == 0 {
		t.Errorf("the move after mouseDown does not drag: %+v", ms)
	}
	if rel := filter(got, "release"); len(rel) != 1 || rel[0].button != 1 || rel[0].at != image.Pt(900, 600) {
		t.Errorf("second reply: releases %+v, want button 1 released at (900, 600)", rel)
	}
	// Nothing is down now: a mouseUp says so and sends nothing.
	if out := ex.Exec(t.Context(), "pyautogui.mouseUp(10, 10)"); out.Err == nil || !strings.Contains(out.Err.Msg, "not down") {
		t.Errorf("mouseUp with nothing down: %+v", out.Err)
	}
	if rel := filter(events.drain(t), "release"); len(rel) != 0 {
		t.Errorf("a release was sent with nothing held: %+v", rel)
	}
}
