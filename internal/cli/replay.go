package cli

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"deskpilot/agent"
	"deskpilot/agent/trace"
	"deskpilot/internal/config"
	"deskpilot/internal/wiring"
)

func newReplayCmd(s *settings) *cobra.Command {
	var dry bool
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay TRACE",
		Short: "Run the code of a recorded run again on this desktop, step by step, without a model",
		Long: `Runs the code of each step of a recorded run again (TRACE: folder, run id, or a
number from the last ` + "`traces list`" + `: the run of that row, however many runs came since). Before each step the screen is compared with the frame the step saw
when it was recorded, and the neighbourhood of each point its clicks aimed at; when
they differ, replay stops before acting. --adapt clicks a target found elsewhere on
the screen where it is now. Actions the safety policy marks (launch, open_url,
closing key combos) are asked about as in a run; --yes approves them and runs every
step without asking. The replay is recorded as a new trace. With --model the model
takes over where a step diverges, as play --model does (see deskpilot play --help),
and the replay goes on from the next recorded step that looks as recorded again.
Exit codes: 0 done, 1 failed (a step failed that did not when recorded), 2 usage,
3 the model used its --model-steps, 4 the screen does not look as recorded,
130 interrupted (also by deskpilot stop).`,
		Args: takeoverArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(cmd); err != nil {
				return &exitError{exitUsage, err}
			}
			t, err := openTrace(s, args[0])
			if err != nil {
				return err
			}
			if dry {
				fmt.Fprint(cmd.OutOrStdout(), recordedCode(t))
				return nil
			}
			return replay(cmd, s, t, f)
		},
	}
	cmd.Flags().BoolVar(&dry, "dry-run", false, "print the code of each step and stop")
	addReplayFlags(cmd, &f)
	cmd.Flags().Lookup("yes").Usage = "run every step without asking, and approve every action the safety policy asks about"
	return cmd
}

// addReplayFlags adds the flags replay and play share.
func addReplayFlags(cmd *cobra.Command, f *replayFlags) {
	cmd.Flags().BoolVarP(&f.yes, "yes", "y", false, "approve every action the safety policy asks about")
	cmd.Flags().BoolVar(&f.force, "force", false, "go on when the screen does not look as recorded (the difference is still reported)")
	cmd.Flags().BoolVar(&f.adapt, "adapt", false, "act on a target found elsewhere on the screen where it is now")
	cmd.Flags().Float64Var(&f.tolerance, "tolerance", agent.DefaultTolerance, "share of the screen, and of each target's neighbourhood, that may look different")
	addTakeoverFlags(cmd, f)
}

// replay runs the steps of t again on the desktop.
func replay(cmd *cobra.Command, s *settings, t *trace.Trace, f replayFlags) error {
	// The code's points are in the space the run was recorded in.
	space := func(ac *agent.Config) error {
		if err := recordedSpace(ac, t); err != nil {
			return &exitError{exitFailed, err}
		}
		return nil
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "replaying run %s (%s): %s\n", trace.RunID(t.Dir), visible(t.Dir), visible(clip(t.Start.Task, 60)))
	rs, err := openReplay(cmd, s, "replay: "+t.Start.Task, t, f, space)
	if err != nil {
		return err
	}
	defer rs.close()
	w := cmd.ErrOrStderr()
	tk, err := newTakeover(rs.cfg, f, t.Start.Task, recordedCode(t), w)
	if err != nil {
		rs.con.Finish("", err)
		return err
	}
	answer, err := replaySteps(rs.ctx, rs.con, t, rs.in, w, rs.hooks, f.yes, tk)
	if tk != nil {
		fmt.Fprintln(w, tk.summary("replay"))
	}
	if errors.Is(err, errQuit) {
		rs.con.Finish("", context.Canceled)
		return nil
	}
	return rs.finish(cmd, answer, err)
}

// recordedCode is the code of t's steps, as replay --dry-run prints it.
func recordedCode(t *trace.Trace) string {
	var b strings.Builder
	for _, st := range t.Steps {
		if st.Number > 0 && st.Code != "" {
			fmt.Fprintf(&b, "# step %d\n%s\n\n", st.Number, visible(st.Code))
		}
	}
	return b.String()
}

// replaySession is a replay or a played script on this desktop: the wired
// agent in the recorded coordinate space, its console and the hooks that
// ask the person.
type replaySession struct {
	cfg   config.Config
	ready *wiring.Ready
	con   *agent.Console
	in    *lineReader
	hooks agent.Hooks
	// ctx is the command's, cancelled also by deskpilot stop and the Stop
	// key (the replay is registered as a run until close).
	ctx        context.Context
	unregister func()
	cancel     context.CancelFunc
}

// openReplay loads the settings, wires an agent, applies space to its
// config (an error from it is returned as it is) and opens a replay console
// for task that checks against rec.
func openReplay(cmd *cobra.Command, s *settings, task string, rec *trace.Trace, f replayFlags, space func(*agent.Config) error) (*replaySession, error) {
	ctx := cmd.Context()
	cfg, err := s.load()
	if err != nil {
		return nil, err
	}
	ready, err := s.open(ctx, cfg, wiring.Options{})
	if err != nil {
		return nil, &exitError{exitFailed, err}
	}
	if err := space(&ready.Agent.Config); err != nil {
		ready.Close()
		return nil, err
	}
	terminal := isTerminal(cmd.InOrStdin())
	ready.Agent.NoTakeover = !terminal // nobody could resume
	con, err := ready.Agent.NewReplay(ctx, task, recording(rec, f))
	if err != nil {
		ready.Close()
		return nil, &exitError{exitFailed, err}
	}
	rs := &replaySession{cfg: cfg, ready: ready, con: con, in: newLineReader(cmd.InOrStdin())}
	rs.ctx, rs.cancel = context.WithCancel(ctx)
	rs.unregister = s.control(cfg).registerStop(task, rs.cancel)
	rs.hooks = replayHooks(rs.ctx, func() *agent.Console { return con }, rs.in, cmd.ErrOrStderr(), secretsOf(ready.Agent), terminal, f.yes)
	return rs, nil
}

// finish ends the replay with answer or err, and prints the answer.
func (rs *replaySession) finish(cmd *cobra.Command, answer string, err error) error {
	rs.con.Finish(answer, err)
	if err != nil {
		return err
	}
	if answer != "" {
		fmt.Fprintln(cmd.OutOrStdout(), visible(answer))
	}
	return nil
}

func (rs *replaySession) close() {
	rs.unregister()
	rs.cancel()
	rs.ready.Close()
}

// errQuit ends a replay the person stopped at a prompt.
var errQuit = errors.New("stopped at the person's request")

// replaySteps runs each step with code, asking first unless yes; it returns
// the final answer when a step gave one. With a takeover, the model does
// the part where a step diverges and the replay goes on from the next
// recorded step that holds.
func replaySteps(ctx context.Context, con *agent.Console, t *trace.Trace, in *lineReader, w io.Writer, hooks agent.Hooks, yes bool, tk *takeover) (string, error) {
	for i := 0; i < len(t.Steps); i++ {
		st := t.Steps[i]
		if st.Number < 1 || strings.TrimSpace(st.Code) == "" {
			continue
		}
		fmt.Fprintf(w, "# step %d\n%s\n", st.Number, indent(visible(st.Code), "  "))
		if !yes {
			run, err := askStep(ctx, in, w)
			if err != nil {
				return "", err
			}
			if !run {
				continue
			}
		}
		res, err := con.Step(ctx, st.Number, st.Code, hooks)
		if tk != nil {
			tk.scriptSteps++
		}
		if div := (*agent.DivergenceError)(nil); tk != nil && errors.As(err, &div) {
			next, at := laterSteps(t, i)
			to, answer, answered, err := tk.run(ctx, con, hooks, div, st.Code, i, next, at)
			if err != nil || answered {
				return answer, err
			}
			i = to - 1
			continue
		}
		if err := blockExit(ctx, err); err != nil {
			return "", err
		}
		if res.Error != "" && (st.Observation == nil || st.Observation.Error == "") {
			return "", &exitError{exitFailed, fmt.Errorf("step %d failed, which it did not when recorded: %s", st.Number, firstLine(res.Error))}
		}
		if res.Answered {
			return res.Answer, nil
		}
	}
	return "", nil
}

// laterSteps are the recorded steps after t.Steps[i] that a replay can go
// on from (code and a frame), and the index of each.
func laterSteps(t *trace.Trace, i int) ([]int, func(int) int) {
	var next []int
	index := map[int]int{}
	for j := i + 1; j < len(t.Steps); j++ {
		if st := t.Steps[j]; st.Number > 0 && strings.TrimSpace(st.Code) != "" && st.Frame != "" {
			next = append(next, st.Number)
			index[st.Number] = j
		}
	}
	return next, func(n int) int { return index[n] }
}

// askStep asks whether to run the next step: yes, skip it (false, nil) or
// quit (errQuit).
func askStep(ctx context.Context, in *lineReader, w io.Writer) (bool, error) {
	for {
		ans, err := in.ask(ctx, w, "run this step? [Y/n/q]")
		switch {
		case errors.Is(err, io.EOF):
			return false, &exitError{exitUsage, errors.New("no answer on the input: give --yes to run every step without asking")}
		case err != nil:
			return false, &exitError{exitInterrupted, err}
		}
		switch strings.ToLower(strings.TrimSpace(ans)) {
		case "", "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		case "q", "quit":
			return false, errQuit
		}
	}
}

// recordedSpace sets the coordinate space of ac to the one t was recorded in.
func recordedSpace(ac *agent.Config, t *trace.Trace) error {
	var img image.Point
	if t.Start.Image != nil {
		img = image.Pt(t.Start.Image.W, t.Start.Image.H)
	}
	return applySpace(ac, t.Start.CoordMode, img)
}
