//go:build linux

package robot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"deskpilot/actions"
	"deskpilot/internal/xconn"
	"deskpilot/vision/xdisplay"
)

// TestMain runs every test on a private Xvfb display with openbox; the
// target application is testdata/target.py (needs python3 and python3-tk).
func TestMain(m *testing.M) { os.Exit(xdisplay.Main(m, xdisplay.Options{})) }

// waitTimeout bounds every wait for the target application; it only turns a
// hang into a failure and is never a timing assertion.
const waitTimeout = 30 * time.Second

// event is one line of the target application's log (see testdata/target.py).
type event struct {
	Ev      string            `json:"ev"`
	W       string            `json:"w"`
	B       int               `json:"b"`
	X       int               `json:"x"`
	Y       int               `json:"y"`
	State   int               `json:"state"`
	Keysym  string            `json:"keysym"`
	Char    string            `json:"char"`
	Text    string            `json:"text"`
	Widgets map[string][4]int `json:"widgets"`
}

func (e event) String() string {
	switch e.Ev {
	case "key", "keyup":
		return fmt.Sprintf("%s %s %q state=%#x on %s", e.Ev, e.Keysym, e.Char, e.State, e.W)
	case "dump":
		return fmt.Sprintf("dump %q", e.Text)
	case "geometry":
		return "geometry"
	}
	return fmt.Sprintf("%s b%d (%d,%d) state=%#x on %s", e.Ev, e.B, e.X, e.Y, e.State, e.W)
}

// target is a running target application and a Robot for the whole screen.
type target struct {
	t       testing.TB
	log     string
	read    int     // bytes of log already parsed
	events  []event // parsed, not yet consumed
	widgets map[string]image.Rectangle
	r       *Robot
}

// startTarget starts testdata/target.py, waits until its window is placed
// and returns it with a Robot on the display.
func startTarget(t testing.TB) *target {
	t.Helper()
	ctx := t.Context()
	d, err := xdisplay.Attach("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	title := "robot-target-" + regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-")
	tg := &target{t: t, log: filepath.Join(t.TempDir(), "events.jsonl")}
	app, err := d.StartApp(ctx, "env", "LC_ALL=C.UTF-8", "/usr/bin/python3", "testdata/target.py", tg.log, title)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := app.Stop(); err != nil {
			t.Errorf("stop target: %v", err)
		}
	})
	wctx, cancel := context.WithTimeout(ctx, waitTimeout)
	defer cancel()
	w, err := d.WaitWindow(wctx, title)
	if err != nil {
		t.Fatalf("%v\ntarget output: %s", err, app.Output())
	}
	geo := tg.next("geometry matching the placed window", func(e event) bool {
		if ws, err := d.Windows(wctx); err == nil {
			for _, cur := range ws {
				if cur.ID == w.ID {
					w = cur
				}
			}
		}
		if e.Ev != "geometry" {
			return false
		}
		for name, g := range e.Widgets {
			r := image.Rect(g[0], g[1], g[0]+g[2], g[1]+g[3])
			if r.Dx() < 20 || r.Dy() < 20 || !r.In(w.Bounds) || (name == "root" && r != w.Bounds) {
				return false // not laid out or not placed yet
			}
		}
		return true
	})
	tg.widgets = map[string]image.Rectangle{}
	for name, g := range geo.Widgets {
		tg.widgets[name] = image.Rect(g[0], g[1], g[0]+g[2], g[1]+g[3])
	}
	tg.r, err = New("", image.Rectangle{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := tg.r.Close(); err != nil {
			t.Errorf("close robot: %v", err)
		}
	})
	return tg
}

// center returns the centre of a widget in root coordinates.
func (tg *target) center(widget string) actions.Point {
	c := tg.widgets[widget]
	return actions.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2}
}

// at returns the point (dx, dy) inside a widget, in root coordinates.
func (tg *target) at(widget string, dx, dy int) actions.Point {
	c := tg.widgets[widget]
	return actions.Point{X: c.Min.X + dx, Y: c.Min.Y + dy}
}

// next consumes events up to and including the first that matches, and
// returns that one.

// until consumes events up to and including the first that matches, and
// returns them all.
func (tg *target) until(what string, match func(event) bool) []event {
	tg.t.Helper()
	var seen []event
	tg.next(what, func(e event) bool {
		seen = append(seen, e)
		return match(e)
	})
	return seen
}

// next consumes events up to and including the first that matches, and
// returns that one.
func (tg *target) next(what string, match func(event) bool) event {
	t := tg.t
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	var skipped []string
	for {
		for len(tg.events) > 0 {
			e := tg.events[0]
			tg.events = tg.events[1:]
			if match(e) {
				return e
			}
			skipped = append(skipped, e.String())
		}
		if time.Now().After(deadline) {
			if len(skipped) > 30 {
				skipped = append(skipped[:15], append([]string{"..."}, skipped[len(skipped)-15:]...)...)
			}
			t.Fatalf("target never logged %s; it logged:\n  %s", what, strings.Join(skipped, "\n  "))
		}
		if !tg.poll() {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// poll parses the complete lines appended to the log; false when none.
func (tg *target) poll() bool {
	t := tg.t
	t.Helper()
	data, err := os.ReadFile(tg.log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	end := bytes.LastIndexByte(data, '\n') + 1
	if end <= tg.read {
		return false
	}
	for _, line := range bytes.Split(bytes.TrimSpace(data[tg.read:end]), []byte("\n")) {
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("target log line %q: %v", line, err)
		}
		tg.events = append(tg.events, e)
	}
	tg.read = end
	return true
}

// dump presses Ctrl+D and returns the text box's content.
func (tg *target) dump() string {
	tg.t.Helper()
	if err := tg.r.Press(tg.t.Context(), combo(tg.t, "ctrl+d")); err != nil {
		tg.t.Fatal(err)
	}
	return tg.next("dump of the text box", func(e event) bool { return e.Ev == "dump" }).Text
}

// focusText clicks into the text box and waits until the click arrived.
func (tg *target) focusText() {
	tg.t.Helper()
	p := tg.center("text")
	if err := tg.r.Click(tg.t.Context(), p, actions.Left, 1); err != nil {
		tg.t.Fatal(err)
	}
	tg.next("release in the text box", func(e event) bool { return e.Ev == "release" && e.W == "text" })
}

func combo(t testing.TB, s string) actions.Combo {
	t.Helper()
	c, err := actions.ParseCombo(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// serverState asks the X server, on a connection of its own, which
// modifiers and buttons are down (a KeyButMask).
func serverState(t testing.TB) uint16 {
	t.Helper()
	c, err := xconn.Dial("")
	if err != nil {
		t.Fatal(err)
	}
	defer xconn.Close(c)
	root := xproto.Setup(c).DefaultScreen(c).Root
	q, err := xproto.QueryPointer(c, root).Reply()
	if err != nil {
		t.Fatal(err)
	}
	return q.Mask
}
