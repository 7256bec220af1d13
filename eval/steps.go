//go:build linux

package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"deskpilot/internal/wait"
)

// runSteps runs config or postconfig steps in order; the first failure stops them.
// Unlike OSWorld, which logs a failed setup step and goes on, a step that fails
// fails the task: the agent must never be scored on a half-prepared desktop. A
// command's non-zero exit code is not a failure (OSWorld ignores it too).
func (b *box) runSteps(ctx context.Context, steps []step, phase string) error {
	for i, s := range steps {
		b.log.printf("[%s %d] %s\n", phase, i+1, s.kind)
		if err := b.runStep(ctx, s); err != nil {
			return fmt.Errorf("%s step %d (%s): %w", phase, i+1, s.kind, err)
		}
	}
	return nil
}

func (b *box) runStep(ctx context.Context, s step) error {
	switch s.kind {
	case "command", "execute":
		return b.execute(ctx, s)
	case "launch":
		argv := b.argv(s.cmd)
		if err := b.waitHostPort(ctx, argv); err != nil {
			return err
		}
		return b.launch(ctx, argv)
	case "open":
		p := b.taskPath(s.path) // /home/user/... is the task's home, as a download put it there
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("open %s: %w", p, err)
		}
		return b.launch(ctx, []string{"xdg-open", b.boxPath(p)})
	case "sleep":
		return wait.Sleep(ctx, s.sleep)
	case "wait_window":
		wctx, cancel := context.WithTimeout(ctx, s.timeout)
		defer cancel()
		w, err := b.d.WaitWindow(wctx, s.title)
		if err != nil {
			return fmt.Errorf("window %q: %w", s.title, err)
		}
		b.log.printf("window %q is up: %q at %v\n", s.title, w.Title, w.Frame)
		return nil
	}
	return b.runControllerStep(ctx, s)
}

// execute runs an execute or command step, repeating it while its until condition
// does not hold (every 0.3 s, at most for commandTimeout), and saves its output to
// the cache files it names.
func (b *box) execute(ctx context.Context, s step) error {
	deadline := time.Now().Add(commandTimeout)
	for {
		res, err := b.exec(ctx, s.cmd)
		if err != nil {
			return err
		}
		if call, ok := unsupportedPyautogui(res.stderr); ok {
			return &UnsupportedError{What: "pyautogui call", Name: call}
		}
		for name, text := range map[string]string{s.stdout: res.stdout, s.stderr: res.stderr} {
			if name != "" {
				if err := os.WriteFile(filepath.Join(b.cache, name), []byte(text), 0o600); err != nil {
					return err
				}
			}
		}
		if s.until == nil || s.until.holds(res) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("its until condition did not hold within %s", commandTimeout)
		}
		if err := wait.Sleep(ctx, untilPause); err != nil {
			return err
		}
	}
}

// holds reports whether any of the until conditions is met.
func (u *until) holds(r execResult) bool {
	return (u.returnCode != nil && r.code == *u.returnCode) ||
		(u.stdout != nil && strings.Contains(r.stdout, *u.stdout)) ||
		(u.stderr != nil && strings.Contains(r.stderr, *u.stderr))
}

// pyautoguiMarker starts the line the box's pyautogui module writes to stderr
// when a task calls what it does not have (eval/pyautogui): the step then
// fails, where OSWorld would go on past the command's non-zero exit.
const pyautoguiMarker = "deskpilot-pyautogui: unsupported: "

func unsupportedPyautogui(stderr string) (string, bool) {
	_, rest, ok := strings.Cut(stderr, pyautoguiMarker)
	if !ok {
		return "", false
	}
	call, _, _ := strings.Cut(rest, "\n")
	return strings.TrimSpace(call), true
}
