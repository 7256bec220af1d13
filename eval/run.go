//go:build linux

package eval

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"deskpilot/internal/wait"
	"deskpilot/vision/xdisplay"
)

// Budgets of the harness's own work around a run.
const (
	checkTimeout = 5 * time.Minute  // postconfig and every getter and metric of a task
	runnerGrace  = 30 * time.Second // how long a runner may take to return after its ctx is done
	displayRetry = time.Second      // pause before the one retry of a display that did not start
)

// Run runs an evaluation: it loads o.Suite, runs every task of o.Shard not yet
// finished in o.Out (o.Parallel at a time, each on a fresh private display unless
// o.XDisplay is set), checks each run, appends each task's Result to
// o.Out/results.jsonl as it finishes, and at the end writes summary.json and
// index.html there and returns the summary.
//
// When ctx is cancelled, running tasks are stopped (their runners' ctx is
// cancelled, their displays closed), nothing more starts, the summary of the
// tasks finished so far is written and returned, marked Interrupted, with an
// error wrapping ctx's. Interrupted tasks are not recorded: Options.Resume runs
// them again. An evaluation that could not start (bad options, a suite that
// does not load, a results folder that cannot take it, an X display that does
// not answer) is a *StartError; any other error means results could not be
// written.
func Run(ctx context.Context, o Options, run Runner) (Summary, error) {
	if run == nil {
		return Summary{}, &StartError{errors.New("eval: no runner")}
	}
	o, err := o.check()
	if err != nil {
		return Summary{}, &StartError{err}
	}
	suite, err := Load(o.Suite)
	if err != nil {
		return Summary{}, &StartError{err}
	}
	tasks := o.Shard.pick(suite.Tasks)
	info := runInfo{Version: 1, Suite: suite.Name, SuitePath: suite.Path, Model: o.Model, Shard: o.Shard.String(),
		Tasks: len(tasks), SuiteTasks: len(suite.Tasks)}
	if o.Attempts > 1 {
		info.Attempts, info.Select = o.Attempts, SelectFirst
		if o.Judge != nil {
			info.Select = SelectJudge
		}
	}
	for _, t := range tasks {
		info.IDs = append(info.IDs, t.ID)
		if t.Domain != "" {
			if info.Domains == nil {
				info.Domains = map[string]int{}
			}
			info.Domains[t.Domain]++
		}
	}
	h := &harness{o: o, run: run, suite: suite, inputs: o.Inputs}
	if h.inputs == nil {
		if h.inputs, err = defaultInputs(); err != nil {
			return Summary{}, &StartError{err}
		}
	}
	if o.XDisplay != "" {
		if h.shared, err = xdisplay.Attach(o.XDisplay); err != nil {
			return Summary{}, &StartError{fmt.Errorf("eval: %w", err)}
		}
		defer h.shared.Close()
	}
	if h.out, err = openOut(o.Out, o.Resume, info); err != nil {
		return Summary{}, &StartError{err}
	}
	out := h.out
	todo, before := h.todo(tasks)
	attempts := ""
	if k := info.k(); k > 1 {
		attempts = fmt.Sprintf(", %d attempts each (%s selects)", k, info.mode())
	}
	h.printf("eval: %s (%s): %d tasks%s, %d finished before, %d at a time, results in %s\n",
		suite.Name, suite.Format, len(tasks), attempts, before, o.Parallel, o.Out)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	h.cancel = cancel
	h.runAll(ctx, todo)
	s := out.summary()
	cause := context.Cause(ctx)
	s.Interrupted = cause != nil && len(s.Results) < len(tasks)
	if err := out.finish(s); err != nil {
		return s, err
	}
	if cause != nil {
		return s, fmt.Errorf("eval: stopped with %d of %d tasks finished: %w", len(s.Results), len(tasks), cause)
	}
	return s, nil
}

// harness is one evaluation in progress.
type harness struct {
	o      Options
	run    Runner
	out    *outDir
	suite  *Suite
	shared *xdisplay.Display // with Options.XDisplay
	inputs *Inputs           // the download cache
	cancel context.CancelCauseFunc

	progressMu sync.Mutex
	judgeMu    sync.Mutex
	judging    map[string]bool // tasks whose selection is under way or made
}

// unit is one piece of work: attempt n (from 1) of a task, or with n 0 only
// the selection among its finished attempts.
type unit struct {
	t *Task
	n int
}

// todo lists the attempts not recorded yet, in the suite's order then by
// attempt, after the selections still to make for tasks whose attempts
// all finished before; before counts the tasks finished before.
func (h *harness) todo(tasks []*Task) (todo []unit, before int) {
	var sel []unit
	for _, t := range tasks {
		missing := 0
		for n := 1; n <= h.out.info.k(); n++ {
			if _, ok := h.out.done(t.ID, n); !ok {
				todo = append(todo, unit{t, n})
				missing++
			}
		}
		switch _, picked := h.out.selected(t.ID); {
		case missing > 0:
		case h.o.Judge != nil && h.out.info.k() > 1 && !picked:
			sel = append(sel, unit{t, 0})
		default:
			before++
		}
	}
	return append(sel, todo...), before
}

// runAll runs units on o.Parallel workers until all are done or ctx is.
func (h *harness) runAll(ctx context.Context, units []unit) {
	queue := make(chan unit)
	var wg sync.WaitGroup
	for range h.o.Parallel {
		wg.Go(func() {
			for u := range queue {
				if u.n > 0 {
					h.task(ctx, u.t, u.n)
				}
				h.selectAttempt(ctx, u.t)
			}
		})
	}
feed:
	for _, u := range units {
		select {
		case queue <- u:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
}

// task runs attempt n of a task and records its result; a result that
// cannot be written stops the evaluation.
func (h *harness) task(ctx context.Context, t *Task, n int) {
	res, ok := h.runTask(ctx, t, n)
	if !ok {
		return
	}
	finished, passed, err := h.out.add(res)
	if err != nil {
		h.cancel(err)
		return
	}
	verdict := "fail"
	switch {
	case res.Correct:
		verdict = "pass"
	case res.Score > 0:
		verdict = fmt.Sprintf("%.2f", res.Score)
	}
	name, total := printable(t.ID), h.out.info.Tasks
	if k := h.out.info.k(); k > 1 {
		name, total = fmt.Sprintf("%s#%d", name, n), total*k
	}
	line := fmt.Sprintf("eval: [%d/%d] %s %s %.0fs %d steps (%d passed)", finished, total, verdict, name, res.Seconds, res.Steps, passed)
	if why := firstNonEmpty(res.Error, res.Check); why != "" {
		line += ": " + cut(printable(why), 160)
	}
	h.printf("%s\n", line)
}

// runTask runs attempt n of a task from a fresh display to its checked
// result. ok is false when ctx was cancelled before the attempt finished: it
// is then not recorded.
func (h *harness) runTask(ctx context.Context, t *Task, n int) (res Result, ok bool) {
	start := h.o.Now()
	res = Result{ID: t.ID, Exit: 1, Expected: t.Answer, Domain: t.Domain}
	if h.out.info.k() > 1 {
		res.Attempt = n
	}
	defer func() {
		if p := recover(); p != nil {
			res.Correct, res.Score = false, 0
			res.Error = cut(fmt.Sprintf("eval: internal error: %v\n%s", p, debug.Stack()), 2000)
			ok = ctx.Err() == nil
		}
		res.Seconds = math.Round(h.o.Now().Sub(start).Seconds()*10) / 10
	}()
	if t.Problem != nil {
		res.Error, res.Status = t.Problem.Error(), statusOf(t.Problem)
		return res, true
	}
	if err := h.preflight(t); err != nil {
		res.Error, res.Status = "setup: "+err.Error(), statusOf(err)
		return res, true
	}
	dir, err := filepath.Abs(h.attemptDir(t, n))
	if err == nil {
		err = os.RemoveAll(dir)
	}
	if err == nil {
		err = os.MkdirAll(filepath.Join(dir, "trace"), 0o700)
	}
	if err != nil {
		res.Error = fmt.Sprintf("eval: task folder: %v", err)
		return res, true
	}
	d, release, err := h.display(ctx, t)
	if err != nil {
		res.Error = err.Error()
		return res, ctx.Err() == nil
	}
	defer release()
	b, err := newBox(d, dir, h.taskDir(t))
	if err != nil {
		res.Error = fmt.Sprintf("eval: task folder: %v", err)
		return res, true
	}
	b.hostNet = h.o.TaskNetwork == "host"
	b.driveAPI = h.o.driveAPI()
	defer b.close()
	defer b.attachInputs(h.inputs)()
	if err := b.prepareApps(); err != nil {
		res.Error = fmt.Sprintf("eval: task folder: %v", err)
		return res, true
	}
	if h.shared == nil {
		b.startShortcuts() // a private display is the task's desktop; a shared one keeps its own keys
	}
	return h.runAndCheck(ctx, t, b, res)
}

// attemptDir is the folder of attempt n of a task: tasks/<id>/ with one
// attempt per task, else tasks/<id>/attempt-<n>/.
func (h *harness) attemptDir(t *Task, n int) string {
	dir := filepath.Join(h.o.Out, tasksDir, safeName(t.ID))
	if h.out.info.k() > 1 {
		dir = filepath.Join(dir, fmt.Sprintf("attempt-%d", n))
	}
	return dir
}

// runAndCheck does a task's setup, run and check on its box.
func (h *harness) runAndCheck(ctx context.Context, t *Task, b *box, res Result) (Result, bool) {
	timeout := time.Duration(firstPositive(int64(h.o.Timeout), int64(t.Timeout), int64(DefaultTimeout)))
	if t.os != nil {
		sctx, cancel := context.WithTimeout(ctx, timeout) // the task's timeout bounds its setup too
		err := b.runSteps(sctx, t.os.config, "config")
		cancel()
		if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("timeout: the task's %s ran out during setup: %w", timeout, err)
		}
		if err != nil {
			res.Error, res.Status = "setup: "+err.Error(), statusOf(err)
			return res, ctx.Err() == nil
		}
	}
	job := Job{
		TaskID: t.ID, Attempt: max(res.Attempt, 1), Instruction: t.Instruction, Display: b.d, Env: slices.Clone(b.env), Home: b.home,
		Launch:   b.agentLaunch,
		MaxSteps: firstPositive(h.o.MaxSteps, t.MaxSteps),
		Timeout:  timeout,
		TraceDir: filepath.Join(filepath.Dir(b.home), "trace"),
	}
	if t.File != "" {
		job.Files = []string{t.File}
	}
	out, runErr := h.call(ctx, job)
	if ctx.Err() != nil {
		return res, false
	}
	res.Answer, res.Exit, res.Steps, res.Tokens = out.Answer, out.Exit, out.Steps, out.Tokens
	res.Trace = relTrace(h.o.Out, out.Trace)
	var errs []string
	if runErr != nil {
		errs = append(errs, runErr.Error())
	}
	if t.os == nil {
		h.scoreGAIA(t, &res, &errs)
	} else {
		cctx, cancel := context.WithTimeout(ctx, checkTimeout)
		v, err := b.evaluate(cctx, t.os.eval, out.Answer)
		cancel()
		if ctx.Err() != nil {
			return res, false
		}
		if err != nil {
			errs = append(errs, "check: "+err.Error())
			res.Status = statusOf(err)
		}
		res.Score, res.Correct, res.Check = v.score, err == nil && v.score == 1, v.note
	}
	res.Error = strings.Join(errs, "; ")
	return res, true
}

// scoreGAIA scores a GAIA answer. The test split's ground truth is hidden ("?"):
// such an answer is recorded, not scored.
func (h *harness) scoreGAIA(t *Task, res *Result, errs *[]string) {
	if strings.TrimSpace(t.Answer) == "?" {
		*errs = append(*errs, `no ground truth ("?"): the answer is not scored`)
		return
	}
	res.Correct = ScoreGAIA(res.Answer, t.Answer)
	res.Score = b2f(res.Correct)
}

// call runs the runner with the task's timeout. A panic in the runner becomes an
// error; a runner that does not return within runnerGrace after its ctx is done
// is left behind (its display is closed under it) and reported.
func (h *harness) call(ctx context.Context, j Job) (Outcome, error) {
	rctx, cancel := context.WithTimeout(ctx, j.Timeout)
	defer cancel()
	type ret struct {
		out Outcome
		err error
	}
	done := make(chan ret, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- ret{err: fmt.Errorf("runner panicked: %v", p)}
			}
		}()
		out, err := h.run(rctx, j)
		done <- ret{out, err}
	}()
	var r ret
	select {
	case r = <-done:
	case <-rctx.Done():
		select {
		case r = <-done:
		case <-time.After(runnerGrace):
			r.err = fmt.Errorf("the runner did not return within %s of being stopped", runnerGrace)
		}
	}
	if ctx.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded) {
		timeout := fmt.Errorf("timeout: the run took longer than %s", j.Timeout)
		if r.err != nil && !errors.Is(r.err, context.DeadlineExceeded) {
			timeout = fmt.Errorf("%w (%v)", timeout, r.err)
		}
		r.err = timeout
	}
	return r.out, r.err
}

// display returns the display for a task and how to release it: a fresh private
// display (one retry if it fails to start), or the shared one. A private
// display has its own session bus and AT-SPI bus, so the task's apps expose
// their accessibility tree there (find_elements, marks) rather than on the
// buses of the session running the harness; when those cannot start, the
// retry is without them.
func (h *harness) display(ctx context.Context, t *Task) (*xdisplay.Display, func(), error) {
	if h.shared != nil {
		return h.shared, func() {}, nil
	}
	size := image.Pt(DefaultWidth, DefaultHeight)
	switch {
	case h.o.Screen != image.Point{}:
		size = h.o.Screen
	case t.Screen != image.Point{}:
		size = t.Screen
	}
	var d *xdisplay.Display
	var err error
	// The display's session bus starts no service but the AT-SPI launcher:
	// the bus runs outside the task's box, and so would a service it started
	// for the task (gnome-terminal's server, running the task's commands).
	o := xdisplay.Options{Width: size.X, Height: size.Y, Accessibility: true, OnlyA11yActivation: true}
	for attempt := 0; attempt < 2; attempt++ {
		if d, err = xdisplay.Start(ctx, o); err == nil || ctx.Err() != nil {
			break
		}
		o.Accessibility, o.OnlyA11yActivation = false, false
		if wait.Sleep(ctx, displayRetry) != nil {
			break
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("display: %w", err)
	}
	return d, func() { _ = d.Close() }, nil
}

// taskDir is the folder relative paths of a task resolve in.
func (h *harness) taskDir(t *Task) string {
	if t.os != nil {
		return t.os.dir
	}
	if h.suite.Format == FormatGAIA && !isFile(h.suite.Path) {
		return h.suite.Path
	}
	return filepath.Dir(h.suite.Path)
}

// printf writes a progress line.
func (h *harness) printf(format string, args ...any) {
	if h.o.Progress == nil {
		return
	}
	h.progressMu.Lock()
	defer h.progressMu.Unlock()
	fmt.Fprintf(h.o.Progress, format, args...)
}

func firstPositive[T int | int64](vs ...T) T {
	for _, v := range vs {
		if v > 0 {
			return v
		}
	}
	return 0
}

// printable makes text from a suite or a run safe for one terminal line: control
// characters (escape sequences, newlines) become spaces.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
