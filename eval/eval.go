//go:build linux

package eval

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"strconv"
	"strings"
	"time"

	"deskpilot/vision/xdisplay"
)

// Job is one agent run the harness asks a Runner for: a task, the display to do it
// on, and its budget.
type Job struct {
	// TaskID is the task's id (GAIA's task_id, OSWorld's id).
	TaskID string
	// Attempt is the attempt's number, from 1 (Options.Attempts).
	Attempt int
	// Instruction is what the agent is told: the task's instruction; for a GAIA
	// question with a file, it also says where the file is.
	Instruction string
	// Display is the X display the agent drives: a private display started for
	// this task alone, or with Options.XDisplay the existing display every task
	// uses in turn. Never nil. Connections to a private display need its own
	// authority (Display.XAuthority; Env sets XAUTHORITY to it).
	Display *xdisplay.Display
	// Env is the environment for programs the agent starts on the display: the
	// display's (DISPLAY, XAUTHORITY) with HOME and the XDG base folders pointing
	// into the task's folder, as the task's own setup commands had.
	Env []string
	// Launch starts a program the agent launches in the task's box (as the
	// task's own programs run) and returns its pid there; paths in the task's
	// home are given as the harness sees them.
	Launch func(name string, args ...string) (int, error)
	// Home is the task's home folder (HOME in Env); the agent's file inspector
	// may read it.
	Home string
	// Files are files attached to the task (absolute paths) that the agent's file
	// inspector must be allowed to read.
	Files []string
	// MaxSteps is the step limit; 0 means the runner's own default.
	MaxSteps int
	// Timeout is the task's time budget; ctx's deadline says the same.
	Timeout time.Duration
	// TraceDir is the folder the run's trace goes in (the trace writer makes its
	// own sub-folder there).
	TraceDir string
}

// Outcome is what a Runner reports about one run.
type Outcome struct {
	// Answer is the final answer; "" when the run gave none.
	Answer string
	// Outcome is how the run ended, in the trace's words: "answered", "failed",
	// "max_steps" or "cancelled".
	Outcome string
	// Exit is the exit code `deskpilot run` gives for that ending: 0 answered,
	// 1 failed, 3 step limit, 130 interrupted.
	Exit int
	// Steps is the number of steps taken.
	Steps int
	// Tokens is the model's input plus output tokens over the run.
	Tokens int
	// Trace is the folder of the run's trace (it holds report.html); "" when none.
	Trace string
}

// Runner runs the agent for one job and reports how the run went. It must return
// soon after ctx is done (the task's timeout or the whole evaluation's
// cancellation). An error means the run could not go on normally (the model was
// unreachable, the agent could not start); the task is checked all the same.
// Runners are called from several goroutines at once when Options.Parallel > 1.
type Runner func(ctx context.Context, j Job) (Outcome, error)

// Defaults of Options.
const (
	// DefaultTimeout is a task's time budget when neither Options nor the task set one.
	DefaultTimeout = 10 * time.Minute
	// DefaultWidth and DefaultHeight are the size of a private display when neither
	// Options nor the task set one.
	DefaultWidth, DefaultHeight = 1920, 1080
)

// Options configures Run. Flags of `deskpilot eval` map onto it one to one.
type Options struct {
	// Suite is the suite to run: a GAIA .jsonl file, one OSWorld task .json file,
	// or a folder (GAIA when it holds metadata.jsonl, else every OSWorld task
	// .json below it).
	Suite string
	// Out is the results folder; it is created when missing. It must not hold
	// results already unless Resume is set.
	Out string
	// Resume continues the evaluation recorded in Out: tasks already in its
	// results.jsonl are skipped. Out must come from the same suite, model and shard.
	Resume bool
	// Model names the model in run.json and the summary; it is not used otherwise.
	Model string
	// Parallel is how many tasks (or attempts of tasks) run at once, each on
	// its own display; 0 means 1.
	Parallel int
	// Attempts is how many independent attempts each task gets, each on a
	// fresh display and home; 0 means 1. Results keep every attempt.
	Attempts int
	// Judge, with Attempts above 1, picks each task's result among its
	// attempts once they all finished (`--select judge`); nil makes attempt 1
	// the task's result.
	Judge Judge
	// Screen is the size of the private displays; zero means the task's own size,
	// else DefaultWidth x DefaultHeight.
	Screen image.Point
	// XDisplay runs every task on this existing X display (":1"), one at a time,
	// instead of on private displays. Parallel must then be 0 or 1.
	XDisplay string
	// MaxSteps is each task's step limit; 0 means the task's own, else the runner's
	// default.
	MaxSteps int
	// Timeout is each task's time budget; 0 means the task's own, else DefaultTimeout.
	// It bounds the task's setup steps too.
	Timeout time.Duration
	// TaskNetwork is the network of a task's box: "" (the default), a loopback
	// of its own; "host", the machine's.
	TaskNetwork string
	// DriveAPI is the base URL of Google's APIs the googledrive steps and
	// getters call (Drive v2 under /drive/v2); "" means
	// $DESKPILOT_GDRIVE_API, else https://www.googleapis.com. Tests point
	// it at a fake Drive.
	DriveAPI string
	// Shard runs only every Shard.Count-th task of the suite; the zero value runs all.
	Shard Shard
	// Inputs is the cache of the files tasks download (OSWorld's download
	// steps, cloud_file getters); nil means DefaultInputsDir, downloading what
	// is missing.
	Inputs *Inputs
	// Progress receives a line when the evaluation starts and one per finished
	// task (stderr in the command); nil means none.
	Progress io.Writer
	// Now is the clock for durations; nil means time.Now.
	Now func() time.Time
}

// check fills defaults and rejects contradictory options.
func (o Options) check() (Options, error) {
	if o.Suite == "" {
		return o, errors.New("eval: no suite given")
	}
	if o.Out == "" {
		return o, errors.New("eval: no results folder given")
	}
	if o.Parallel < 0 {
		return o, fmt.Errorf("eval: parallel %d: must be at least 1", o.Parallel)
	}
	if o.Parallel == 0 {
		o.Parallel = 1
	}
	if o.Attempts < 0 {
		return o, fmt.Errorf("eval: attempts %d: must be at least 1", o.Attempts)
	}
	if o.Judge != nil && o.Attempts < 2 {
		return o, errors.New("eval: a judge selects among attempts: give at least 2 attempts")
	}
	if o.XDisplay != "" && o.Parallel > 1 {
		return o, fmt.Errorf("eval: parallel %d with an existing display (%s): tasks on one display run one at a time", o.Parallel, o.XDisplay)
	}
	if o.Screen != (image.Point{}) {
		if _, err := ParseScreen(fmt.Sprintf("%dx%d", o.Screen.X, o.Screen.Y)); err != nil {
			return o, fmt.Errorf("eval: %w", err)
		}
	}
	if o.MaxSteps < 0 || o.Timeout < 0 {
		return o, errors.New("eval: max steps and timeout cannot be negative")
	}
	if o.TaskNetwork != "" && o.TaskNetwork != "host" {
		return o, fmt.Errorf("eval: task network %q: want host, or none for a loopback of the task's own", o.TaskNetwork)
	}
	if err := o.Shard.check(); err != nil {
		return o, err
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

// StartError is an evaluation that could not start: nothing ran and no result
// was recorded. `deskpilot eval` exits with the usage code for it.
type StartError struct{ Err error }

func (e *StartError) Error() string { return e.Err.Error() }

func (e *StartError) Unwrap() error { return e.Err }

// Shard selects every Count-th task of a suite, starting at the Index-th (from 0),
// in the suite's order. The zero value selects all tasks.
type Shard struct {
	Index, Count int
}

// ParseShard reads "I/N" (0 <= I < N); "" is the zero Shard.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want I/N, e.g. 0/4", s)
	}
	sh := Shard{Index: i, Count: n}
	return sh, sh.check()
}

func (s Shard) check() error {
	if s == (Shard{}) {
		return nil
	}
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d/%d: want 0 <= I < N", s.Index, s.Count)
	}
	return nil
}

// String is "I/N", or "" for the zero Shard.
func (s Shard) String() string {
	if s == (Shard{}) {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// pick returns the tasks of the shard.
func (s Shard) pick(tasks []*Task) []*Task {
	if s.Count <= 1 {
		return tasks
	}
	var out []*Task
	for i, t := range tasks {
		if i%s.Count == s.Index {
			out = append(out, t)
		}
	}
	return out
}
