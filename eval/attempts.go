//go:build linux

package eval

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"
)

// SelectFirst and SelectJudge are the ways a task's result is chosen among
// its attempts (runInfo.Select, AttemptSummary.Select).
const (
	SelectFirst = "first" // attempt 1 is the task's result
	SelectJudge = "judge" // the attempt Options.Judge picked is
)

// Judge picks one attempt of a task once all of them finished (`--select
// judge`). It sees what the attempts did (their traces), never their scores.
// An error, or a pick that names no attempt, makes attempt 1 the task's
// result; the error is recorded in the task's Selection. Judges are called
// from several goroutines at once when Options.Parallel > 1, and must return
// soon after ctx is done.
type Judge func(ctx context.Context, j JudgeJob) (Pick, error)

// JudgeJob is one task's attempts, for a Judge.
type JudgeJob struct {
	// TaskID and Instruction are the task's.
	TaskID, Instruction string
	// Attempts are the task's attempts in order (Attempt 1 first).
	Attempts []AttemptRun
	// TraceDir is the folder the judge's prompt and reply go in (created,
	// empty): tasks/<id>/judge/ of the results folder.
	TraceDir string
}

// AttemptRun is what a Judge may know of one attempt.
type AttemptRun struct {
	// Attempt is the attempt's number, from 1.
	Attempt int
	// Trace is the attempt's trace folder (absolute); "" when it left none.
	Trace string
	// Answer is the attempt's final answer; Exit its exit code (0 answered,
	// 1 failed, 3 step limit); Steps the steps it took.
	Answer string
	Exit   int
	Steps  int
	// Error is what went wrong in the attempt's run ("" when nothing did):
	// the runner's error or a timeout, never the checker's verdict.
	Error string
}

// Pick is a Judge's choice.
type Pick struct {
	// Attempt is the attempt picked, from 1.
	Attempt int
	// Reason is the judge's own explanation, as it gave it.
	Reason string
	// Trace is the folder holding the judge's prompt and reply.
	Trace string
}

// Selection records which attempt is a task's result under --select judge:
// one line of selections.jsonl.
type Selection struct {
	// ID is the task's id.
	ID string `json:"id"`
	// Attempt is the attempt chosen, from 1.
	Attempt int `json:"attempt"`
	// By is "judge" when the judge picked it, "fallback" when the judge
	// failed (Error says how) and attempt 1 was taken.
	By string `json:"by"`
	// Reason is the judge's explanation of its pick.
	Reason string `json:"reason,omitempty"`
	// Error says why the judge's answer could not be used.
	Error string `json:"error,omitempty"`
	// Trace is the judge's trace folder, relative to the results folder.
	Trace string `json:"trace,omitempty"`
}

// AttemptSummary is the part of a Summary about attempts (Options.Attempts
// above 1). Rates are scores in [0, 1] averaged over tasks; a fractional
// score counts as its fraction, a task that reached no verdict as 0.
type AttemptSummary struct {
	// K is the number of attempts per task.
	K int `json:"k"`
	// Select is how a task's result is chosen: SelectFirst or SelectJudge.
	Select string `json:"select"`
	// Overall is over every task whose K attempts finished; Domains the same
	// per domain of OSWorld's tree.
	Overall *AttemptStats            `json:"overall"`
	Domains map[string]*AttemptStats `json:"domains,omitempty"`
	// Tasks are the per-task figures, in the suite's order.
	Tasks []TaskAttempts `json:"tasks"`
	// Results are every attempt's result, in the suite's order, then by attempt.
	Results []Result `json:"results"`
}

// AttemptStats are the attempt figures of a set of tasks.
type AttemptStats struct {
	// Tasks counts the tasks whose K attempts all finished: the figures are
	// over these.
	Tasks int `json:"tasks"`
	// PassAt1 is the mean score of attempt 1.
	PassAt1 float64 `json:"pass_at_1"`
	// PassAtK is the mean of each task's best score over its attempts (for
	// scores of 0 and 1: the share of tasks some attempt passed).
	PassAtK float64 `json:"pass_at_k"`
	// Mean is the mean score over all attempts of all tasks.
	Mean float64 `json:"mean"`
	// Min and Max are the lowest and highest success rate of one attempt
	// index (the rate of every task's attempt 1, of every attempt 2, ...);
	// Stddev is the population standard deviation of those K rates.
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Stddev float64 `json:"stddev"`
	// BBoN is bBoN@k, the mean score of the attempts selected; present with
	// SelectJudge, over the tasks a selection was made for.
	BBoN *float64 `json:"bbon_at_k,omitempty"`
	// Selected counts the tasks with a selection.
	Selected int `json:"selected,omitempty"`
}

// TaskAttempts are one task's attempt figures.
type TaskAttempts struct {
	ID     string `json:"id"`
	Domain string `json:"domain,omitempty"`
	// Finished counts the attempts with a result.
	Finished int `json:"finished"`
	// Scores are the attempts' scores by attempt number (null for one not
	// finished).
	Scores []*float64 `json:"scores"`
	// PassAt1 is attempt 1's score; PassAtK the best; Mean the mean; Min and
	// Max the spread, over the finished attempts.
	PassAt1 float64 `json:"pass_at_1"`
	PassAtK float64 `json:"pass_at_k"`
	Mean    float64 `json:"mean"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	// Selection is the judge's pick, with SelectJudge once made; BBoN its score.
	Selection *Selection `json:"selection,omitempty"`
	BBoN      *float64   `json:"bbon_at_k,omitempty"`
}

// scoreOf is a result's score for attempt figures: 0 without a verdict.
func scoreOf(r Result) float64 {
	if r.Status != "" {
		return 0
	}
	return r.Score
}

// attemptStats folds tasks' attempts into a summary. results holds each
// task's attempts by number (index 0 is attempt 1); sel its selection.
func attemptStats(k int, mode string, ids []string, results map[resultKey]Result, sel map[string]Selection) *AttemptSummary {
	a := &AttemptSummary{K: k, Select: mode, Tasks: []TaskAttempts{}, Results: []Result{}}
	type acc struct {
		tasks, selected    int
		p1, pk, mean, bbon float64
		perIndex           []float64
	}
	all := &acc{perIndex: make([]float64, k)}
	per := map[string]*acc{}
	for _, id := range ids {
		ta := TaskAttempts{ID: id, Scores: make([]*float64, k)}
		var scores []float64
		for n := 1; n <= k; n++ {
			r, ok := results[resultKey{id, n}]
			if !ok {
				continue
			}
			a.Results = append(a.Results, r)
			ta.Domain = r.Domain
			s := scoreOf(r)
			ta.Scores[n-1] = &s
			scores = append(scores, s)
		}
		ta.Finished = len(scores)
		if ta.Finished == 0 {
			continue
		}
		if s := ta.Scores[0]; s != nil {
			ta.PassAt1 = *s
		}
		ta.Min, ta.Max = scores[0], scores[0]
		for _, s := range scores {
			ta.Mean += s
			ta.Min, ta.Max = math.Min(ta.Min, s), math.Max(ta.Max, s)
		}
		ta.Mean = round4(ta.Mean / float64(len(scores)))
		ta.PassAtK = ta.Max
		if s, ok := sel[id]; ok && mode == SelectJudge {
			s := s
			ta.Selection = &s
			if s.Attempt >= 1 && s.Attempt <= k && ta.Scores[s.Attempt-1] != nil {
				v := *ta.Scores[s.Attempt-1]
				ta.BBoN = &v
			}
		}
		a.Tasks = append(a.Tasks, ta)
		if ta.Finished < k {
			continue
		}
		targets := []*acc{all}
		if ta.Domain != "" {
			if per[ta.Domain] == nil {
				per[ta.Domain] = &acc{perIndex: make([]float64, k)}
			}
			targets = append(targets, per[ta.Domain])
		}
		for _, c := range targets {
			c.tasks++
			c.p1 += ta.PassAt1
			c.pk += ta.PassAtK
			c.mean += ta.Mean
			for i, s := range ta.Scores {
				c.perIndex[i] += *s
			}
			if ta.BBoN != nil {
				c.selected++
				c.bbon += *ta.BBoN
			}
		}
	}
	fold := func(c *acc) *AttemptStats {
		st := &AttemptStats{Tasks: c.tasks, Selected: c.selected}
		if c.tasks > 0 {
			n := float64(c.tasks)
			st.PassAt1, st.PassAtK, st.Mean = round4(c.p1/n), round4(c.pk/n), round4(c.mean/n)
			rates := make([]float64, k)
			var sum float64
			for i, v := range c.perIndex {
				rates[i] = v / n
				sum += rates[i]
			}
			mu := sum / float64(k)
			var ss float64
			st.Min, st.Max = rates[0], rates[0]
			for _, r := range rates {
				st.Min, st.Max = math.Min(st.Min, r), math.Max(st.Max, r)
				ss += (r - mu) * (r - mu)
			}
			st.Min, st.Max, st.Stddev = round4(st.Min), round4(st.Max), round4(math.Sqrt(ss/float64(k)))
		}
		if mode == SelectJudge {
			b := 0.0
			if c.selected > 0 {
				b = round4(c.bbon / float64(c.selected))
			}
			st.BBoN = &b
		}
		return st
	}
	a.Overall = fold(all)
	for name, c := range per {
		if a.Domains == nil {
			a.Domains = map[string]*AttemptStats{}
		}
		a.Domains[name] = fold(c)
	}
	return a
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// DomainNames returns the domains of the attempt figures, sorted.
func (a *AttemptSummary) DomainNames() []string {
	out := make([]string, 0, len(a.Domains))
	for d := range a.Domains {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// Line is the attempt figures in one line for the terminal, e.g.
// "pass@1 25.0%, pass@4 75.0%, mean 43.8% (attempts 25.0–62.5%, sd 14.4%), bBoN@4 75.0%".
func (st *AttemptStats) Line(k int) string {
	pc := func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }
	s := fmt.Sprintf("pass@1 %s, pass@%d %s, mean %s (attempts %s–%s, sd %s)",
		pc(st.PassAt1), k, pc(st.PassAtK), pc(st.Mean), pc(st.Min), pc(st.Max), pc(st.Stddev))
	if st.BBoN != nil {
		s += fmt.Sprintf(", bBoN@%d %s", k, pc(*st.BBoN))
	}
	return s
}

// resultKey names one attempt of one task; Attempt is from 1 (a result
// written without attempts is attempt 1).
type resultKey struct {
	ID      string
	Attempt int
}

func keyOf(r Result) resultKey { return resultKey{r.ID, max(r.Attempt, 1)} }

// judgeTimeout bounds one judge call.
const judgeTimeout = 10 * time.Minute

// selectAttempt makes task t's selection once all its attempts are recorded,
// with SelectJudge; it does nothing otherwise, or when another worker
// already does it. A selection that cannot be written stops the evaluation.
func (h *harness) selectAttempt(ctx context.Context, t *Task) {
	if h.o.Judge == nil || h.out.info.k() < 2 || ctx.Err() != nil {
		return
	}
	results, all := h.out.attempts(t.ID)
	if !all {
		return
	}
	h.judgeMu.Lock()
	if _, done := h.out.selected(t.ID); done || h.judging[t.ID] {
		h.judgeMu.Unlock()
		return
	}
	if h.judging == nil {
		h.judging = map[string]bool{}
	}
	h.judging[t.ID] = true
	h.judgeMu.Unlock()
	sel := h.judge(ctx, t, results)
	if ctx.Err() != nil {
		h.judgeMu.Lock()
		delete(h.judging, t.ID) // not recorded: --resume asks again
		h.judgeMu.Unlock()
		return
	}
	if err := h.out.addSelection(sel); err != nil {
		h.cancel(err)
		return
	}
	verdict := "fail"
	if r := results[sel.Attempt-1]; r.Correct {
		verdict = "pass"
	} else if r.Score > 0 {
		verdict = fmt.Sprintf("%.2f", r.Score)
	}
	line := fmt.Sprintf("eval: judge %s: attempt %d of %d (%s)", printable(t.ID), sel.Attempt, len(results), verdict)
	if sel.Error != "" {
		line += ": " + cut(printable(sel.Error), 200)
	}
	h.printf("%s\n", line)
}

// judge asks the judge about a task's attempts; on any failure the
// selection falls back to attempt 1 and says why.
func (h *harness) judge(ctx context.Context, t *Task, results []Result) (sel Selection) {
	sel = Selection{ID: t.ID, Attempt: 1, By: "fallback"}
	dir, err := filepath.Abs(filepath.Join(h.o.Out, tasksDir, safeName(t.ID), "judge"))
	if err == nil {
		err = os.RemoveAll(dir)
	}
	if err == nil {
		err = os.MkdirAll(dir, 0o700)
	}
	if err != nil {
		sel.Error = fmt.Sprintf("judge folder: %v", err)
		return sel
	}
	sel.Trace = relTrace(h.o.Out, dir)
	job := JudgeJob{TaskID: t.ID, Instruction: t.Instruction, TraceDir: dir}
	for i, r := range results {
		a := AttemptRun{Attempt: i + 1, Answer: r.Answer, Exit: r.Exit, Steps: r.Steps, Error: r.Error}
		if r.Trace != "" {
			a.Trace = r.Trace
			if !filepath.IsAbs(a.Trace) {
				a.Trace = filepath.Join(h.o.Out, filepath.FromSlash(r.Trace))
			}
			if abs, err := filepath.Abs(a.Trace); err == nil {
				a.Trace = abs
			}
		}
		job.Attempts = append(job.Attempts, a)
	}
	traced := slices.ContainsFunc(job.Attempts, func(a AttemptRun) bool { return a.Trace != "" })
	if !traced { // a task that could not run: nothing to judge, no model call
		sel.Error = "no attempt left a trace to judge"
		return sel
	}
	jctx, cancel := context.WithTimeout(ctx, judgeTimeout)
	defer cancel()
	pick, err := func() (p Pick, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("the judge panicked: %v", r)
			}
		}()
		return h.o.Judge(jctx, job)
	}()
	if pick.Trace != "" {
		sel.Trace = relTrace(h.o.Out, pick.Trace)
	}
	switch {
	case err != nil:
		sel.Error = "judge: " + err.Error()
	case pick.Attempt < 1 || pick.Attempt > len(results):
		sel.Error = fmt.Sprintf("judge: it picked attempt %d, not one of 1 to %d", pick.Attempt, len(results))
	default:
		sel.Attempt, sel.By, sel.Reason = pick.Attempt, SelectJudge, cut(pick.Reason, 2000)
	}
	return sel
}
