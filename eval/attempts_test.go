//go:build linux

package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// attemptAnswers answers task ti's attempt n right when right(i, n) holds,
// and records each job.
type attemptAnswers struct {
	right func(task string, n int) bool

	mu   sync.Mutex
	jobs []Job
}

func (a *attemptAnswers) run(ctx context.Context, j Job) (Outcome, error) {
	a.mu.Lock()
	a.jobs = append(a.jobs, j)
	a.mu.Unlock()
	ans := "wrong"
	if a.right(j.TaskID, j.Attempt) {
		ans = "answer-" + strings.TrimPrefix(j.TaskID, "t")
	}
	return Outcome{Answer: ans, Outcome: "answered", Steps: j.Attempt, Tokens: 10, Trace: j.TraceDir}, nil
}

// lastRight is a judge that picks the last attempt whose answer is not
// "wrong", or attempt 1; it counts its calls.
type lastRight struct {
	calls atomic.Int32
	jobs  sync.Map // task id -> JudgeJob
}

func (l *lastRight) judge(ctx context.Context, j JudgeJob) (Pick, error) {
	l.calls.Add(1)
	l.jobs.Store(j.TaskID, j)
	pick := Pick{Attempt: 1, Reason: "none is right"}
	for _, a := range j.Attempts {
		if a.Answer != "wrong" {
			pick = Pick{Attempt: a.Attempt, Reason: fmt.Sprintf("attempt %d answered", a.Attempt)}
		}
	}
	return pick, os.WriteFile(filepath.Join(j.TraceDir, "seen.txt"), []byte("judged"), 0o600)
}

// TestAttemptsWithJudge runs 3 attempts of each of 2 tasks, 3 at a time:
// each attempt has a display and home of its own, results.jsonl keeps all
// six, the judge sees every attempt of a task once, and the figures are
// exact.
func TestAttemptsWithJudge(t *testing.T) {
	suite := answerSuite(t, 2)
	out := t.TempDir()
	// t0: attempts 1 and 3 right; t1: attempt 2.
	r := &attemptAnswers{right: func(id string, n int) bool { return (id == "t0") == (n%2 == 1) }}
	j := &lastRight{}
	var progress strings.Builder
	sum, err := Run(t.Context(), Options{Suite: suite, Out: out, Model: "m", Parallel: 3, Attempts: 3, Judge: j.judge,
		Screen: image1280(), Progress: &syncWriter{w: &progress}}, r.run)
	if err != nil {
		t.Fatal(err)
	}
	homes, displays := map[string]bool{}, map[string]bool{}
	for _, job := range r.jobs {
		homes[job.Home] = true
		displays[job.Display.Name] = true
		if want := filepath.Join(out, "tasks", job.TaskID, fmt.Sprintf("attempt-%d", job.Attempt), "home"); job.Home != want {
			t.Errorf("%s#%d: home %s, want %s", job.TaskID, job.Attempt, job.Home, want)
		}
	}
	if len(r.jobs) != 6 || len(homes) != 6 {
		t.Errorf("%d jobs, %d homes; want 6 of each", len(r.jobs), len(homes))
	}
	if len(displays) < 2 {
		t.Errorf("displays %v: attempts did not get displays of their own", displays)
	}
	if n := j.calls.Load(); n != 2 {
		t.Errorf("judge called %d times, want once per task", n)
	}
	if v, ok := j.jobs.Load("t1"); !ok || len(v.(JudgeJob).Attempts) != 3 || v.(JudgeJob).Instruction != "say answer-1" {
		t.Errorf("judge job of t1: %+v", v)
	}
	lines := readJSONL(t, out)
	if len(lines) != 6 {
		t.Fatalf("results.jsonl: %d lines, want 6", len(lines))
	}
	for _, l := range lines {
		if l.Attempt < 1 || l.Attempt > 3 {
			t.Errorf("result line without its attempt: %+v", l)
		}
	}
	if len(sum.Results) != 2 || sum.Results[0].Attempt != 3 || sum.Results[1].Attempt != 2 || sum.Passed != 2 {
		t.Errorf("task results %+v; want t0#3 and t1#2, both passed", sum.Results)
	}
	a := sum.Attempts
	if a == nil || a.K != 3 || a.Select != SelectJudge || len(a.Results) != 6 || len(a.Tasks) != 2 {
		t.Fatalf("attempts %+v", a)
	}
	o := a.Overall
	if o.Tasks != 2 || o.PassAt1 != 0.5 || o.PassAtK != 1 || o.Mean != 0.5 || o.Min != 0.5 || o.Max != 0.5 || o.Stddev != 0 || *o.BBoN != 1 || o.Selected != 2 {
		t.Errorf("overall %+v", o)
	}
	t0 := a.Tasks[0]
	if t0.PassAt1 != 1 || t0.PassAtK != 1 || t0.Mean != 0.6667 || t0.Min != 0 || t0.Max != 1 || t0.Selection.Attempt != 3 || t0.Selection.Reason != "attempt 3 answered" {
		t.Errorf("t0 %+v", t0)
	}
	if s := t0.Selection; s.Trace != "tasks/t0/judge" {
		t.Errorf("judge trace %q", s.Trace)
	} else if _, err := os.Stat(filepath.Join(out, s.Trace, "seen.txt")); err != nil {
		t.Error(err)
	}
	if got := readSummary(t, out); got.Attempts == nil || *got.Attempts.Overall.BBoN != 1 {
		t.Errorf("summary.json lacks the attempt figures")
	}
	for _, want := range []string{"2 tasks, 3 attempts each (judge selects)", "[6/6]", "t0#3", "eval: judge t0: attempt 3 of 3 (pass)"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, progress.String())
		}
	}
	waitNoXvfb(t)
}

// TestAttemptsResume: an evaluation of attempts stopped part way resumes
// with the attempts not recorded, and the judge then judges each task
// once; a resume with another number of attempts is refused.
func TestAttemptsResume(t *testing.T) {
	suite := answerSuite(t, 2)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var started atomic.Int32
	all := &attemptAnswers{right: func(string, int) bool { return true }}
	stopping := func(ctx context.Context, j Job) (Outcome, error) {
		if started.Add(1) > 3 {
			cancel()
			<-ctx.Done()
			return Outcome{Outcome: "cancelled", Exit: 130}, ctx.Err()
		}
		return all.run(ctx, j)
	}
	j := &lastRight{}
	sum, err := Run(ctx, Options{Suite: suite, Out: out, Model: "m", Attempts: 2, Judge: j.judge, Screen: image1280()}, stopping)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want cancelled", err)
	}
	// t0's two attempts and t1#1 finished: t0 is judged, t1 is not finished.
	if len(sum.Results) != 1 || sum.Results[0].ID != "t0" || j.calls.Load() != 1 || len(sum.Attempts.Results) != 3 {
		t.Fatalf("partial: results %+v, judge calls %d", sum.Results, j.calls.Load())
	}
	var startErr *StartError
	if _, err := Run(t.Context(), Options{Suite: suite, Out: out, Model: "m", Attempts: 3, Judge: j.judge, Resume: true}, all.run); !errors.As(err, &startErr) || !strings.Contains(err.Error(), "attempts") {
		t.Errorf("resume with 3 attempts: %v, want a StartError about attempts", err)
	}
	all.jobs = nil
	sum, err = Run(t.Context(), Options{Suite: suite, Out: out, Model: "m", Attempts: 2, Judge: j.judge, Resume: true, Screen: image1280()}, all.run)
	if err != nil {
		t.Fatal(err)
	}
	var ran []string
	for _, job := range all.jobs {
		ran = append(ran, fmt.Sprintf("%s#%d", job.TaskID, job.Attempt))
	}
	if slices.Sort(ran); strings.Join(ran, " ") != "t1#2" {
		t.Errorf("resume ran %v, want t1#2", ran)
	}
	if j.calls.Load() != 2 || len(sum.Results) != 2 || sum.Results[1].Attempt != 2 || sum.Attempts.Overall.Tasks != 2 {
		t.Errorf("after resume: judge calls %d, results %+v", j.calls.Load(), sum.Results)
	}
	waitNoXvfb(t)
}

// TestAttemptsFirstAndMerge: without a judge, attempt 1 is each task's
// result; shards of attempts merge into one folder with every attempt.
func TestAttemptsFirstAndMerge(t *testing.T) {
	suite := answerSuite(t, 3)
	root := t.TempDir()
	r := &attemptAnswers{right: func(id string, n int) bool { return n == 2 }}
	var dirs []string
	for i := range 2 {
		dir := filepath.Join(root, fmt.Sprintf("shard-%d", i))
		dirs = append(dirs, dir)
		if _, err := Run(t.Context(), Options{Suite: suite, Out: dir, Model: "m", Attempts: 2, Parallel: 2, Shard: Shard{i, 2}, Screen: image1280()}, r.run); err != nil {
			t.Fatal(err)
		}
	}
	merged := filepath.Join(root, "merged")
	sum, err := Merge(merged, dirs...)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Tasks != 3 || len(sum.Results) != 3 || sum.Passed != 0 {
		t.Errorf("merged: %d tasks, %d results, %d passed; want 3, 3 and 0 (attempt 1 is wrong)", sum.Tasks, len(sum.Results), sum.Passed)
	}
	a := sum.Attempts
	if a == nil || a.Select != SelectFirst || len(a.Results) != 6 || a.Overall.Tasks != 3 ||
		a.Overall.PassAt1 != 0 || a.Overall.PassAtK != 1 || a.Overall.Mean != 0.5 || a.Overall.Min != 0 || a.Overall.Max != 1 || a.Overall.BBoN != nil {
		t.Fatalf("merged attempts %+v", a)
	}
	var order []string
	for _, r := range a.Results {
		order = append(order, fmt.Sprintf("%s#%d", r.ID, r.Attempt))
	}
	if got := strings.Join(order, " "); got != "t0#1 t0#2 t1#1 t1#2 t2#1 t2#2" {
		t.Errorf("merged attempts in order %s", got)
	}
	if len(readJSONL(t, merged)) != 6 {
		t.Errorf("merged results.jsonl lacks attempts")
	}
	other := filepath.Join(root, "one-attempt")
	if _, err := Run(t.Context(), Options{Suite: suite, Out: other, Model: "m", Shard: Shard{1, 2}, Screen: image1280()}, r.run); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(filepath.Join(root, "mixed"), dirs[0], other); err == nil || !strings.Contains(err.Error(), "attempts") {
		t.Errorf("merging 2 attempts with 1: %v", err)
	}
	waitNoXvfb(t)
}

// TestAttemptStatsFractions: fractional scores count as their fraction, a
// task without a verdict as 0, and unfinished tasks only per task.
func TestAttemptStatsFractions(t *testing.T) {
	res := map[resultKey]Result{}
	put := func(id, domain string, n int, score float64, status string) {
		res[resultKey{id, n}] = Result{ID: id, Domain: domain, Attempt: n, Score: score, Correct: score == 1, Status: status}
	}
	put("a", "calc", 1, 0.5, "")
	put("a", "calc", 2, 1, "")
	put("b", "calc", 1, 0.25, "")
	put("b", "calc", 2, 0, "")
	put("c", "os", 1, 1, StatusNotCached) // never a pass
	put("c", "os", 2, 0, StatusNotCached)
	put("d", "os", 1, 1, "") // attempt 2 did not finish
	sel := map[string]Selection{"a": {ID: "a", Attempt: 1, By: SelectJudge}, "b": {ID: "b", Attempt: 1, By: "fallback"},
		"d": {ID: "d", Attempt: 9, By: SelectJudge}} // a selections.jsonl edited by hand: no attempt 9

	a := attemptStats(2, SelectJudge, []string{"a", "b", "c", "d"}, res, sel)
	o := a.Overall
	// Complete tasks a, b, c: attempt 1 rates 0.5, 0.25, 0; attempt 2: 1, 0, 0.
	if o.Tasks != 3 || o.PassAt1 != 0.25 || o.PassAtK != 0.4167 || o.Mean != 0.2917 || o.Min != 0.25 || o.Max != 0.3333 ||
		o.Stddev != 0.0417 || *o.BBoN != 0.375 || o.Selected != 2 {
		t.Errorf("overall %+v bBoN %v", o, *o.BBoN)
	}
	if c := a.Domains["calc"]; c.Tasks != 2 || c.PassAt1 != 0.375 || c.PassAtK != 0.625 || *c.BBoN != 0.375 {
		t.Errorf("calc %+v", c)
	}
	if d := a.Domains["os"]; d.Tasks != 1 || d.PassAt1 != 0 || *d.BBoN != 0 || d.Selected != 0 {
		t.Errorf("os %+v", d)
	}
	if len(a.Tasks) != 4 || a.Tasks[3].Finished != 1 || a.Tasks[3].Scores[1] != nil || a.Tasks[3].PassAt1 != 1 {
		t.Errorf("tasks %+v", a.Tasks)
	}
	if got := o.Line(2); got != "pass@1 25.0%, pass@2 41.7%, mean 29.2% (attempts 25.0%–33.3%, sd 4.2%), bBoN@2 37.5%" {
		t.Errorf("line %q", got)
	}
}

// TestAttemptsNothingToJudge: attempts that left no trace are not sent to
// the judge; attempt 1 is the result, and the selection says why.
func TestAttemptsNothingToJudge(t *testing.T) {
	j := &lastRight{}
	sum, err := Run(t.Context(), Options{Suite: answerSuite(t, 1), Out: t.TempDir(), Attempts: 2, Judge: j.judge, Screen: image1280()}, idleRunner)
	if err != nil {
		t.Fatal(err)
	}
	if j.calls.Load() != 0 {
		t.Errorf("the judge was asked about attempts without traces")
	}
	if sel := sum.Attempts.Tasks[0].Selection; sel == nil || sel.Attempt != 1 || sel.By != "fallback" || sel.Error != "no attempt left a trace to judge" {
		t.Errorf("selection %+v", sel)
	}
	waitNoXvfb(t)
}
