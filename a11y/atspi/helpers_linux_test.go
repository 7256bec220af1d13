package atspi

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"deskpilot/a11y"
	"deskpilot/actions"
	"deskpilot/actions/robot"
	"deskpilot/vision/xdisplay"
)

// env is what a test needs: the private display, a client on it and a robot that
// clicks and types on it.
type env struct {
	d   *xdisplay.Display
	c   *Client
	bot *robot.Robot
}

func newEnv(t *testing.T, o Options) *env { return newEnvTB(t, o) }

func newBenchEnv(b *testing.B) *env { return newEnvTB(b, Options{}) }

func newEnvTB(t testing.TB, o Options) *env {
	t.Helper()
	d, err := xdisplay.Attach("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	c, err := Connect(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	bot, err := robot.New("", c.bounds)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bot.Close() })
	return &env{d: d, c: c, bot: bot}
}

// zenity starts a zenity dialog and waits until its elements can be read.
func (e *env) zenity(t *testing.T, ctx context.Context, args ...string) *xdisplay.App {
	t.Helper()
	app, err := e.d.StartApp(ctx, "zenity", args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Stop() })
	e.waitApp(t, ctx, app)
	return app
}

// waitApp polls Elements until one element of app's process is interactive and
// enabled (GTK maps the dialog before its buttons are sensitive to input).
func (e *env) waitApp(t *testing.T, ctx context.Context, app *xdisplay.App) {
	t.Helper()
	if err := e.waitPID(ctx, app.Cmd.Process.Pid); err != nil {
		t.Fatalf("%v; output: %s", err, app.Output())
	}
}

func (e *env) waitAppB(b *testing.B, ctx context.Context, pid int) {
	b.Helper()
	if err := e.waitPID(ctx, pid); err != nil {
		b.Fatal(err)
	}
}

// waitPID polls Elements until an enabled interactive element of process pid shows.
func (e *env) waitPID(ctx context.Context, pid int) error {
	for {
		els, note, err := e.c.Elements(ctx, a11y.Query{Interactive: true, States: []string{"enabled"}})
		if err != nil {
			return fmt.Errorf("elements: %w", err)
		}
		for _, el := range els {
			if el.PID == pid {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the elements of pid %d never showed up; note: %s", pid, note)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// find returns the single element q selects within app's process.
func (e *env) find(t *testing.T, ctx context.Context, app *xdisplay.App, q a11y.Query) a11y.Element {
	t.Helper()
	els, note, err := e.c.Elements(ctx, q)
	if err != nil {
		t.Fatalf("elements %+v: %v", q, err)
	}
	var mine []a11y.Element
	for _, el := range els {
		if el.PID == app.Cmd.Process.Pid {
			mine = append(mine, el)
		}
	}
	if len(mine) == 0 {
		t.Fatalf("no element for %+v (note: %q); all: %s", q, note, describe(e.all(t, ctx)))
	}
	return mine[0]
}

// waitFor polls until the element q selects in app's process satisfies ok (GTK
// handles input events after the X server has them) and returns it.
func (e *env) waitFor(t *testing.T, ctx context.Context, app *xdisplay.App, q a11y.Query, what string, ok func(a11y.Element) bool) a11y.Element {
	t.Helper()
	for {
		// Until then an app that answered late (the walk skips it, and says
		// so in its note) or an element not there yet is one more poll.
		els, note, err := e.c.Elements(ctx, q)
		var last a11y.Element
		for _, el := range els {
			if el.PID == app.Cmd.Process.Pid {
				if last = el; ok(el) {
					return el
				}
				break
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: never true for %+v; last %+v (note %q, error %v)", what, q, last, note, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// all returns every element, failing the test on error.
func (e *env) all(t *testing.T, ctx context.Context) []a11y.Element {
	t.Helper()
	els, _, err := e.c.Elements(ctx, a11y.Query{})
	if err != nil {
		t.Fatal(err)
	}
	return els
}

// click clicks the centre of el with the left button.
func (e *env) click(t *testing.T, ctx context.Context, el a11y.Element) {
	t.Helper()
	p := el.Center()
	if err := e.bot.Click(ctx, actions.Point{X: p.X, Y: p.Y}, actions.Left, 1); err != nil {
		t.Fatalf("click %s %q at %v: %v", el.Role, el.Name, p, err)
	}
}

// typeText types s with the robot.
func (e *env) typeText(t *testing.T, ctx context.Context, s string) {
	t.Helper()
	if err := e.bot.Type(ctx, s); err != nil {
		t.Fatalf("type %q: %v", s, err)
	}
}

// waitExit waits for app to exit and returns its exit code and output.
func waitExit(t *testing.T, ctx context.Context, app *xdisplay.App) (int, string) {
	t.Helper()
	for !app.Exited() {
		select {
		case <-ctx.Done():
			t.Fatalf("%s did not exit; output: %s", app.Cmd.Path, app.Output())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return app.Cmd.ProcessState.ExitCode(), app.Output()
}

// stdout drops GTK's warnings from zenity's combined output.
func stdout(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if l == "" || strings.Contains(l, "Gtk-") || strings.Contains(l, "GLib") || strings.HasPrefix(l, "(zenity:") ||
			strings.Contains(l, "CRITICAL") || strings.Contains(l, "WARNING") || strings.Contains(l, "dbind-") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}
