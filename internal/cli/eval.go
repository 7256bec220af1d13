//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
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
	displayServer                        string // --display-server (evalsway.go)
	parallel, maxSteps                   int
	timeout                              time.Duration
	asJSON, yes                          bool
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
	fl.StringVar(&f.cache, "cache", "", "read the files tasks download only from this inputs cache (filled by 'deskpilot eval fetch'); default: the user's cache folder, downloading what is missing")
	cmd.AddCommand(newEvalMergeCmd(), newEvalFetchCmd())
	return cmd
}

// options turns the flags into eval.Options; a bad flag is a usage error.
func (f *evalFlags) options(suite string) (eval.Options, error) {
	o := eval.Options{Suite: suite, Parallel: f.parallel, XDisplay: f.xDisplay, MaxSteps: f.maxSteps, Timeout: f.timeout}
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
	o, err := f.options(suite)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	// The suite first: a missing or broken one is the thing to fix, whatever the model.
	if _, err := eval.Load(suite); err != nil {
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
	stderr := &lockedWriter{w: cmd.ErrOrStderr()}
	o.Progress = stderr
	// One OCR reader and one PDF engine for every task.
	engines := wiring.NewEngines()
	defer engines.Close()
	r := &evalRunner{cfg: cfg, yes: f.yes, shared: f.xDisplay != "", engines: engines, version: s.version,
		log:     slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		secrets: cfgSecrets(cfg)}
	if r.compositor, err = compositorFor(f.displayServer); err != nil {
		return &exitError{exitUsage, err}
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
	switch {
	case err == nil:
		return nil
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
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the merged results folder (new or empty)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the merged summary as JSON on stdout")
	return cmd
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
