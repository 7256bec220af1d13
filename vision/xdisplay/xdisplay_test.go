//go:build linux

package xdisplay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain checks Main itself: every test below runs with DISPLAY pointing at a
// display Main started.
func TestMain(m *testing.M) { os.Exit(Main(m, Options{NoWindowManager: true})) }

func TestMainSetsEnvironment(t *testing.T) {
	d, err := Attach("")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.Width != 1280 || d.Height != 800 {
		t.Errorf("Main display size = %dx%d, want 1280x800", d.Width, d.Height)
	}
	if _, err := os.Stat(os.Getenv("XAUTHORITY")); err != nil {
		t.Errorf("XAUTHORITY: %v", err)
	}
}

func TestTwoDisplaysWithWindows(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	opts := []Options{{}, {Width: 1024, Height: 768}}
	displays := make([]*Display, len(opts))
	errs := make([]error, len(opts))
	var wg sync.WaitGroup
	for i, o := range opts {
		wg.Go(func() { displays[i], errs[i] = Start(ctx, o) })
	}
	wg.Wait()
	for i, d := range displays {
		if errs[i] != nil {
			t.Fatalf("start display %d: %v", i, errs[i])
		}
		t.Cleanup(func() { closeAndCheck(t, d) })
	}
	if displays[0].Name == displays[1].Name || displays[0].Name == os.Getenv("DISPLAY") {
		t.Fatalf("display names not distinct: %q %q (Main's %q)", displays[0].Name, displays[1].Name, os.Getenv("DISPLAY"))
	}
	for i, d := range displays {
		t.Run(fmt.Sprintf("display%d", i), func(t *testing.T) {
			title := fmt.Sprintf("xdisplay-test-%d-%s", i, strings.TrimPrefix(d.Name, ":"))
			app, err := d.StartApp(ctx, "xterm", "-T", title, "-geometry", "60x10+40+50")
			if err != nil {
				t.Fatal(err)
			}
			defer app.Stop()
			w, err := d.WaitWindow(ctx, title)
			if err != nil {
				t.Fatalf("%v (xterm output: %s)", err, app.Output())
			}
			checkWindow(t, d, w, title, app.Cmd.Process.Pid)
			if err := app.Stop(); err != nil {
				t.Fatal(err)
			}
			if !app.Exited() {
				t.Error("app still running after Stop")
			}
		})
	}
}

func checkWindow(t *testing.T, d *Display, w Window, title string, pid int) {
	t.Helper()
	if w.Title != title {
		t.Errorf("title = %q, want %q", w.Title, title)
	}
	if w.PID != pid {
		t.Errorf("PID = %d, want %d", w.PID, pid)
	}
	b := w.Bounds
	if b.Dx() < 100 || b.Dy() < 50 || b.Min.X < 0 || b.Min.Y < 0 || b.Max.X > d.Width || b.Max.Y > d.Height {
		t.Errorf("client bounds %v not sane on a %dx%d screen", b, d.Width, d.Height)
	}
	// openbox decorates: the frame holds the client, with a title bar above it.
	if !b.In(w.Frame) || w.Frame.Min.Y >= b.Min.Y {
		t.Errorf("frame %v does not enclose client %v with a title bar", w.Frame, b)
	}
}

func TestNoWindowManager(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	d, err := Start(ctx, Options{Width: 800, Height: 600, NoWindowManager: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeAndCheck(t, d)
	app, err := d.StartApp(ctx, "xterm", "-T", "bare", "-geometry", "40x5+10+20")
	if err != nil {
		t.Fatal(err)
	}
	defer app.Stop()
	w, err := d.WaitWindow(ctx, "bare")
	if err != nil {
		t.Fatal(err)
	}
	if w.Frame != w.Bounds {
		t.Errorf("frame %v != bounds %v without a window manager", w.Frame, w.Bounds)
	}
	if w.Bounds.Min.X < 10 || w.Bounds.Min.Y < 20 || w.Bounds.Min.X > 12 || w.Bounds.Min.Y > 22 {
		t.Errorf("bounds %v, want origin at (10,20) plus the border width", w.Bounds)
	}
}

func TestCommandUsesDisplay(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	d, err := Start(ctx, Options{Width: 640, Height: 480, NoWindowManager: true})
	if err != nil {
		t.Fatal(err)
	}
	defer closeAndCheck(t, d)
	out, err := d.Command(ctx, "xdpyinfo").CombinedOutput()
	if err != nil {
		t.Fatalf("xdpyinfo: %v\n%s", err, out)
	}
	for _, want := range []string{"name of display:    " + d.Name, "640x480 pixels", "RANDR", "MIT-SHM"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("xdpyinfo output lacks %q", want)
		}
	}
}

func TestWaitWindowTimesOut(t *testing.T) {
	d, err := Attach("")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, err := d.WaitWindow(ctx, "no such window"); err == nil {
		t.Fatal("WaitWindow found a window that does not exist")
	}
}

// TestWaitWindows starts two xterms and waits for both to be shown; asking
// for one more times out.
func TestWaitWindows(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	d, err := Start(ctx, Options{Width: 800, Height: 600})
	if err != nil {
		t.Fatal(err)
	}
	defer closeAndCheck(t, d)
	for i, geom := range []string{"40x5+10+20", "40x5+300+300"} {
		app, err := d.StartApp(ctx, "xterm", "-T", fmt.Sprintf("wait-%d", i), "-geometry", geom)
		if err != nil {
			t.Fatal(err)
		}
		defer app.Stop()
	}
	ws, err := d.WaitWindows(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]bool{}
	for _, w := range ws {
		titles[w.Title] = w.Viewable
	}
	if len(ws) != 2 || !titles["wait-0"] || !titles["wait-1"] {
		t.Errorf("windows %v, want the two xterms shown", titles)
	}
	short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancelShort()
	if _, err := d.WaitWindows(short, 3); err == nil {
		t.Error("WaitWindows(3) returned with two windows shown")
	}
}

// closeAndCheck closes d and verifies that the X server process is gone and its
// socket and lock file removed.
func closeAndCheck(t *testing.T, d *Display) {
	t.Helper()
	pid := d.server.cmd.Process.Pid
	num := strings.TrimPrefix(d.Name, ":")
	if err := d.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("Xvfb pid %d still exists after Close", pid)
	}
	paths := []string{"/tmp/.X11-unix/X" + num, "/tmp/.X" + num + "-lock", d.dir}
	if other, ok := lockPid("/tmp/.X" + num + "-lock"); ok && other != pid {
		// Another X server (a test running beside this one) took the
		// number once it was free: its socket and lock are its own.
		paths = paths[2:]
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s still exists after Close", filepath.Clean(p))
		}
	}
}

// lockPid reads the pid an X server wrote in its lock file.
func lockPid(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid, err == nil
}
