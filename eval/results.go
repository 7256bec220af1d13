//go:build linux

package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Result is one task's line in results.jsonl and in the summary. The keys id,
// correct, answer, exit, steps, seconds, tokens, trace and error are a contract.
type Result struct {
	// ID is the task's id (GAIA's task_id).
	ID string `json:"id"`
	// Correct reports whether the task passed: the GAIA scorer said so, or the
	// OSWorld evaluator's score is 1.
	Correct bool `json:"correct"`
	// Answer is the run's final answer ("" when none).
	Answer string `json:"answer"`
	// Exit is the run's exit code (0 answered, 1 failed, 3 step limit, 130
	// interrupted); 1 for a task that could not run.
	Exit int `json:"exit"`
	// Steps is the number of steps the run took.
	Steps int `json:"steps"`
	// Seconds is the task's wall time: display, setup, run and check.
	Seconds float64 `json:"seconds"`
	// Tokens is the model's input plus output tokens.
	Tokens int `json:"tokens"`
	// Trace is the run's trace folder, relative to the results folder when inside
	// it; "" when the run left none.
	Trace string `json:"trace"`
	// Error says what went wrong: a task that could not run (unsupported or
	// invalid), a setup or check failure, a timeout, or the runner's error.
	Error string `json:"error"`
	// Score is the OSWorld evaluator's score in [0, 1] (fuzzy_match and averaged
	// metrics give fractions); 1 or 0 for GAIA.
	Score float64 `json:"score"`
	// Expected is GAIA's ground truth; "" for OSWorld.
	Expected string `json:"expected,omitempty"`
	// Check says what the checker saw when the task did not pass.
	Check string `json:"check,omitempty"`
	// Domain is the task's domain in OSWorld's tree ("" elsewhere).
	Domain string `json:"domain,omitempty"`
	// Status is "" for a task that reached a verdict, else why it did not:
	// StatusUnsupported, StatusNotCached, StatusNotInstalled,
	// StatusNeedsNetwork, StatusNeedsCredentials or StatusInvalid.
	// Such tasks are never passes and are counted apart (Stats).
	Status string `json:"status,omitempty"`
	// Attempt is the attempt's number, from 1, in an evaluation of several
	// attempts per task (Options.Attempts); absent otherwise, and a line
	// without it is attempt 1.
	Attempt int `json:"attempt,omitempty"`
}

// Summary is the outcome of an evaluation: what `deskpilot eval --json` prints
// and summary.json holds. The keys suite, model, tasks, passed and results are a
// contract.
type Summary struct {
	// Suite is the suite's name.
	Suite string `json:"suite"`
	// Model is the model evaluated, as Options.Model named it.
	Model string `json:"model"`
	// Tasks is the number of tasks the evaluation covers (its shard's, or after a
	// merge the whole suite's); tasks without a result did not finish.
	Tasks int `json:"tasks"`
	// Passed is the number of correct results.
	Passed int `json:"passed"`
	// Results are the finished tasks' results, in the suite's order.
	Results []Result `json:"results"`
	// Interrupted is true when the evaluation was cancelled before every task
	// finished; --resume goes on with the rest.
	Interrupted bool `json:"interrupted,omitempty"`
	// Overall is the success rate as OSWorld reports it, over the results so
	// far; Domains is the same per domain of OSWorld's tree (none elsewhere).
	Overall *Stats            `json:"overall,omitempty"`
	Domains map[string]*Stats `json:"domains,omitempty"`
	// Attempts are the figures over several attempts per task (pass@1,
	// pass@k, mean, spread, bBoN@k) and every attempt's result; absent with
	// one attempt. Results then hold each task's result: attempt 1, or with
	// SelectJudge the attempt the judge picked.
	Attempts *AttemptSummary `json:"attempts,omitempty"`
}

// Files of a results folder.
const (
	runFile     = "run.json"
	resultsFile = "results.jsonl"
	selectFile  = "selections.jsonl"
	summaryFile = "summary.json"
	indexFile   = "index.html"
	tasksDir    = "tasks"
)

// runInfo is run.json: what a results folder holds results of.
type runInfo struct {
	Version    int      `json:"version"`
	Suite      string   `json:"suite"`
	SuitePath  string   `json:"suite_path"`
	Model      string   `json:"model"`
	Shard      string   `json:"shard,omitempty"`
	Tasks      int      `json:"tasks"`       // in this shard
	SuiteTasks int      `json:"suite_tasks"` // in the whole suite
	IDs        []string `json:"ids"`         // this shard's tasks, in order
	// Domains counts this shard's tasks per domain of OSWorld's tree.
	Domains    map[string]int `json:"domains,omitempty"`
	MergedFrom []string       `json:"merged_from,omitempty"`
	// Attempts is the number of attempts per task (absent: 1); Select how a
	// task's result is chosen among them (absent: SelectFirst).
	Attempts int    `json:"attempts,omitempty"`
	Select   string `json:"select,omitempty"`
}

// k is the number of attempts per task.
func (r runInfo) k() int { return max(r.Attempts, 1) }

// mode is how a task's result is chosen.
func (r runInfo) mode() string {
	if r.Select == "" {
		return SelectFirst
	}
	return r.Select
}

// sameRun reports why a results folder cannot take results of r, if it cannot.
func (r runInfo) sameRun(o runInfo) error {
	switch {
	case r.Suite != o.Suite || r.SuiteTasks != o.SuiteTasks:
		return fmt.Errorf("it holds suite %q (%d tasks), not %q (%d tasks)", r.Suite, r.SuiteTasks, o.Suite, o.SuiteTasks)
	case r.Model != o.Model:
		return fmt.Errorf("it holds results of model %q, not %q", r.Model, o.Model)
	case r.Shard != o.Shard:
		return fmt.Errorf("it holds shard %q, not %q", r.Shard, o.Shard)
	case r.k() != o.k() || r.mode() != o.mode():
		return fmt.Errorf("it holds %d attempts per task selected by %s, not %d by %s", r.k(), r.mode(), o.k(), o.mode())
	}
	return nil
}

// outDir is an open results folder: results.jsonl is appended to as tasks finish.
type outDir struct {
	dir  string
	info runInfo

	mu      sync.Mutex
	f       *os.File
	sf      *os.File // selections.jsonl, opened when first written
	results map[resultKey]Result
	sel     map[string]Selection
}

// openOut prepares the results folder for info: a new folder, or with resume the
// same evaluation's folder, whose finished results it reads. A results.jsonl cut
// inside its last line (a crash while writing) loses only that line, which
// resume then runs again.
func openOut(dir string, resume bool, info runInfo) (*outDir, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("eval: results folder: %w", err)
	}
	o := &outDir{dir: dir, info: info, results: map[resultKey]Result{}, sel: map[string]Selection{}}
	var prev runInfo
	switch data, err := os.ReadFile(filepath.Join(dir, runFile)); {
	case errors.Is(err, fs.ErrNotExist):
		if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
			return nil, fmt.Errorf("eval: results folder %s is not empty (and holds no evaluation to resume)", dir)
		}
		// Results hold what tasks' commands printed: only the user may read them.
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, fmt.Errorf("eval: results folder: %w", err)
		}
	case err != nil:
		return nil, fmt.Errorf("eval: %w", err)
	case !resume:
		return nil, fmt.Errorf("eval: %s already holds an evaluation; resume it or pick another folder", dir)
	default:
		if err := json.Unmarshal(data, &prev); err != nil {
			return nil, fmt.Errorf("eval: %s: %w", filepath.Join(dir, runFile), err)
		}
		if err := prev.sameRun(info); err != nil {
			return nil, fmt.Errorf("eval: cannot resume %s: %w", dir, err)
		}
	}
	if err := writeJSON(filepath.Join(dir, runFile), info); err != nil {
		return nil, err
	}
	results, err := readResults(filepath.Join(dir, resultsFile), true)
	if err != nil {
		return nil, err
	}
	for _, r := range results {
		o.results[keyOf(r)] = r
	}
	sels, err := readSelections(filepath.Join(dir, selectFile), true)
	if err != nil {
		return nil, err
	}
	for _, s := range sels {
		o.sel[s.ID] = s
	}
	if o.f, err = os.OpenFile(filepath.Join(dir, resultsFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	return o, nil
}

// readResults reads a results.jsonl. A last line without its newline (cut by a
// crash while it was written) is an unfinished record: it is skipped, and with
// repair also removed from the file, so that lines appended next start clean.
// Any other malformed line is an error.
func readResults(path string, repair bool) ([]Result, error) {
	return readLines(path, repair, func(r Result) bool { return r.ID != "" }, "a result")
}

// readSelections reads a selections.jsonl as readResults reads results.
func readSelections(path string, repair bool) ([]Selection, error) {
	return readLines(path, repair, func(s Selection) bool { return s.ID != "" && s.Attempt >= 1 }, "a selection")
}

// readLines reads a JSON Lines file of T as readResults describes; valid
// says whether a decoded line is one.
func readLines[T any](path string, repair bool, valid func(T) bool, what string) ([]T, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	if n := bytes.LastIndexByte(data, '\n') + 1; n < len(data) {
		if repair {
			if err := os.Truncate(path, int64(n)); err != nil {
				return nil, fmt.Errorf("eval: %w", err)
			}
		}
		data = data[:n]
	}
	var out []T
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r T
		if err := json.Unmarshal(line, &r); err != nil || !valid(r) {
			return nil, fmt.Errorf("eval: %s:%d: not %s line", path, i+1, what)
		}
		out = append(out, r)
	}
	return out, nil
}

// done returns the result recorded for attempt n (from 1) of task id, if any.
func (o *outDir) done(id string, n int) (Result, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	r, ok := o.results[resultKey{id, n}]
	return r, ok
}

// attempts returns the results of task id's K attempts, and whether all
// are recorded.
func (o *outDir) attempts(id string) ([]Result, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []Result
	for n := 1; n <= o.info.k(); n++ {
		r, ok := o.results[resultKey{id, n}]
		if !ok {
			return out, false
		}
		out = append(out, r)
	}
	return out, true
}

// selected returns the selection recorded for task id, if any.
func (o *outDir) selected(id string) (Selection, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s, ok := o.sel[id]
	return s, ok
}

// addSelection appends s to selections.jsonl (one write, then fsync).
func (o *outDir) addSelection(s Selection) error {
	line, err := json.Marshal(s)
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.sf == nil {
		if o.sf, err = os.OpenFile(filepath.Join(o.dir, selectFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err != nil {
			return fmt.Errorf("eval: %w", err)
		}
	}
	if _, err := o.sf.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("eval: write %s: %w", selectFile, err)
	}
	if err := o.sf.Sync(); err != nil {
		return fmt.Errorf("eval: sync %s: %w", selectFile, err)
	}
	o.sel[s.ID] = s
	return nil
}

// add appends r to results.jsonl (one write, then fsync) and returns the counts
// of finished and passed tasks.
func (o *outDir) add(r Result) (finished, passed int, err error) {
	line, err := json.Marshal(r)
	if err != nil {
		return 0, 0, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := o.f.Write(append(line, '\n')); err != nil {
		return 0, 0, fmt.Errorf("eval: write %s: %w", resultsFile, err)
	}
	if err := o.f.Sync(); err != nil {
		return 0, 0, fmt.Errorf("eval: sync %s: %w", resultsFile, err)
	}
	o.results[keyOf(r)] = r
	for _, r := range o.results {
		if r.Correct {
			passed++
		}
	}
	return len(o.results), passed, nil
}

// summary returns the summary of the results so far, in the shard's order.
func (o *outDir) summary() Summary {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := Summary{Suite: o.info.Suite, Model: o.info.Model, Tasks: o.info.Tasks, Results: []Result{}}
	for _, id := range o.info.IDs {
		if r, ok := o.taskResult(id); ok {
			s.Results = append(s.Results, r)
			if r.Correct {
				s.Passed++
			}
		}
	}
	s.Overall, s.Domains = stats(s.Results, o.info.Tasks, o.info.Domains)
	if k := o.info.k(); k > 1 {
		s.Attempts = attemptStats(k, o.info.mode(), o.info.IDs, o.results, o.sel)
	}
	return s
}

// taskResult is task id's result: its attempt 1, or with SelectJudge the
// attempt selected (none before the selection is made). o.mu is held.
func (o *outDir) taskResult(id string) (Result, bool) {
	n := 1
	if o.info.mode() == SelectJudge && o.info.k() > 1 {
		sel, ok := o.sel[id]
		if !ok {
			return Result{}, false
		}
		n = sel.Attempt
	}
	r, ok := o.results[resultKey{id, n}]
	return r, ok
}

// finish writes summary.json and index.html and closes results.jsonl.
func (o *outDir) finish(s Summary) error {
	errs := []error{writeJSON(filepath.Join(o.dir, summaryFile), s), writeHTML(filepath.Join(o.dir, indexFile), s)}
	o.mu.Lock()
	for _, f := range []**os.File{&o.f, &o.sf} {
		if *f != nil {
			errs = append(errs, (*f).Close())
			*f = nil
		}
	}
	o.mu.Unlock()
	return errors.Join(errs...)
}

// writeJSON writes v indented to path, through a temporary file and a rename.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}

// writeAtomic writes path through a temporary file in the same folder.
func writeAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("eval: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("eval: write %s: %w", path, err)
	}
	if err := os.Chmod(f.Name(), 0o600); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	return nil
}

// relTrace makes a trace folder relative to the results folder when it is inside.
func relTrace(out, trace string) string {
	if trace == "" || !filepath.IsAbs(trace) {
		return trace
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return trace
	}
	if rel, err := filepath.Rel(absOut, trace); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return trace
}
