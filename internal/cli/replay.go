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
	"deskpilot/internal/wiring"
)

func newReplayCmd(s *settings) *cobra.Command {
	var dry bool
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay TRACE",
		Short: "Run the code of a recorded run again on this desktop, step by step, without a model",
		Long: `Runs the code of each step of a recorded run again (TRACE: folder, or number from
` + "`traces list`" + `). Before each step the screen is compared with the frame the step saw
when it was recorded, and the neighbourhood of each point its clicks aimed at; when
they differ, replay stops before acting. --adapt clicks a target found elsewhere on
the screen where it is now. Actions the safety policy marks (launch, open_url,
closing key combos) are asked about as in a run; --yes approves them and runs every
step without asking. The replay is recorded as a new trace.
Exit codes: 0 done, 1 failed (a step failed that did not when recorded), 2 usage,
4 the screen does not look as recorded, 130 interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return &exitError{exitUsage, err}
			}
			t, err := openTrace(s, args[0])
			if err != nil {
				return err
			}
			if dry {
				for _, st := range t.Steps {
					if st.Number > 0 && st.Code != "" {
						fmt.Fprintf(cmd.OutOrStdout(), "# step %d\n%s\n\n", st.Number, visible(st.Code))
					}
				}
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
}

// replay runs the steps of t again on the desktop.
func replay(cmd *cobra.Command, s *settings, t *trace.Trace, f replayFlags) error {
	ctx := cmd.Context()
	cfg, err := s.load()
	if err != nil {
		return err
	}
	ready, err := s.open(ctx, cfg, wiring.Options{})
	if err != nil {
		return &exitError{exitFailed, err}
	}
	defer ready.Close()
	// The code's points are in the space the run was recorded in.
	if err := recordedSpace(&ready.Agent.Config, t); err != nil {
		return &exitError{exitFailed, err}
	}
	terminal := isTerminal(cmd.InOrStdin())
	ready.Agent.NoTakeover = !terminal // nobody could resume
	stderr := cmd.ErrOrStderr()
	con, err := ready.Agent.NewReplay(ctx, "replay: "+t.Start.Task, recording(t, f))
	if err != nil {
		return &exitError{exitFailed, err}
	}
	in := newLineReader(cmd.InOrStdin())
	hooks := replayHooks(ctx, func() *agent.Console { return con }, in, stderr, secretsOf(ready.Agent), terminal, f.yes)
	answer, err := replaySteps(ctx, con, t, in, stderr, hooks, f.yes)
	if errors.Is(err, errQuit) {
		con.Finish("", context.Canceled)
		return nil
	}
	con.Finish(answer, err)
	if err != nil {
		return err
	}
	if answer != "" {
		fmt.Fprintln(cmd.OutOrStdout(), answer)
	}
	return nil
}

// errQuit ends a replay the person stopped at a prompt.
var errQuit = errors.New("stopped at the person's request")

// replaySteps runs each step with code, asking first unless yes; it returns
// the final answer when a step gave one.
func replaySteps(ctx context.Context, con *agent.Console, t *trace.Trace, in *lineReader, w io.Writer, hooks agent.Hooks, yes bool) (string, error) {
	for _, st := range t.Steps {
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
