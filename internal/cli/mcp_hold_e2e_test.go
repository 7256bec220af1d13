package cli

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"deskpilot/internal/xconn"
	"deskpilot/vision/xdisplay"
)

// foundAt is the point find_text reported in a call's text.
var foundAt = regexp.MustCompile(`found: "[^"]*"(?: \([^)]*\))? at \((\d+), (\d+)\)`)

// buttonHeld reports whether the left button of the display's pointer is
// down, as an X client sees it.
func buttonHeld(t *testing.T, d *xdisplay.Display) bool {
	t.Helper()
	c, err := xconn.DialAuth(d.Name, d.XAuthority)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	q, err := xproto.QueryPointer(c, xproto.Setup(c).DefaultScreen(c).Root).Reply()
	if err != nil {
		t.Fatal(err)
	}
	return q.Mask&xproto.ButtonMask1 != 0
}

// released waits until the left button is up; false after 15 s.
func released(t *testing.T, d *xdisplay.Display) bool {
	t.Helper()
	for range 150 {
		if !buttonHeld(t, d) {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}

// mouse_down and mouse_up are tools of their own, from the catalogue: a
// host drags over three calls (mouse_down, move, mouse_up) and xterm
// selects the text between (its PRIMARY selection holds it). Between the
// calls the button stays down. A button left held is let go when the call
// holding it is cancelled, and when the session ends without mouse_up.
func TestMCPHeldButtonDrags(t *testing.T) {
	_, env := mcpEnv(t)
	d := attach(t)
	app, err := d.StartApp(t.Context(), "xterm", "-T", "drag here", "-fa", "DejaVu Sans Mono", "-fs", "16",
		"-e", "sh", "-c", "echo; echo '  alpha bravo charlie delta echo'; exec sleep 600")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = app.Stop() })
	waitWindow(t, d, "drag here")

	steps := host(t, stdioPlan(t, env, nil,
		step("list"),
		step("call", "name", "find_text", "args", map[string]any{"text": "alpha"}),
		step("call", "name", "find_text", "args", map[string]any{"text": "delta"}),
	))
	schemas := steps[0]["schemas"].(map[string]any)
	for _, name := range []string{"mouse_down", "mouse_up"} {
		s, ok := schemas[name].(map[string]any)
		if !ok || fmt.Sprint(s["required"]) != "[x y]" {
			t.Errorf("%s's schema: %v", name, schemas[name])
		}
	}
	var pts [2][2]int
	for i, s := range steps[1:] {
		m := foundAt.FindStringSubmatch(text(s))
		if m == nil {
			t.Fatalf("find_text reported no point: %s", text(s))
		}
		pts[i][0], _ = strconv.Atoi(m[1])
		pts[i][1], _ = strconv.Atoi(m[2])
	}
	from, to := pts[0], pts[1]
	xy := func(p [2]int) map[string]any { return map[string]any{"x": p[0], "y": p[1]} }

	steps = host(t, stdioPlan(t, env, nil,
		step("call", "name", "mouse_down", "args", xy(from)),
		step("call", "name", "move", "args", map[string]any{"x": (from[0] + to[0]) / 2, "y": from[1]}),
		step("call", "name", "run_code", "args", map[string]any{"code": "print('held')"}),
		step("call", "name", "move", "args", xy(to)),
		step("call", "name", "mouse_up", "args", xy(to)),
	))
	for i, s := range steps {
		if s["isError"] == true || s["error"] != nil {
			t.Fatalf("call %d: %s", i, text(s))
		}
	}
	sel, err := d.Command(t.Context(), "xclip", "-o", "-selection", "primary").Output()
	if err != nil {
		t.Fatalf("xclip: %v", err)
	}
	if got := string(sel); !strings.Contains(got, "bravo charlie") || strings.Contains(got, "echo") {
		t.Errorf("after the drag from %v to %v xterm selected %q, want the words between alpha and delta", from, to, got)
	}
	if buttonHeld(t, d) {
		t.Fatal("the button is still down after mouse_up")
	}

	// Held, then the call holding the desktop is cancelled, or the person
	// stops the session: let go at once, while the session still lives.
	heldThen(t, d, stdioPlan(t, env, nil,
		step("call", "name", "mouse_down", "args", xy(from)),
		step("cancelAfter", "name", "run_code", "args", map[string]any{"code": "wait(30)"}, "ms", 1500),
		step("sleep", "ms", 12000),
	), nil)
	heldThen(t, d, stdioPlan(t, env, nil,
		step("call", "name", "mouse_down", "args", xy(from)),
		step("sleep", "ms", 12000),
	), func() {
		if out, code := cli(t, "", "stop"); code != 0 {
			t.Errorf("deskpilot stop (exit %d):\n%s", code, out)
		}
	})

	// Held, then the session ends without mouse_up: let go.
	steps = host(t, stdioPlan(t, env, nil, step("call", "name", "mouse_down", "args", xy(from))))
	if steps[0]["isError"] == true {
		t.Fatalf("mouse_down: %s", text(steps[0]))
	}
	if !released(t, d) {
		t.Error("the button is still down after the session ended")
	}
}

// heldThen runs plan, which holds the left button down and then sleeps 12
// s, and once the button is down does action (nil: none). The button must
// be let go within 6 s, long before the session ends (which lets go of it
// too, so that would prove nothing).
func heldThen(t *testing.T, d *xdisplay.Display, plan map[string]any, action func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		host(t, plan)
	}()
	for !buttonHeld(t, d) {
		select {
		case <-done:
			t.Fatal("the session ended before the button went down")
		case <-time.After(50 * time.Millisecond):
		}
	}
	if action != nil {
		action()
	}
	deadline := time.After(6 * time.Second)
	for buttonHeld(t, d) {
		select {
		case <-done:
			t.Fatal("the button was let go only when the session ended")
		case <-deadline:
			t.Fatal("the button is still down 6 s later")
		case <-time.After(50 * time.Millisecond):
		}
	}
	<-done
}
