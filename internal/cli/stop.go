package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"deskpilot/agent"
	"deskpilot/internal/config"
	"deskpilot/internal/hotkey"
	"deskpilot/internal/runctl"
)

func newStopCmd(s *settings) *cobra.Command {
	var list bool
	cmd := &cobra.Command{
		Use:   "stop",
		Short: "Stop every run and MCP session of yours on this machine",
		Long: `Stops every deskpilot run (app, run, eval) and MCP session of this user on this machine, as
their Stop buttons do: each listens on a socket in $XDG_RUNTIME_DIR/deskpilot/ctl. The global
Stop key (stop_hotkey, default Ctrl+Alt+Esc) does the same while a run is active. --list only
shows them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := runctl.Dir(nil)
			if err != nil {
				return &exitError{exitFailed, err}
			}
			out := cmd.OutOrStdout()
			if list {
				all, err := runctl.List(cmd.Context(), dir)
				if err != nil {
					return &exitError{exitFailed, err}
				}
				for _, st := range all {
					fmt.Fprintln(out, describeEntry(st))
				}
				if len(all) == 0 {
					fmt.Fprintln(out, "nothing is running")
				}
				return nil
			}
			stopped, err := runctl.StopAll(cmd.Context(), dir)
			for _, st := range stopped {
				fmt.Fprintln(out, "stopped", describeEntry(st))
			}
			if len(stopped) == 0 && err == nil {
				fmt.Fprintln(out, "nothing to stop")
			}
			if err != nil {
				return &exitError{exitFailed, err}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list the runs and MCP sessions instead of stopping them")
	return cmd
}

// describeEntry is one line about a run or session.
func describeEntry(st runctl.Status) string {
	what := "run"
	switch st.Kind {
	case runctl.KindMCP:
		what = "MCP session of " + st.Host
	case runctl.KindEval:
		what = "eval"
	}
	s := fmt.Sprintf("%s (pid %d)", what, st.PID)
	if st.Task != "" && st.Kind != runctl.KindMCP {
		s += ": " + visibleControls(st.Task)
	}
	if st.Tool != "" {
		s += ", calling " + st.Tool
	}
	if st.Paused {
		s += ", paused"
	}
	return s
}

// control is this process's side of `deskpilot stop`: its runs and MCP
// sessions register here, and while any is registered the Stop key is
// grabbed on the display. One per process.
type control struct {
	reg  *runctl.Registry
	keys hotkey.Options
	log  *slog.Logger

	mu     sync.Mutex
	cancel context.CancelFunc
}

// control returns the process's control, made on first use with cfg's
// display and Stop key; nil when the control folder cannot be made (runs go
// on, unreachable by deskpilot stop).
func (s *settings) control(cfg config.Config) *control {
	s.ctlOnce.Do(func() {
		dir, err := runctl.Dir(nil)
		if err != nil {
			stderrLog().Warn("deskpilot stop will not reach this process", "err", err)
			return
		}
		c := &control{keys: hotkey.Options{Display: cfg.XDisplay, Combo: cfg.StopHotkey}, log: stderrLog()}
		c.reg = &runctl.Registry{Dir: dir, Active: c.active}
		s.ctl = c
	})
	return s.ctl
}

// register makes a run or session reachable; the returned func ends that.
func (c *control) register(st runctl.Status, ctl runctl.Controls) (*runctl.Entry, error) {
	if c == nil {
		return nil, errors.New("no control folder")
	}
	return c.reg.Register(st, ctl)
}

// registerRun makes a run of the agent reachable by deskpilot stop and the
// Stop key until the returned func is called.
func (c *control) registerRun(task string, run *agent.Session) func() {
	if c == nil {
		return func() {}
	}
	e, err := c.register(runctl.Status{Kind: runctl.KindRun, Task: task},
		runctl.Controls{Stop: run.Stop, Pause: run.Pause, Resume: func() { run.Resume("") }})
	if err != nil {
		c.log.Warn("deskpilot stop will not reach this run", "err", err)
		return func() {}
	}
	return func() { _ = e.Close() }
}

// registerStop makes a run that is not an agent.Session (a replay, a
// played script) reachable by deskpilot stop and the Stop key until the
// returned func is called: stop cancels it.
func (c *control) registerStop(task string, stop func()) func() {
	if c == nil {
		return func() {}
	}
	e, err := c.register(runctl.Status{Kind: runctl.KindRun, Task: task}, runctl.Controls{Stop: stop})
	if err != nil {
		c.log.Warn("deskpilot stop will not reach this replay", "err", err)
		return func() {}
	}
	return func() { _ = e.Close() }
}

// registerEval makes a `deskpilot eval` reachable by deskpilot stop and the
// Stop key until the returned func is called: stop cancels the evaluation
// (every task running stops as on Ctrl+C; --resume runs the rest).
func (c *control) registerEval(suite string, stop func()) func() {
	if c == nil {
		return func() {}
	}
	e, err := c.register(runctl.Status{Kind: runctl.KindEval, Task: suite}, runctl.Controls{Stop: stop})
	if err != nil {
		c.log.Warn("deskpilot stop will not reach this evaluation", "err", err)
		return func() {}
	}
	return func() { _ = e.Close() }
}

// active grabs the Stop key while n > 0 entries are open.
func (c *control) active(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case n > 0 && c.cancel == nil:
		ctx, cancel := context.WithCancel(context.Background())
		c.cancel = cancel
		go c.grab(ctx)
	case n == 0 && c.cancel != nil:
		c.cancel()
		c.cancel = nil
	}
}

// grabRetry is how often a Stop key another deskpilot process holds is
// tried again (that process stops everyone's runs meanwhile).
const grabRetry = 2 * time.Second

// grab holds the Stop key until ctx ends; pressing it stops every run and
// MCP session of the user.
func (c *control) grab(ctx context.Context) {
	if _, ok, err := hotkey.Parse(c.keys.Combo); err != nil || !ok {
		if err != nil {
			c.log.Warn("no Stop key", "err", err)
		}
		return
	}
	fire := func() {
		if _, err := runctl.StopAll(context.WithoutCancel(ctx), c.reg.Dir); err != nil {
			c.log.Warn("Stop key", "err", err)
		}
	}
	for {
		err := hotkey.Watch(ctx, c.keys, fire)
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, hotkey.ErrUnavailable) {
			if os.Getenv("DISPLAY") != "" || c.keys.Display != "" {
				c.log.Warn("no Stop key on this display", "err", err)
			}
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(grabRetry):
		}
	}
}

// announceWindows says, until the returned func is called, that this
// process shows windows (the app): the other deskpilot processes of the
// user (runs, MCP sessions, other apps) mask and refuse them as their own
// (runctl.Announce).
func announceWindows() func() {
	dir, err := runctl.Dir(nil)
	if err != nil {
		return func() {}
	}
	done, err := runctl.Announce(dir)
	if err != nil {
		stderrLog().Warn("other deskpilot processes will not mask this window", "err", err)
	}
	return done
}

// peerWindows lists the other deskpilot processes that show windows, for
// the desktop to mask them (desktop.Options.Peers); nil without a control
// folder.
func peerWindows() func() []int {
	dir, err := runctl.Dir(nil)
	if err != nil {
		return nil
	}
	return func() []int { return runctl.Peers(dir) }
}
