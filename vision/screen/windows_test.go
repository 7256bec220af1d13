//go:build linux

package screen

import (
	"context"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"deskpilot/internal/xconn"
	"deskpilot/vision/xdisplay"
)

func TestWindowsOfPID(t *testing.T) {
	d := startDisplay(t, xdisplay.Options{}) // with openbox: clients are reparented into frames
	s := openScreen(t, d)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	app, err := d.StartApp(ctx, "xterm", "-title", "owned-window", "-geometry", "40x10+200+150")
	if err != nil {
		t.Fatal(err)
	}
	defer app.Stop()
	w, err := d.WaitWindow(ctx, "owned-window")
	if err != nil {
		t.Fatal(err)
	}
	rects, err := s.WindowsOfPID(app.Cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if len(rects) != 1 {
		t.Fatalf("WindowsOfPID found %d windows %v, want 1", len(rects), rects)
	}
	if !w.Bounds.In(rects[0]) {
		t.Errorf("frame %v does not enclose the client area %v", rects[0], w.Bounds)
	}
	none, err := s.WindowsOfPID(app.Cmd.Process.Pid + 100000)
	if err != nil || len(none) != 0 {
		t.Errorf("WindowsOfPID(other pid) = %v, %v; want none", none, err)
	}
}

func TestIdleTimeSeesInput(t *testing.T) {
	d := startDisplay(t, xdisplay.Options{NoWindowManager: true})
	s := openScreen(t, d)
	if err := xconn.Enable(s.conn, xconn.XTest); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	before, err := s.IdleTime()
	if err != nil {
		t.Fatal(err)
	}
	if before < 300*time.Millisecond {
		t.Fatalf("idle %v after 400 ms without input", before)
	}
	if err := xtest.FakeInputChecked(s.conn, xproto.MotionNotify, 0, 0, s.root, 10, 10, 0).Check(); err != nil {
		t.Fatal(err)
	}
	after, err := s.IdleTime()
	if err != nil {
		t.Fatal(err)
	}
	if after >= before {
		t.Errorf("idle time %v did not drop after input (was %v)", after, before)
	}
}
