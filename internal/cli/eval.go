//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"deskpilot/eval"
	"deskpilot/internal/config"
	"deskpilot/internal/wiring"
)

// evalFlags are the flags of `deskpilot eval`; each maps onto eval.Options
// (docs/eval.md has the table).
type evalFlags struct {
	out, resume, screen, xDisplay, shard string
	cache                                string // --cache (eval_fetch.go)
	branchFrom                           string // --branch-from TRACE:STEP (evalbranch.go)
	displayServer                        string // --display-server (evalsway.go)
	taskNetwork                          string // --task-network
	parallel, maxSteps, attempts         int
	timeout                              time.Duration
	asJSON, yes                          bool
	judge                                judgeFlags // --select judge (evaljudge.go)
}

func newEvalCmd(s *settings) *cobra.Command {
	f := &evalFlags{}
	cmd := &cobra.Command{
		Use:   "eval SUITE",
		Short: "Measure the agent on a suite: GAIA questions or OSWorld-format desktop tasks",
		Long: `Run every task of SUITE (a GAIA .jsonl file or folder, an OSWorld task file or
folder) with the agent, each on a fresh private X display (Xvfb + openbox) with its
own X authority, home folder and credential-free environment, and check each run
with the task's own checker. Results go to the results folder: results.jsonl (one
line per task), summary.json, index.html and each task's trace. The model is
configured as for 'deskpilot run'. A progress line per task goes to stderr; --json
prints the summary on stdout. Exit codes: 0 the evaluation ran (whatever the
score), 1 results could not be written, 2 usage, 130 interrupted (what finished
is recorded; --resume DIR runs the rest). docs/eval.md explains suites, flags,
shards and Kubernetes.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEval(cmd, s, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "results folder (new or empty)")
	fl.StringVar(&f.resume, "resume", "", "go on with the evaluation in this results folder (or start it there): tasks it finished are skipped")
	fl.IntVar(&f.parallel, "parallel", 1, "tasks run at once, each on its own display")
	fl.StringVar(&f.screen, "screen", "", "size of the private displays, WxH (default: the task's own, else 1920x1080)")
	fl.StringVar(&f.xDisplay, "x-display", "", "run every task on this existing X display, one at a time, instead of on private displays")
	fl.IntVar(&f.maxSteps, "max-steps", 0, "step limit of each task (default: the task's own, else max_steps of the config)")
	fl.DurationVar(&f.timeout, "timeout", 0, "time limit of each task, e.g. 10m (default: the task's own, else 10m)")
	fl.StringVar(&f.shard, "shard", "", "run shard I/N: tasks I, I+N, I+2N, ... of the suite (from 0)")
	fl.BoolVar(&f.asJSON, "json", false, "print the summary as JSON on stdout")
	fl.StringVar(&f.displayServer, "display-server", "xvfb", "what the agent drives in each task: xvfb (the task's X display) or sway (a headless sway of the task's own)")
	fl.BoolVarP(&f.yes, "yes", "y", false, "approve every action the safety policy asks about (unattended runs refuse them otherwise)")
	fl.StringVar(&f.taskNetwork, "task-network", "", "network of each task's box: host shares this machine's (default: a loopback of the task's own)")
	fl.IntVar(&f.attempts, "attempts", 1, "independent attempts of each task, each on its own display and home; the summary gives pass@1, pass@k, mean and spread")
	fl.StringVar(&f.judge.selection, "select", eval.SelectFirst, "which attempt is a task's result: first, or judge (a model compares the attempts' narratives; bBoN@k)")
	fl.StringVar(&f.judge.model, "judge-model", "", "the judge's model (default: the agent's)")
	fl.StringVar(&f.judge.baseURL, "judge-base-url", "", "the judge's endpoint (default: the agent's)")
	fl.StringVar(&f.judge.provider, "judge-provider", "", "the judge's wire format: chat, responses, anthropic or gemini (default: by its base URL)")
	fl.StringVar(&f.judge.apiKeyEnv, "judge-api-key-env", "", "environment variable holding the judge's key (default: the agent's key when the judge shares its endpoint, else none)")
	fl.StringVar(&f.branchFrom, "branch-from", "", "TRACE:STEP: each attempt replays the recorded run's steps before STEP on its display (exit 4 when the screen differs), then the model goes on")
	fl.StringVar(&f.cache, "cache", "", "read the files tasks download only from this inputs cache (filled by 'deskpilot eval fetch'); default: the user's cache folder, downloading what is missing")
	cmd.AddCommand(newEvalMergeCmd(), newEvalFetchCmd())
	return cmd
}

// options turns the flags into eval.Options; a bad flag is a usage error.
func (f *evalFlags) options(suite string) (eval.Options, error) {
	o := eval.Options{Suite: suite, Parallel: f.parallel, Attempts: f.attempts, XDisplay: f.xDisplay, MaxSteps: f.maxSteps, Timeout: f.timeout,
		TaskNetwork: f.taskNetwork}
	switch {
	case f.out != "" && f.resume != "" && f.out != f.resume:
		return o, errors.New("--out and --resume name different folders: give one")
	case f.resume != "":
		o.Out, o.Resume = f.resume, true
	case f.out != "":
		o.Out = f.out
	default:
		return o, errors.New("no results folder: give --out DIR (or --resume DIR)")
	}
	if f.parallel < 1 {
		return o, fmt.Errorf("--parallel %d: must be at least 1", f.parallel)
	}
	if f.attempts < 1 {
		return o, fmt.Errorf("--attempts %d: must be at least 1", f.attempts)
	}
	if f.judge.selection == eval.SelectJudge && f.attempts < 2 {
		return o, errors.New("--select judge picks among attempts: give --attempts 2 or more")
	}
	if f.maxSteps < 0 || f.timeout < 0 {
		return o, errors.New("--max-steps and --timeout cannot be negative")
	}
	var err error
	if o.Inputs, err = inputsFor(f.cache); err != nil {
		return o, err
	}
	if f.screen != "" {
		if o.Screen, err = eval.ParseScreen(f.screen); err != nil {
			return o, fmt.Errorf("--screen: %w", err)
		}
	}
	if o.Shard, err = eval.ParseShard(f.shard); err != nil {
		return o, fmt.Errorf("--shard: %w", err)
	}
	return o, nil
}

// runEval is `deskpilot eval SUITE`: the harness with the agent as its runner.
func runEval(cmd *cobra.Command, s *settings, f *evalFlags, suite string) error {
	// The suite first: a missing or broken one is the thing to fix, whatever
	// the flags and the model.
	if _, err := eval.Load(suite); err != nil {
		return &exitError{exitUsage, err}
	}
	o, err := f.options(suite)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	cfg, err := s.load()
	if err != nil {
		return err
	}
	if !cfg.HasModel() {
		return &exitError{exitUsage, errors.New(config.ErrNoModel)}
	}
	o.Model = cfg.Model
	var judgeKey string
	if o.Judge, judgeKey, err = f.judge.judgeFor(cfg, f.attempts); err != nil {
		return &exitError{exitUsage, err}
	}
	stderr := &lockedWriter{w: cmd.ErrOrStderr()}
	o.Progress = stderr
	// One OCR reader and one PDF engine for every task.
	engines := wiring.NewEngines()
	defer engines.Close()
	r := &evalRunner{cfg: cfg, yes: f.yes, shared: f.xDisplay != "", engines: engines, version: s.version,
		log:     slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		secrets: append(cfgSecrets(cfg), nonEmpty(judgeKey)...)}
	if r.compositor, err = compositorFor(f.displayServer); err != nil {
		return &exitError{exitUsage, err}
	}
	if f.branchFrom != "" {
		if r.compositor != nil {
			return &exitError{exitUsage, errors.New("--branch-from replays on the task's X display: not with --display-server sway")}
		}
		if r.branch, err = parseBranch(f.branchFrom); err != nil {
			return &exitError{exitUsage, err}
		}
	}
	// deskpilot stop and the Stop key end the evaluation as Ctrl+C does.
	ctx, stop := context.WithCancel(cmd.Context())
	defer stop()
	defer s.control(cfg).registerEval(suite, stop)()
	sum, err := eval.Run(ctx, o, r.run)
	var start *eval.StartError
	if errors.As(err, &start) {
		return &exitError{exitUsage, err}
	}
	if f.asJSON {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		if werr := enc.Encode(sum); werr != nil && err == nil {
			err = fmt.Errorf("print the summary: %w", werr)
		}
	}
	fmt.Fprintf(stderr, "eval: %d of %d passed, %d finished; results in %s\n", sum.Passed, sum.Tasks, len(sum.Results), o.Out)
	printAttempts(stderr, sum)
	if err == nil {
		err = diverged(sum)
	}
	switch {
	case err == nil:
		return nil
	case errors.As(err, new(*exitError)):
		return err
	case ctx.Err() != nil:
		return &exitError{exitInterrupted, fmt.Errorf("interrupted: %d of %d tasks finished; --resume %s runs the rest", len(sum.Results), sum.Tasks, o.Out)}
	default:
		return &exitError{exitFailed, err}
	}
}

// newEvalMergeCmd is `deskpilot eval merge --out DIR DIR...`.
func newEvalMergeCmd() *cobra.Command {
	var out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "merge --out DIR SHARD-DIR...",
		Short: "Merge the results folders of an evaluation's shards into one",
		Long: `Merge results folders (the shards of one evaluation, --shard I/N on several
machines or pods) into a new folder: one results.jsonl in the suite's order,
summary.json, index.html, with links to each shard's traces. Folders of different
suites or models, the same shard twice, or a task in two folders are refused.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return &exitError{exitUsage, errors.New("no output folder: give --out DIR")}
			}
			sum, err := eval.Merge(out, args...)
			if err != nil {
				return &exitError{exitUsage, err}
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(sum); err != nil {
					return &exitError{exitFailed, fmt.Errorf("print the summary: %w", err)}
				}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "eval merge: %d of %d passed, %d finished; results in %s\n", sum.Passed, sum.Tasks, len(sum.Results), out)
			printAttempts(cmd.ErrOrStderr(), sum)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the merged results folder (new or empty)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the merged summary as JSON on stdout")
	return cmd
}

// diverged is exit 4 when an attempt's replayed prefix (--branch-from)
// found the screen other than recorded.
func diverged(sum eval.Summary) error {
	all := sum.Results
	if sum.Attempts != nil {
		all = sum.Attempts.Results
	}
	for _, r := range all {
		if r.Exit == exitDiverged {
			return &exitError{exitDiverged, fmt.Errorf("task %s: the recorded prefix diverged: %s", visibleControls(r.ID), visibleControls(r.Error))}
		}
	}
	return nil
}

// printAttempts prints the attempt figures of a summary, overall and per
// domain; nothing with one attempt per task.
func printAttempts(w io.Writer, sum eval.Summary) {
	a := sum.Attempts
	if a == nil {
		return
	}
	fmt.Fprintf(w, "eval: %d attempts per task, %s selects; over %d tasks: %s\n", a.K, a.Select, a.Overall.Tasks, a.Overall.Line(a.K))
	for _, d := range a.DomainNames() {
		fmt.Fprintf(w, "eval:   %s (%d tasks): %s\n", d, a.Domains[d].Tasks, a.Domains[d].Line(a.K))
	}
	for _, t := range a.Tasks {
		scores := make([]string, len(t.Scores))
		for i, s := range t.Scores {
			scores[i] = "-"
			if s != nil {
				scores[i] = strconv.FormatFloat(*s, 'f', -1, 64)
			}
		}
		line := fmt.Sprintf("eval:   %s: scores %s; pass@1 %.2f, pass@%d %.2f, mean %.2f, min-max %.2f-%.2f",
			visibleControls(t.ID), strings.Join(scores, " "), t.PassAt1, a.K, t.PassAtK, t.Mean, t.Min, t.Max)
		if sel := t.Selection; sel != nil {
			line += fmt.Sprintf("; selected attempt %d (%s)", sel.Attempt, sel.By)
		}
		fmt.Fprintln(w, line)
	}
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// lockedWriter serialises writes: the harness's progress lines and the logs
// of agents running at once share stderr, each write a whole line.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
