package wldisplay

import (
	"context"
	"os/exec"
)

// App is a program started on a compositor, stopped with it.
type App struct {
	p *proc
}

// PID is the program's process id.
func (a *App) PID() int { return a.p.cmd.Process.Pid }

// Output is what the program printed so far (stdout and stderr).
func (a *App) Output() string { return a.p.out.String() }

// Exited reports whether the program has ended.
func (a *App) Exited() bool { return a.p.exited() }

// Wait waits for the program to end and returns its output.
func (a *App) Wait(ctx context.Context) (string, error) {
	select {
	case <-a.p.done:
		return a.Output(), a.p.err
	case <-ctx.Done():
		return a.Output(), ctx.Err()
	}
}

// Stop ends the program (its whole process group).
func (a *App) Stop() { a.p.stop() }

// starter is what a compositor needs to start programs on it.
type starter interface {
	Command(ctx context.Context, name string, args ...string) *exec.Cmd
	track(a *App)
}

func startApp(s starter, name string, args ...string) (*App, error) {
	cmd := s.Command(context.Background(), name, args...)
	p, err := start(cmd)
	if err != nil {
		return nil, err
	}
	a := &App{p: p}
	s.track(a)
	return a, nil
}

// Start starts a program on sway; Close stops it.
func (s *Sway) Start(name string, args ...string) (*App, error) { return startApp(s, name, args...) }

func (s *Sway) track(a *App) {
	s.mu.Lock()
	s.apps = append(s.apps, a)
	s.mu.Unlock()
}
