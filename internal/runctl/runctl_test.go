package runctl

import (
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// Entries answer status, stop, pause and resume from another connection;
// StopAll stops them all; a socket whose listener is gone is removed; the
// registry counts the open entries.
func TestRegisterListStop(t *testing.T) {
	dir, err := Dir(func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return t.TempDir()
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("control folder mode %v", fi.Mode().Perm())
	}
	var stopped, paused, resumed atomic.Int32
	var open []int
	reg := &Registry{Dir: dir, Active: func(n int) { open = append(open, n) }}
	a, err := reg.Register(Status{Kind: KindRun, Task: "write a haiku"}, Controls{
		Stop: func() { stopped.Add(1) }, Pause: func() { paused.Add(1) }, Resume: func() { resumed.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	b, err := reg.Register(Status{Kind: KindMCP, Host: "Claude Code"}, Controls{Stop: func() { stopped.Add(10) }})
	if err != nil {
		t.Fatal(err)
	}
	b.Update(func(s *Status) { s.Tool = "click" })
	// A socket nobody listens on: a process that died.
	dead := filepath.Join(dir, "1-dead.sock")
	ln, err := net.Listen("unix", dead)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()

	all, err := List(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Task != "write a haiku" || all[1].Host != "Claude Code" || all[1].Tool != "click" || all[0].PID != os.Getpid() {
		t.Errorf("List: %+v", all)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead socket is still there: %v", err)
	}
	if _, err := Send(t.Context(), dir, a.Status().ID, CmdPause); err != nil || paused.Load() != 1 {
		t.Errorf("pause: %v, %d", err, paused.Load())
	}
	if _, err := Send(t.Context(), dir, a.Status().ID, CmdResume); err != nil || resumed.Load() != 1 {
		t.Errorf("resume: %v, %d", err, resumed.Load())
	}
	if _, err := Send(t.Context(), dir, a.Status().ID, "format disk"); err == nil {
		t.Error("an unknown command was answered with a status")
	}
	got, err := StopAll(t.Context(), dir)
	if err != nil || len(got) != 2 || stopped.Load() != 11 {
		t.Errorf("StopAll: %v %+v, stopped %d", err, got, stopped.Load())
	}
	_ = a.Close()
	_ = b.Close()
	_ = b.Close()
	if all, _ := List(t.Context(), dir); len(all) != 0 {
		t.Errorf("closed entries still listed: %+v", all)
	}
	if len(open) != 4 || open[1] != 2 || open[3] != 0 {
		t.Errorf("Active saw %v", open)
	}
}

// A control folder others may write to is closed to them.
func TestDirIsTheUsersOwn(t *testing.T) {
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "deskpilot", "ctl"), 0o777); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(filepath.Join(base, "deskpilot"), 0o777)
	dir, err := Dir(func(string) string { return base })
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if fi, _ := os.Stat(d); fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s is %v", d, fi.Mode().Perm())
		}
	}
}
