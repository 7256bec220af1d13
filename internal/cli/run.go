package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"deskpilot/agent"
	"deskpilot/agent/trace"
	"deskpilot/internal/config"
	"deskpilot/internal/wiring"
)

func newRunCmd(s *settings) *cobra.Command {
	var asJSON, yes, quiet bool
	var follow, branchFrom string
	cmd := &cobra.Command{
		Use:   "run TASK",
		Short: "Run a task headless: progress on stderr, the final answer on stdout",
		Long: `Run a task on the desktop without the app. Progress goes to stderr, the final answer
to stdout (or a JSON object with --json). Exit codes: 0 answered, 1 failed, 2 usage,
3 step limit, 4 the replayed steps diverged (--branch-from), 130 interrupted. With
--continue TRACE the task is a follow-up of the run recorded in that trace folder: the
model gets that run's task, replies and observations (and those of the runs it followed
up) before the new task. With --branch-from TRACE:STEP the recorded run's steps before
STEP are replayed, the screen checked before each as replay does (exit 4, and no model
call, when it does not look as recorded), and the model goes on from STEP with them as
its history: TASK defaults to the recorded run's.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if branchFrom == "" && len(args) == 0 {
				return errors.New("give the task (or --branch-from TRACE:STEP to go on with a recorded one)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			task := strings.Join(args, " ")
			var branch *evalBranch
			if branchFrom != "" {
				if follow != "" {
					return &exitError{exitUsage, errors.New("--branch-from and --continue: give one of them")}
				}
				var err error
				if branch, err = parseBranch(branchFrom); err != nil {
					return &exitError{exitUsage, err}
				}
				if task == "" {
					task = branch.rec.Start.Task
				}
			}
			cfg, err := s.load()
			if err != nil {
				return err
			}
			var priors []agent.Prior
			if follow != "" {
				key, kerr := wiring.TraceKey()
				if kerr != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), "note:", kerr)
				}
				if priors, err = agent.ReadPriors(follow, key); err != nil {
					return &exitError{exitUsage, err}
				}
				if n := priors[0].Unfollowed; n != "" && !quiet {
					fmt.Fprintln(cmd.ErrOrStderr(), "note: "+visibleControls(n))
				}
			}
			if !cfg.HasModel() {
				return &exitError{exitUsage, errors.New(config.ErrNoModel)}
			}
			ready, err := s.open(cmd.Context(), cfg, wiring.Options{})
			if err != nil {
				return &exitError{exitFailed, err}
			}
			defer ready.Close()
			a := ready.Agent
			z := secretsOf(a)
			stderr := cmd.ErrOrStderr()
			if !quiet {
				fmt.Fprintln(stderr, z.clean(modelLine(cfg)))
			}
			p := &progress{w: stderr, z: z, quiet: quiet, max: cfg.MaxSteps, start: time.Now()}
			var session atomic.Pointer[agent.Session]
			at := &terminalPerson{in: cmd.InOrStdin(), out: stderr, yes: yes, session: &session}
			hooks := at.hooks(cmd.Context(), p.event)
			// Without a terminal nobody could resume a paused run: no takeover then.
			a.NoTakeover = !at.present()
			asked := task
			if branch != nil {
				prior, dir, err := branch.replayPrefix(cmd.Context(), a, task, hooks)
				if err != nil {
					code := exitFailed
					if errors.As(err, new(*agent.DivergenceError)) {
						code = exitDiverged
					}
					return &exitError{code, fmt.Errorf("--branch-from: %s (the replay's trace: %s)", z.clean(err.Error()), dir)}
				}
				priors, asked = []agent.Prior{prior}, branchTask(task, branch.step)
			}
			run := a.Continue(cmd.Context(), priors, asked, hooks)
			session.Store(run)
			defer s.control(cfg).registerRun(task, run)()
			<-run.Done()
			return report(cmd.OutOrStdout(), z, run.Result(), asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON result on stdout")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "approve every action the safety policy asks about")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress on stderr")
	cmd.Flags().StringVar(&follow, "continue", "", "trace folder of an earlier run this task follows up")
	cmd.Flags().StringVar(&branchFrom, "branch-from", "", "TRACE:STEP: replay the recorded run's steps before STEP (exit 4 when the screen differs), then the model goes on")
	return cmd
}

// modelLine says which model runs in which dialect, and the grounder.
func modelLine(cfg config.Config) string {
	s := fmt.Sprintf("model %s at %s (provider %s), dialect %s", cfg.Model, wiring.RedactURL(cfg.BaseURL), cfg.ProviderNote(), cfg.DialectNote())
	if cfg.HasGrounder() {
		s += fmt.Sprintf("; grounder %s at %s (%s)", cfg.Grounder.Model, wiring.RedactURL(cfg.Grounder.BaseURL), cfg.Grounder.Dialect)
	}
	return s
}

// runResult is the --json output of `deskpilot run`.
type runResult struct {
	Outcome   string `json:"outcome"`
	Answer    string `json:"answer"`
	Summary   string `json:"summary,omitempty"` // after the step limit: the model's closing summary, not an answer
	Error     string `json:"error,omitempty"`
	Steps     int    `json:"steps"`
	InTokens  int    `json:"input_tokens"`
	OutTokens int    `json:"output_tokens"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Trace     string `json:"trace,omitempty"`
	RunID     string `json:"run_id,omitempty"` // trace.RunID of Trace
}

// report prints the result and maps the outcome to the exit code.
func report(w io.Writer, z sanitizer, fin agent.Finished, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(runResult{
			Outcome: string(fin.Outcome), Answer: fin.Answer, Summary: fin.Summary, Error: fin.Error, Steps: fin.Steps,
			InTokens: fin.Usage.Input, OutTokens: fin.Usage.Output, ElapsedMS: fin.Elapsed.Milliseconds(), Trace: fin.TraceDir, RunID: trace.RunID(fin.TraceDir),
		})
	} else if fin.Answer != "" {
		fmt.Fprintln(w, z.clean(fin.Answer))
	}
	switch fin.Outcome {
	case agent.Answered:
		return nil
	case agent.MaxSteps:
		// No answer: stdout stays empty, and the exit code and this line say why.
		err := fmt.Errorf("no answer: the step limit (%d steps) was reached", fin.Steps)
		if fin.Summary != "" && !asJSON {
			err = fmt.Errorf("%w; the model's summary, not an answer:\n%s", err, indent(z.clean(fin.Summary), "  "))
		}
		return &exitError{exitStepLimit, err}
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
	z     sanitizer
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
			fmt.Fprintf(p.w, "trace: %s (run %s)\n", e.TraceDir, trace.RunID(e.TraceDir))
		}
	case agent.ModelReplied:
		p.in += e.Usage.Input
		p.out += e.Usage.Output
		what := fmt.Sprintf("step %d/%d", e.Step, p.max)
		if e.Step > p.max {
			what = "step limit reached: closing summary" // the call after the last step
		}
		fmt.Fprintf(p.w, "%s  %s  tokens %d in / %d out  model %s\n", what, el, p.in, p.out, e.Duration.Truncate(time.Millisecond))
	case agent.ActionDone:
		status := "ok"
		if e.Action.Error != "" {
			status = "error: " + e.Action.Error
		}
		fmt.Fprintf(p.w, "  %s(%s) %s\n", e.Action.Name, p.z.clean(e.Action.Args), p.z.clean(status))
	case agent.Observed:
		if e.Error != "" {
			fmt.Fprintf(p.w, "  error: %s\n", p.z.clean(firstLine(e.Error)))
		}
	case agent.Paused:
		fmt.Fprintf(p.w, "paused: %s\n", p.z.clean(e.Reason))
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

// terminalPerson is whoever sits at the terminal of `deskpilot run`: it answers
// ask_user, approves what the policy asks about and resumes a paused run. With
// no terminal on standard input (cron, systemd, CI, </dev/null) nobody is there:
// questions are told so, approvals are refused (unless --yes), and takeover is
// off. End of input at a prompt means the same: a question gets no answer, an
// approval is refused, and a paused run is stopped (nobody can resume it).
type terminalPerson struct {
	in      io.Reader
	out     io.Writer
	yes     bool
	session *atomic.Pointer[agent.Session]
	once    sync.Once
	lines   *bufio.Reader
}

func (p *terminalPerson) present() bool { return isTerminal(p.in) }

func (p *terminalPerson) reader() *bufio.Reader {
	p.once.Do(func() { p.lines = bufio.NewReader(p.in) })
	return p.lines
}

// hooks returns the run's hooks, events going to events.
func (p *terminalPerson) hooks(ctx context.Context, events func(agent.Event)) agent.Hooks {
	h := agent.Hooks{Event: events}
	h.Confirm = func(ctx context.Context, action string) (bool, error) {
		if p.yes {
			return true, nil
		}
		if !p.present() {
			return false, agent.ErrNoOneToAsk
		}
		ans, err := askLine(ctx, p.reader(), p.out, "Allow "+visibleControls(action)+"? [y/N]")
		if errors.Is(err, errNoPerson) {
			return false, agent.ErrNoOneToAsk
		}
		return strings.HasPrefix(strings.ToLower(strings.TrimSpace(ans)), "y"), err
	}
	if !p.present() {
		return h
	}
	h.Ask = func(ctx context.Context, q string) (string, error) {
		return askLine(ctx, p.reader(), p.out, visibleControls(q))
	}
	h.Event = func(e agent.Event) {
		events(e)
		if _, ok := e.(agent.Paused); ok {
			go p.resume(ctx)
		}
	}
	return h
}

// resume asks the person to hand the desktop back, and resumes or stops the run.
func (p *terminalPerson) resume(ctx context.Context) {
	note, err := askLine(ctx, p.reader(), p.out, "You have the desktop. Press Enter to let the agent continue (you may type a note for it first):")
	s := p.session.Load()
	switch {
	case s == nil:
	case err == nil:
		s.Resume(note)
	case errors.Is(err, errNoPerson):
		fmt.Fprintln(p.out, "standard input closed with the run paused: stopping it")
		s.Stop()
	}
}
