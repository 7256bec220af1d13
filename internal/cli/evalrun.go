//go:build linux

package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"deskpilot/agent"
	"deskpilot/agent/trace"
	"deskpilot/eval"
	"deskpilot/internal/config"
	"deskpilot/internal/wiring"
)

// evalRunner is the eval harness's Runner: the real agent, wired by
// internal/wiring in this process, one agent per task on the task's display.
//
// In process, not a `deskpilot run` child per task: every X connection of an
// agent dials with the display's own authority file (desktop.Options.XAuthority),
// so agents on several private displays share nothing but the model endpoint;
// the model's code already runs in a sandbox child per agent; and a cancelled
// ctx (the task's timeout, Ctrl+C) stops the agent as it stops `run`. What a
// task's programs see is the task's environment (Job.Env), never this
// process's: launched programs get Job.Env, the file inspector reads the
// task's home and attached files, not the evaluator's home.
type evalRunner struct {
	cfg     config.Config
	yes     bool // approve what the policy asks about (--yes)
	shared  bool // --x-display: the config's monitor index applies
	engines *wiring.Engines
	log     *slog.Logger
	version string
	secrets []string // never in a result: the model's and the search API keys
	// compositor, when set (--display-server sway), gives each task a Wayland
	// compositor of its own, which the agent drives instead of the task's X display.
	compositor func(ctx context.Context, j eval.Job) (*taskCompositor, error)
	// branch, when set (--branch-from), replays a recorded prefix before
	// the model goes on (evalbranch.go).
	branch *evalBranch
}

// run runs the agent for one task.
func (r *evalRunner) run(ctx context.Context, j eval.Job) (eval.Outcome, error) {
	cfg := r.cfg
	cfg.Backend = "x11" // the backend that drives any display, with its authority
	cfg.XDisplay = j.Display.Name
	cfg.TraceDir = j.TraceDir
	if !r.shared {
		cfg.Display = 0 // a private display has one monitor
	}
	if j.MaxSteps > 0 {
		cfg.MaxSteps = j.MaxSteps
	}
	env := j.Env
	var wayland string
	if r.compositor != nil {
		c, err := r.compositor(ctx, j)
		if err != nil {
			return eval.Outcome{Outcome: string(agent.Failed), Exit: exitFailed}, err
		}
		defer c.close()
		j.Launch = nil // programs go to the compositor, not to the task's X display
		cfg.Backend, cfg.XDisplay, wayland, env = "wlroots", "", c.socket, c.env
	}
	ready, err := wiring.Open(ctx, cfg, wiring.Options{
		Wayland:    wayland,
		XAuthority: j.Display.XAuthority,
		Env:        env,
		Launch:     j.Launch,
		Environ:    func() []string { return env }, // no DESKPILOT_SECRET_* of the evaluator
		Home:       j.Home,
		Roots:      j.Files,
		Downloads:  filepath.Join(j.Home, "Downloads"),
		PDF:        r.engines.PDF,
		OCR:        r.engines.OCR,
		Log:        r.log.With("task", j.TaskID),
		Version:    r.version,
	})
	if err != nil {
		return eval.Outcome{Outcome: string(agent.Failed), Exit: exitFailed}, fmt.Errorf("agent: %s", r.redact(err.Error()))
	}
	defer ready.Close()
	a := ready.Agent
	a.NoTakeover = true // nobody is at a private display to hand it back
	var h agent.Hooks
	if r.yes {
		h.Confirm = func(context.Context, string) (bool, error) { return true, nil }
	}
	if r.branch != nil {
		fin, err := r.branch.run(ctx, a, j, h)
		if err != nil {
			return r.branchOutcome(fin, err)
		}
		return r.outcome(fin)
	}
	return r.outcome(a.Run(ctx, j.Instruction, h))
}

// outcome reports a finished run as `deskpilot run` would: its exit code, and
// for a failed run the reason as an error.
func (r *evalRunner) outcome(fin agent.Finished) (eval.Outcome, error) {
	answer := fin.Answer
	if fin.Outcome == agent.MaxSteps {
		answer = fin.Summary // scored as a best-effort answer, as GAIA baselines do
	}
	o := eval.Outcome{Answer: r.redact(answer), Outcome: string(fin.Outcome), Steps: fin.Steps,
		Tokens: fin.Usage.Input + fin.Usage.Output, Trace: fin.TraceDir}
	switch fin.Outcome {
	case agent.Answered:
		o.Exit = exitAnswered
	case agent.MaxSteps:
		o.Exit = exitStepLimit
	case agent.Cancelled: // the harness says why: the task's timeout, or Ctrl+C
		o.Exit = exitInterrupted
	default:
		o.Exit = exitFailed
		return o, errors.New("run failed: " + r.redact(fin.Error))
	}
	return o, nil
}

func (r *evalRunner) redact(s string) string { return trace.Redact(s, r.secrets...) }

// cfgSecrets are the values of the API keys cfg names, as the environment
// holds them.
func cfgSecrets(cfg config.Config) []string {
	var out []string
	for _, name := range []string{cfg.APIKeyEnv, cfg.SearchKeyEnv} {
		if v := os.Getenv(name); name != "" && v != "" {
			out = append(out, v)
		}
	}
	return out
}
