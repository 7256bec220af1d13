//go:build linux

package xdisplay

import (
	"context"
	"fmt"
	"os/exec"
)

// App is a program started on a display by StartApp. Its methods are safe for
// concurrent use.
type App struct {
	// Cmd is the started command; do not call Wait on it, use Stop.
	Cmd *exec.Cmd

	p   *proc
	out *limitedBuffer
}

// StartApp starts name on the display in its own process group and returns at once;
// use WaitWindow to wait for its window. Cancelling ctx kills the group. The first
// 64 KiB of its combined stdout and stderr are kept for Output.
func (d *Display) StartApp(ctx context.Context, name string, args ...string) (*App, error) {
	cmd := d.Command(ctx, name, args...)
	if d.dir != "" {
		cmd.Dir = d.dir
	}
	out := &limitedBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	p, err := startProc(cmd)
	if err != nil {
		return nil, fmt.Errorf("xdisplay: start %s: %w", name, err)
	}
	return &App{Cmd: cmd, p: p, out: out}, nil
}

// Stop terminates the application's process group (SIGTERM, then SIGKILL after 5 s)
// and waits for it. Stopping an app that already exited returns nil.
func (a *App) Stop() error {
	if err := a.p.stop(); err != nil {
		return fmt.Errorf("xdisplay: stop: %w", err)
	}
	return nil
}

// Exited reports whether the application has exited, on its own or by Stop.
func (a *App) Exited() bool {
	select {
	case <-a.p.done:
		return true
	default:
		return false
	}
}

// Output returns what the application wrote to stdout and stderr so far (first 64 KiB).
func (a *App) Output() string { return a.out.String() }
