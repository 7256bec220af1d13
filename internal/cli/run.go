package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"deskpilot/agent"
	"deskpilot/internal/config"
	"deskpilot/internal/wiring"
)

func newRunCmd(s *settings) *cobra.Command {
	var asJSON, yes, quiet bool
	cmd := &cobra.Command{
		Use:   "run TASK",
		Short: "Run a task headless: progress on stderr, the final answer on stdout",
		Long: `Run a task on the desktop without the app. Progress goes to stderr, the final answer
to stdout (or a JSON object with --json). Exit codes: 0 answered, 1 failed, 2 usage,
3 step limit, 130 interrupted.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			task := strings.Join(args, " ")
			cfg, err := s.load()
			if err != nil {
				return err
			}
			if !cfg.HasModel() {
				return &exitError{exitUsage, errors.New(config.ErrNoModel)}
			}
			ready, err := s.open(cmd.Context(), cfg, wiring.Options{Secrets: envSecrets(os.Environ())})
			if err != nil {
				return &exitError{exitFailed, err}
			}
			defer ready.Close()
			a := ready.Agent
			p := &progress{w: os.Stderr, quiet: quiet, max: cfg.MaxSteps, start: time.Now()}
			hooks := agent.Hooks{Event: p.event}
			in := bufio.NewReader(os.Stdin)
			if isTerminal(os.Stdin) {
				hooks.Ask = func(ctx context.Context, q string) (string, error) { return askLine(ctx, in, os.Stderr, q) }
			}
			hooks.Confirm = func(ctx context.Context, action string) (bool, error) {
				if yes {
					return true, nil
				}
				if !isTerminal(os.Stdin) {
					return false, nil
				}
				ans, err := askLine(ctx, in, os.Stderr, "Allow "+action+"? [y/N]")
				return strings.HasPrefix(strings.ToLower(strings.TrimSpace(ans)), "y"), err
			}
			terminal := isTerminal(os.Stdin)
			// Without a terminal nobody could resume a paused run: no takeover then.
			a.NoTakeover = !terminal
			var session atomic.Pointer[agent.Session]
			if terminal {
				events := hooks.Event
				hooks.Event = func(e agent.Event) {
					events(e)
					if _, ok := e.(agent.Paused); ok {
						go func() {
							note, err := askLine(cmd.Context(), in, os.Stderr, "You have the desktop. Press Enter to let the agent continue (you may type a note for it first):")
							if s := session.Load(); err == nil && s != nil {
								s.Resume(note)
							}
						}()
					}
				}
			}
			run := a.Start(cmd.Context(), task, hooks)
			session.Store(run)
			<-run.Done()
			return report(cmd.OutOrStdout(), run.Result(), asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON result on stdout")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "approve every action the safety policy asks about")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress on stderr")
	return cmd
}

// runResult is the --json output of `deskpilot run`.
type runResult struct {
	Outcome   string `json:"outcome"`
	Answer    string `json:"answer"`
	Error     string `json:"error,omitempty"`
	Steps     int    `json:"steps"`
	InTokens  int    `json:"input_tokens"`
	OutTokens int    `json:"output_tokens"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Trace     string `json:"trace,omitempty"`
}

// report prints the result and maps the outcome to the exit code.
func report(w io.Writer, fin agent.Finished, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(runResult{
			Outcome: string(fin.Outcome), Answer: fin.Answer, Error: fin.Error, Steps: fin.Steps,
			InTokens: fin.Usage.Input, OutTokens: fin.Usage.Output, ElapsedMS: fin.Elapsed.Milliseconds(), Trace: fin.TraceDir,
		})
	} else if fin.Answer != "" {
		fmt.Fprintln(w, fin.Answer)
	}
	switch fin.Outcome {
	case agent.Answered:
		return nil
	case agent.MaxSteps:
		return &exitError{code: exitStepLimit}
	case agent.Cancelled:
		return &exitError{exitInterrupted, fmt.Errorf("interrupted")}
	default:
		return &exitError{exitFailed, fmt.Errorf("run failed: %s", fin.Error)}
	}
}

// progress prints one line per notable event on stderr.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	quiet bool
	max   int
	start time.Time
	in    int
	out   int
}

func (p *progress) event(e agent.Event) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	el := time.Since(p.start).Truncate(100 * time.Millisecond)
	switch e := e.(type) {
	case agent.RunStarted:
		if e.TraceDir != "" {
			fmt.Fprintf(p.w, "trace: %s\n", e.TraceDir)
		}
	case agent.ModelReplied:
		p.in += e.Usage.Input
		p.out += e.Usage.Output
		fmt.Fprintf(p.w, "step %d/%d  %s  tokens %d in / %d out  model %s\n", e.Step, p.max, el, p.in, p.out, e.Duration.Truncate(time.Millisecond))
	case agent.ActionDone:
		status := "ok"
		if e.Action.Error != "" {
			status = "error: " + e.Action.Error
		}
		fmt.Fprintf(p.w, "  %s(%s) %s\n", e.Action.Name, e.Action.Args, status)
	case agent.Observed:
		if e.Error != "" {
			fmt.Fprintf(p.w, "  error: %s\n", firstLine(e.Error))
		}
	case agent.Paused:
		fmt.Fprintf(p.w, "paused: %s\n", e.Reason)
	case agent.Finished:
		fmt.Fprintf(p.w, "%s after %d steps, %s\n", e.Outcome, e.Steps, el)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// askLine asks a question on w and reads one line from in, honouring ctx.
func askLine(ctx context.Context, in *bufio.Reader, w io.Writer, q string) (string, error) {
	fmt.Fprintf(w, "%s\n> ", q)
	type line struct {
		s   string
		err error
	}
	ch := make(chan line, 1)
	go func() {
		s, err := in.ReadString('\n')
		ch <- line{strings.TrimRight(s, "\r\n"), err}
	}()
	select {
	case l := <-ch:
		if l.err != nil && l.s == "" {
			return "", fmt.Errorf("no answer: %w", l.err)
		}
		return l.s, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
