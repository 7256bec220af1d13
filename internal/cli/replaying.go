package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"deskpilot/agent"
	"deskpilot/agent/trace"
	"deskpilot/vision"
)

// exitDiverged is the exit code of replay and play when the screen does not
// look as recorded (README: exit codes).
const exitDiverged = 4

// secretValues are the values of secrets, sorted.
func secretValues(secrets map[string]string) []string {
	var out []string
	for _, v := range secrets {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// lineReader reads the person's answers one line at a time from one
// goroutine, so questions asked one after another never race for a line.
type lineReader struct {
	lines chan line
	once  sync.Once
	in    io.Reader
}

type line struct {
	s   string
	err error
}

func newLineReader(in io.Reader) *lineReader {
	return &lineReader{in: in, lines: make(chan line)}
}

func (l *lineReader) start() {
	go func() {
		br := bufio.NewReader(l.in)
		defer close(l.lines)
		for {
			s, err := br.ReadString('\n')
			l.lines <- line{strings.TrimRight(s, "\r\n"), err}
			if err != nil {
				return
			}
		}
	}()
}

// ask prints q on w and waits for a line or for ctx. At the end of the
// input it returns io.EOF.
func (l *lineReader) ask(ctx context.Context, w io.Writer, q string) (string, error) {
	l.once.Do(l.start)
	fmt.Fprintf(w, "%s\n> ", q)
	select {
	case ln, ok := <-l.lines:
		if !ok || (ln.err != nil && ln.s == "") {
			return "", io.EOF
		}
		return ln.s, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// replayHooks are the hooks of a replay or a play: the person approves what
// the safety policy asks about (--yes approves it all; without a terminal
// nothing is approved), answers ask_user, and resumes after taking over.
func replayHooks(ctx context.Context, con func() *agent.Console, in *lineReader, w io.Writer, z sanitizer, terminal, yes bool) agent.Hooks {
	h := agent.Hooks{Event: visibleEvents(w, z)}
	h.Confirm = func(ctx context.Context, action string) (bool, error) {
		if yes {
			return true, nil
		}
		if !terminal {
			return false, agent.ErrNoOneToAsk
		}
		ans, err := in.ask(ctx, w, "Allow "+visible(action)+"? [y/N]")
		return strings.HasPrefix(strings.ToLower(strings.TrimSpace(ans)), "y"), err
	}
	if terminal {
		h.Ask = func(ctx context.Context, q string) (string, error) { return in.ask(ctx, w, visible(q)) }
		events := h.Event
		h.Event = func(e agent.Event) {
			events(e)
			if _, ok := e.(agent.Paused); ok {
				go func() {
					note, err := in.ask(ctx, w, "You have the desktop. Press Enter to let the replay continue:")
					if c := con(); err == nil && c != nil {
						c.Resume(note)
					}
				}()
			}
		}
	}
	return h
}

// visibleEvents prints each step's observation on w with the secrets z
// knows redacted and control characters made visible: what a replayed
// program prints may come from a web page or a file.
func visibleEvents(w io.Writer, z sanitizer) func(agent.Event) {
	return func(e agent.Event) {
		switch e := e.(type) {
		case agent.Observed:
			if e.Step > 0 {
				text := strings.TrimSuffix(strings.TrimSpace(e.Text), "This is the screen now:")
				fmt.Fprintln(w, visible(z.red.Text(text)))
			}
		case agent.Paused:
			fmt.Fprintf(w, "paused: %s\n", visible(e.Reason))
		}
	}
}

// visible makes every line of s safe to print on a terminal (see
// trace.VisibleLine); line breaks stay.
func visible(s string) string {
	lines := strings.Split(trace.NormalizeNewlines(s), "\n")
	for i, l := range lines {
		lines[i] = trace.VisibleLine(l)
	}
	return strings.Join(lines, "\n")
}

// recording builds the agent's recording of t from the replay flags.
func recording(t *trace.Trace, f replayFlags) agent.Recording {
	return agent.Recording{Trace: t, Tolerance: f.tolerance, Adapt: f.adapt, Force: f.force}
}

// replayFlags are the flags replay and play share.
type replayFlags struct {
	yes, force, adapt bool
	tolerance         float64
	// model is --model: "" none, modelConfigured, or the model's name;
	// modelSteps is --model-steps, update play's --update.
	model      string
	modelSteps int
	update     bool
}

func (f *replayFlags) check(cmd *cobra.Command) error {
	if f.tolerance < 0 || f.tolerance >= 1 {
		return fmt.Errorf("--tolerance %g: give the share of the screen that may differ, from 0 to below 1 (default %g)", f.tolerance, agent.DefaultTolerance)
	}
	return f.checkTakeover(cmd)
}

// blockExit maps how a replayed block ended to an exit error; nil when it
// ran.
func blockExit(ctx context.Context, err error) error {
	var div *agent.DivergenceError
	switch {
	case errors.As(err, &div):
		return &exitError{exitDiverged, err}
	case ctx.Err() != nil:
		return &exitError{exitInterrupted, ctx.Err()}
	case err != nil:
		return &exitError{exitFailed, err}
	}
	return nil
}

// applySpace sets the coordinate space of ac: mode and image size.
func applySpace(ac *agent.Config, mode string, img image.Point) error {
	if mode != "" {
		m, err := vision.ParseCoordMode(mode)
		if err != nil {
			return fmt.Errorf("the recorded coordinate mode: %w", err)
		}
		ac.CoordMode = m
	}
	if img.X > 0 && img.Y > 0 {
		ac.ImageSize = img
	}
	return nil
}
