//go:build linux

package xdisplay

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

// proc is a started child process in its own process group, reaped by a goroutine.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once Wait returned
	err  error         // Wait's result, valid after done
}

// startProc starts cmd in a new process group. The child gets SIGKILL if the thread
// that started it dies, so a crashed test binary leaves no server behind.
func startProc(cmd *exec.Cmd) (*proc, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// ownGroup makes cmd run in a process group of its own that cancelling its
// context kills as a whole.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid, syscall.SIGKILL) }
}

// stop sends SIGTERM to the process group, then SIGKILL after stopTimeout, and waits.
func (p *proc) stop() error {
	select {
	case <-p.done:
		return nil // already gone; its exit status is not our error
	default:
	}
	pid := p.cmd.Process.Pid
	_ = killGroup(pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopTimeout):
		_ = killGroup(pid, syscall.SIGKILL)
		select {
		case <-p.done:
		case <-time.After(stopTimeout):
			return fmt.Errorf("%s (pid %d) did not exit", p.cmd.Path, pid)
		}
	}
	return nil
}

// killGroup signals the process group led by pid; a group already gone is not an error.
func killGroup(pid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill group %d: %w", pid, err)
	}
	return nil
}
