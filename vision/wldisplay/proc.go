package wldisplay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a child process in a process group of its own, waited for.
type proc struct {
	cmd  *exec.Cmd
	out  *tailBuffer
	done chan struct{}
	err  error
	// stdin keeps a watched process's pipe open (startWatched).
	stdin *os.File
}

// start runs cmd in its own process group with its output kept.
func start(cmd *exec.Cmd) (*proc, error) {
	p := &proc{cmd: cmd, out: &tailBuffer{max: 64 << 10}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// startKeepStdout is start for a cmd whose stdout the caller reads.
func startKeepStdout(cmd *exec.Cmd) (*proc, error) {
	p := &proc{cmd: cmd, out: &tailBuffer{max: 64 << 10}, done: make(chan struct{})}
	cmd.Stderr = p.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// startWatched runs argv under a shell that ends it when this process dies:
// the kernel's parent-death signal does not survive setpriv's change of uid,
// so the shell, which keeps it, waits on a pipe from this process instead and
// kills the program when the pipe closes.
func startWatched(argv []string) (*proc, error) {
	script := `"$@" & child=$!; trap 'kill $child 2>/dev/null; wait $child; exit 0' TERM; read _; kill $child 2>/dev/null; wait $child`
	cmd := exec.Command("sh", append([]string{"-c", script, "sh"}, argv...)...)
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdin = r
	p, err := start(cmd)
	r.Close()
	if err != nil {
		w.Close()
		return nil, err
	}
	p.stdin = w
	return p, nil
}

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop ends the process group: SIGTERM, then SIGKILL after a second.
func (p *proc) stop() {
	if p == nil || p.cmd.Process == nil {
		return
	}
	if p.stdin != nil {
		p.stdin.Close()
	}
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // children left in the group
}

// tailBuffer keeps the last max bytes written to it. Safe for concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	b   bytes.Buffer
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if over := t.b.Len() - t.max; over > 0 {
		t.b.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}

// waitFor polls ok every 10 ms until it holds, ctx ends or p exits.
func waitFor(ctx context.Context, p *proc, what string, ok func() bool) error {
	for !ok() {
		if p != nil && p.exited() {
			return fmt.Errorf("%s: the process exited: %v\n%s", what, p.err, lastLines(p.out.String(), 15))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", what, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// need returns the path of each program, or an error naming the Debian
// package of the first one missing.
func need(progs map[string]string) error {
	var missing []string
	for prog, pkg := range progs {
		if _, err := exec.LookPath(prog); err != nil {
			missing = append(missing, fmt.Sprintf("%s (Debian package %s)", prog, pkg))
		}
	}
	if len(missing) > 0 {
		return &MissingError{What: strings.Join(missing, ", ")}
	}
	return nil
}

// MissingError says a program a compositor needs is not installed; tests
// skip on it, naming the package.
type MissingError struct{ What string }

func (e *MissingError) Error() string { return "not installed: " + e.What + " (make deps installs it)" }

// IsMissing reports whether err is a MissingError.
func IsMissing(err error) bool {
	var m *MissingError
	return errors.As(err, &m)
}

// privateDir makes a fresh 0700 directory owned by uid (-1: the caller).
func privateDir(pattern string, uid int) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", err
	}
	if uid >= 0 {
		if err := os.Chown(dir, uid, uid); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}
