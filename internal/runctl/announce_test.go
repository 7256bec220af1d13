//go:build linux

package runctl

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// A live process's announcement is a peer to every other process; this
// process's own is not; a file whose process died, or whose pid now belongs
// to a process started later, is no peer and is removed.
func TestAnnouncePeers(t *testing.T) {
	dir := t.TempDir()
	done, err := Announce(dir)
	if err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(dir, strconv.Itoa(os.Getpid())+winSuffix)
	if _, err := os.Stat(self); err != nil {
		t.Fatalf("no announcement: %v", err)
	}
	if p := Peers(dir); len(p) != 0 {
		t.Errorf("this process is its own peer: %v", p)
	}

	// Another live process (sleep), announced as Announce would for it.
	live := exec.Command("sleep", "60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = live.Process.Kill(); _ = live.Wait() })
	pid := live.Process.Pid
	write := func(pid int, start string) string {
		path := filepath.Join(dir, strconv.Itoa(pid)+winSuffix)
		if err := os.WriteFile(path, []byte(fmt.Sprintf("%d %s\n", pid, start)), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write(pid, startTime(pid))
	// A dead process: one that ran and was reaped.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadFile := write(dead.Process.Pid, "1")
	// The live pid, written by an earlier process of that pid (another start time).
	if p := Peers(dir); !slices.Equal(p, []int{pid}) {
		t.Errorf("peers %v, want [%d]", p, pid)
	}
	if _, err := os.Stat(deadFile); !os.IsNotExist(err) {
		t.Errorf("the dead process's file is still there: %v", err)
	}
	reusedFile := write(pid, "12345")
	if p := Peers(dir); len(p) != 0 {
		t.Errorf("a pid now another process's is a peer: %v", p)
	}
	if _, err := os.Stat(reusedFile); !os.IsNotExist(err) {
		t.Error("the file of the pid's earlier process is still there")
	}

	done()
	if _, err := os.Stat(self); !os.IsNotExist(err) {
		t.Errorf("the announcement outlived done: %v", err)
	}
}
