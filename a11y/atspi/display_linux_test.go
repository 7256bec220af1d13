package atspi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"deskpilot/a11y"
	"deskpilot/internal/testapps"
	"deskpilot/vision/xdisplay"
)

// TestOtherDisplayLeftOut puts a second X display on the same accessibility bus
// (its zenity finds the first display's buses through the environment): each
// display's client sees its own dialog and not the other's.
func TestOtherDisplayLeftOut(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	e := newEnv(t, Options{})
	here := e.zenity(t, ctx, "--info", "--title", "Here", "--text", "on display A")

	other, err := xdisplay.Start(ctx, xdisplay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	there, err := other.StartApp(ctx, "zenity", "--info", "--title", "There", "--text", "on display B")
	if err != nil {
		t.Fatal(err)
	}
	defer there.Stop()
	t.Setenv("XAUTHORITY", other.XAuthority)
	cb, err := Connect(ctx, Options{XDisplay: other.Name})
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	eb := &env{d: other, c: cb}
	eb.waitApp(t, ctx, there)

	for _, tc := range []struct {
		name        string
		c           *Client
		want, wrong *xdisplay.App
	}{
		{"A", e.c, here, there},
		{"B", cb, there, here},
	} {
		t.Run(tc.name, func(t *testing.T) {
			els, note, err := tc.c.Elements(ctx, a11y.Query{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(els, func(el a11y.Element) bool { return el.PID == tc.want.Cmd.Process.Pid }) {
				t.Errorf("the display's own dialog is missing:%s", describe(els))
			}
			if slices.ContainsFunc(els, func(el a11y.Element) bool { return el.PID == tc.wrong.Cmd.Process.Pid }) {
				t.Errorf("the other display's dialog came back:%s", describe(els))
			}
			if note.OtherDisplay < 1 {
				t.Errorf("note counts %d apps on other displays, want >= 1", note.OtherDisplay)
			}
		})
	}
}

// TestTkHasNoTree: Tk has no AT-SPI bridge on Linux; with only a Tk window on the
// display the walk finds nothing and the note says to use find_text.
func TestTkHasNoTree(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	e := newEnv(t, Options{})
	testapps.StartForm(t, e.d)
	els, note, err := e.c.Elements(ctx, a11y.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(els) != 0 || note.Apps != 0 {
		t.Errorf("a Tk-only display gave %d apps:%s", note.Apps, describe(els))
	}
	if s := note.String(); !strings.Contains(s, "no application on this display exposes accessible elements") ||
		!strings.Contains(s, "find_text") {
		t.Errorf("note %q does not explain the empty tree", s)
	}
}

// TestUnavailable: without any reachable accessibility bus Connect fails with an
// error that matches a11y.ErrUnavailable and points the model to find_text; a bus that
// accepts and never answers is given up on, not waited for.
func TestUnavailable(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	bare, err := xdisplay.Start(ctx, xdisplay.Options{NoWindowManager: true})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	t.Setenv("XAUTHORITY", bare.XAuthority)
	mute := filepath.Join(t.TempDir(), "mute.sock")
	ln, err := net.Listen("unix", mute)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // accepts and says nothing
		}
	}()
	for _, tc := range []struct {
		name string
		o    Options
		want []string
	}{
		{"no bus", Options{BusAddress: "unix:path=/nonexistent/bus"}, []string{"session bus"}},
		{"mute bus", Options{A11yAddress: "unix:path=" + mute, BusAddress: "unix:path=/nonexistent/bus",
			CallTimeout: 100 * time.Millisecond}, []string{"Options.A11yAddress", "session bus"}},
		{"no display", Options{XDisplay: ":9999"}, []string{"X display"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.XDisplay = cmp.Or(tc.o.XDisplay, bare.Name)
			c, err := Connect(ctx, tc.o)
			if err == nil {
				c.Close()
				t.Fatal("Connect succeeded")
			}
			if !errors.Is(err, a11y.ErrUnavailable) || !strings.Contains(err.Error(), "find_text") {
				t.Errorf("error %q is not an unavailable error that suggests find_text", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestCacheAndObjectWalkAgree reads the same dialogs through the Cache interface and
// object by object: the elements must be the same.
func TestCacheAndObjectWalkAgree(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	e := newEnv(t, Options{})
	e.zenity(t, ctx, "--list", "--checklist", "--title", "Agree", "--text", "Pick",
		"--column", "Pick", "--column", "Fruit", "TRUE", "Apple", "FALSE", "Banana")
	e.zenity(t, ctx, "--forms", "--title", "Agree form", "--add-entry", "Name", "--add-password", "Pin")
	cached := e.all(t, ctx)
	e.c.mu.Lock()
	for _, el := range cached {
		e.c.big[el.Bus] = true // too big for the cache: walk object by object
	}
	e.c.mu.Unlock()
	walked := e.all(t, ctx)
	key := func(el a11y.Element) string {
		return strings.Join([]string{el.ID(), el.Role, el.Name, el.Text, el.Bounds.String(), strings.Join(el.States, ",")}, "|")
	}
	a, b := make([]string, len(cached)), make([]string, len(walked))
	for i, el := range cached {
		a[i] = key(el)
	}
	for i, el := range walked {
		b[i] = key(el)
	}
	if len(a) < 10 || !slices.Equal(a, b) {
		t.Errorf("cache read and object walk differ:\ncache:%s\nobjects:%s", describe(cached), describe(walked))
	}
}

// TestBadQuery: a role or state the model got wrong is a *a11y.QueryError with a hint.
func TestBadQuery(t *testing.T) {
	e := newEnv(t, Options{})
	for _, tc := range []struct {
		q    a11y.Query
		hint string
	}{
		{a11y.Query{Role: "buton"}, "button"},
		{a11y.Query{States: []string{"chekced"}}, "checked"},
	} {
		_, _, err := e.c.Elements(t.Context(), tc.q)
		var qe *a11y.QueryError
		if !errors.As(err, &qe) || qe.Suggestion != tc.hint {
			t.Errorf("Elements(%+v) = %v, want a a11y.QueryError suggesting %q", tc.q, err, tc.hint)
		}
	}
}

// TestDiscovery: a stale $AT_SPI_BUS_ADDRESS is passed over for the display's own
// bus; on a display without the root property the variable alone finds the bus.
func TestDiscovery(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	addr, err := launcherAddress(ctx, os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("stale variable", func(t *testing.T) {
		t.Setenv("AT_SPI_BUS_ADDRESS", "unix:path=/nonexistent/stale-bus")
		c, err := Connect(ctx, Options{CallTimeout: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	})
	t.Run("variable only", func(t *testing.T) {
		bare, err := xdisplay.Start(ctx, xdisplay.Options{NoWindowManager: true})
		if err != nil {
			t.Fatal(err)
		}
		defer bare.Close()
		t.Setenv("XAUTHORITY", bare.XAuthority)
		t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
		t.Setenv("AT_SPI_BUS_ADDRESS", addr)
		c, err := Connect(ctx, Options{XDisplay: bare.Name})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, note, err := c.Elements(ctx, a11y.Query{}); err != nil || note.Apps != 0 {
			t.Errorf("a display without windows: %v, note %+v", err, note)
		}
	})
	// A display driven from another session (--x-display): the environment names
	// that session's buses, which IgnoreEnv passes over.
	t.Run("ignore env", func(t *testing.T) {
		t.Setenv("AT_SPI_BUS_ADDRESS", addr)
		c, err := Connect(ctx, Options{IgnoreEnv: true})
		if err != nil {
			t.Fatalf("the root window's property: %v", err)
		}
		c.Close()
		bare, err := xdisplay.Start(ctx, xdisplay.Options{NoWindowManager: true})
		if err != nil {
			t.Fatal(err)
		}
		defer bare.Close()
		t.Setenv("XAUTHORITY", bare.XAuthority)
		c, err = Connect(ctx, Options{XDisplay: bare.Name, IgnoreEnv: true})
		if err == nil {
			c.Close()
			t.Fatal("connected through the environment's bus")
		}
		if !errors.Is(err, a11y.ErrUnavailable) || !strings.Contains(err.Error(), "AT_SPI_BUS property") {
			t.Errorf("error %q", err)
		}
	})
}

// TestConcurrentElements: one client used from several goroutines at once.
func TestConcurrentElements(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	e := newEnv(t, Options{})
	app := e.zenity(t, ctx, "--question", "--title", "Many", "--text", "Concurrent?")
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			els, _, err := e.c.Elements(ctx, a11y.Query{Name: "yes", Role: "button"})
			if err == nil && (len(els) != 1 || els[0].PID != app.Cmd.Process.Pid) {
				err = fmt.Errorf("got %d elements:%s", len(els), describe(els))
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestWindowWithoutPID: a window that does not say which process owns it is
// matched to an application by geometry: the application whose top-level has that
// window's extents is read, one whose top-level is elsewhere is not.
func TestWindowWithoutPID(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	e := newEnv(t, Options{})
	win := fakeWindow(t, ctx, "no pid here", false)
	startFakeOn(t, ctx, win, func(f *fakeApp, win image.Rectangle) {
		f.node = staticTree(simpleTree(win, "Matched"))
	})
	elsewhere := image.Rect(700, 500, 900, 700)
	startFakeOn(t, ctx, elsewhere, func(f *fakeApp, _ image.Rectangle) {
		f.node = staticTree(simpleTree(elsewhere, "Unmatched"))
	})
	els, note, err := e.c.Elements(ctx, a11y.Query{Role: "button"})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(els))
	for i, el := range els {
		names[i] = el.Name
	}
	if !slices.Contains(names, "Matched") || slices.Contains(names, "Unmatched") {
		t.Errorf("buttons %q, want Matched and not Unmatched", names)
	}
	if note.OtherDisplay < 1 {
		t.Errorf("note %+v does not count the unmatched app", note)
	}
}

// TestXAuthority reads a private display whose cookie is not in the process's
// $XAUTHORITY (that names the test's own display), as eval reads a task's
// display: with Options.XAuthority the display's own file, Connect reaches it
// and the tree holds its dialog's button; without, the X server refuses it.
func TestXAuthority(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	task, err := xdisplay.Start(ctx, xdisplay.Options{Accessibility: true})
	if err != nil {
		t.Fatal(err)
	}
	defer task.Close()
	own := os.Getenv("XAUTHORITY")
	if own == "" || own == task.XAuthority {
		t.Fatalf("$XAUTHORITY %q: want the test display's file, not the task display's %q", own, task.XAuthority)
	}
	t.Setenv("XAUTHORITY", own)
	app, err := task.StartApp(ctx, "zenity", "--question", "--title", "Cookie", "--text", "read with its own cookie?")
	if err != nil {
		t.Fatal(err)
	}
	defer app.Stop()

	o := Options{XDisplay: task.Name, BusAddress: task.SessionBus, IgnoreEnv: true}
	t.Run("without", func(t *testing.T) {
		c, err := Connect(ctx, o)
		if err == nil {
			c.Close()
			t.Fatal("Connect with the process's $XAUTHORITY reached a display it has no cookie for")
		}
		if !errors.Is(err, a11y.ErrUnavailable) || !strings.Contains(err.Error(), "authentication refused") {
			t.Errorf("Connect: %v, want the X server's refusal", err)
		}
	})
	o.XAuthority = task.XAuthority
	c, err := Connect(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e := &env{d: task, c: c}
	e.waitApp(t, ctx, app)
	yes := e.find(t, ctx, app, a11y.Query{Name: "Yes", Exact: true, Role: "button"})
	if yes.Role != "push button" || !yes.Has("enabled") || yes.Bounds.Empty() {
		t.Errorf("zenity's Yes button read as %s %q %v %v", yes.Role, yes.Name, yes.States, yes.Bounds)
	}
	e.find(t, ctx, app, a11y.Query{Name: "read with its own cookie?", Exact: true, Role: "label"})
}
