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
		var before int
		input := s.kind == "launch" && i+1 < len(steps) && givesInput(steps[i+1])
		if input {
			before = b.windowCount(ctx)
		}
		if err := b.runStep(ctx, s); err != nil {
			return fmt.Errorf("%s step %d (%s): %w", phase, i+1, s.kind, err)
		}
		if input {
			b.awaitWindow(ctx, before)
		}
	}
	return nil
}

// launchWindowWait bounds how long a launch waits for its window before a
// step that types or clicks into it.
const launchWindowWait = 30 * time.Second

// givesInput reports an execute or command step that drives the display
// with pyautogui.
func givesInput(s step) bool {
	return (s.kind == "execute" || s.kind == "command") && strings.Contains(strings.Join(s.cmd.args, " "), "pyautogui")
}

// windowCount counts the display's decorated windows: a splash screen (an
// app's first window while it loads: LibreOffice's) has no frame from the
// window manager.
func (b *box) windowCount(ctx context.Context) int {
	wins, _ := b.d.Windows(ctx)
	n := 0
	for _, w := range wins {
		if w.Frame != w.Bounds {
			n++
		}
	}
	return n
}

// awaitWindow waits, after a launch that a pyautogui step follows, until the
// display has more windows than before (at most launchWindowWait). OSWorld's
// steps send their input after a fixed sleep, timed on its VM, whose apps
// start warm; a first start here in a fresh profile (LibreOffice's) can take
// longer, and keys sent before the window is up are lost. The launch itself
// returns at once, as OSWorld's does.
func (b *box) awaitWindow(ctx context.Context, before int) {
	ctx, cancel := context.WithTimeout(ctx, launchWindowWait)
	defer cancel()
	start := time.Now()
	for ctx.Err() == nil {
		if n := b.windowCount(ctx); n > before {
			b.log.printf("a new window is up after %.1fs\n", time.Since(start).Seconds())
			return
		}
		if wait.Sleep(ctx, 200*time.Millisecond) != nil {
			break
		}
	}
	b.log.printf("no new window within %v\n", launchWindowWait)
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
