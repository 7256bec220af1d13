package dataset

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"deskpilot/agent/trace"
)

// Source is one run to put in a dataset: a trace folder and, for a run of
// an evaluation, its task and score.
type Source struct {
	Trace       string   // the trace folder
	TaskID      string   // the eval task's id; "" outside an evaluation
	Instruction string   // the task's instruction from the suite, when the trace has none
	Domain      string   // the task's domain: its folder in the suite (OSWorld's examples/<domain>/), or the suite's name
	Suite       string   // the suite's name
	Licence     string   // the task's licence: its "license" field, else the suite's LICENSE file's first line; "" when unknown
	Score       *float64 // the evaluator's score; nil outside an evaluation
}

// Files of an eval results folder (package eval's layout: eval/results.go).
const (
	evalRunFile     = "run.json"
	evalResultsFile = "results.jsonl"
)

// maxResultsLine bounds one line of a results.jsonl.
const maxResultsLine = 16 << 20

// Sources expands the command line's RUNS: trace folders (holding
// trace.jsonl), eval results folders (holding run.json and results.jsonl:
// each task's trace and score), folders holding either (a trace root, a
// folder of evaluations) one level down, and shell globs of any of them. A
// trace named twice (by a folder and by a results folder) is kept once,
// with what the results say of it.
func Sources(args []string) ([]Source, error) {
	var out []Source
	index := map[string]int{}
	add := func(s Source) {
		key := s.Trace
		if abs, err := filepath.Abs(s.Trace); err == nil {
			key = abs
		}
		if i, ok := index[key]; ok {
			if s.Score != nil || out[i].Score == nil {
				out[i] = s
			}
			return
		}
		index[key] = len(out)
		out = append(out, s)
	}
	for _, a := range args {
		paths, err := filepath.Glob(a)
		if err != nil {
			return nil, fmt.Errorf("dataset: %s: %w", a, err)
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("dataset: %s: no such trace or results folder", a)
		}
		for _, p := range paths {
			found, err := expand(p, 1)
			if err != nil {
				return nil, err
			}
			if len(found) == 0 {
				return nil, fmt.Errorf("dataset: %s holds no trace (trace.jsonl) and no eval results (results.jsonl)", p)
			}
			for _, s := range found {
				add(s)
			}
		}
	}
	return out, nil
}

// expand reads one path: a trace folder, a results folder, or (depth > 0)
// a folder of them.
func expand(p string, depth int) ([]Source, error) {
	if isFile(filepath.Join(p, trace.EventsFile)) {
		return []Source{{Trace: p}}, nil
	}
	if isFile(filepath.Join(p, evalResultsFile)) {
		return evalSources(p)
	}
	if depth == 0 {
		return nil, nil
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	var out []Source
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		found, err := expand(filepath.Join(p, e.Name()), depth-1)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// evalRun is what a dataset reads of an eval results folder's run.json.
type evalRun struct {
	Suite     string `json:"suite"`
	SuitePath string `json:"suite_path"`
}

// evalResult is what a dataset reads of a results.jsonl line (the keys
// id, trace and score are package eval's contract). Attempts, when a line
// has them, are the task's attempts, each with its own trace and score.
type evalResult struct {
	ID       string       `json:"id"`
	Trace    string       `json:"trace"`
	Score    *float64     `json:"score"`
	Correct  bool         `json:"correct"`
	Attempts []evalResult `json:"attempts"`
}

// evalSources reads the tasks of a results folder: each finished task's
// trace, score, domain and licence. A task that left no trace is skipped.
func evalSources(dir string) ([]Source, error) {
	var run evalRun
	if data, err := os.ReadFile(filepath.Join(dir, evalRunFile)); err == nil {
		if err := json.Unmarshal(data, &run); err != nil {
			return nil, fmt.Errorf("dataset: %s: %w", filepath.Join(dir, evalRunFile), err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	f, err := os.Open(filepath.Join(dir, evalResultsFile))
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	suite := suiteInfo{path: run.SuitePath, name: run.Suite}
	var out []Source
	last := map[string]int{} // a resumed evaluation may hold a task twice: the last line wins
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, maxResultsLine)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var r evalResult
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.ID == "" {
			continue // a line cut by a crash: eval's resume runs it again
		}
		tries := r.Attempts
		if len(tries) == 0 {
			tries = []evalResult{r}
		}
		for i, a := range tries {
			if a.Trace == "" {
				continue
			}
			p := a.Trace
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			score := a.Score
			if score == nil {
				v := 0.0
				if a.Correct {
					v = 1
				}
				score = &v
			}
			s := Source{Trace: p, TaskID: r.ID, Suite: run.Suite, Score: score}
			s.Domain, s.Licence, s.Instruction = suite.task(r.ID)
			key := fmt.Sprintf("%s\x00%d", r.ID, i)
			if j, ok := last[key]; ok {
				out[j] = s
				continue
			}
			last[key] = len(out)
			out = append(out, s)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", filepath.Join(dir, evalResultsFile), err)
	}
	return out, nil
}

// suiteInfo finds a task's file in its suite folder.
type suiteInfo struct {
	path, name string
	licence    *string // the suite's LICENSE, read once
}

// task returns the domain, licence and instruction of the task id.
func (s *suiteInfo) task(id string) (domain, licence, instruction string) {
	domain = s.name
	if s.path == "" {
		return domain, "", ""
	}
	var file string
	for _, pat := range []string{filepath.Join(s.path, id+".json"), filepath.Join(s.path, "*", id+".json"), filepath.Join(s.path, "examples", "*", id+".json")} {
		if m, _ := filepath.Glob(pat); len(m) > 0 {
			file = m[0]
			break
		}
	}
	if file != "" {
		if d := filepath.Base(filepath.Dir(file)); filepath.Dir(file) != filepath.Clean(s.path) {
			domain = d
		}
		var t struct {
			Licence     string `json:"license"`
			Instruction string `json:"instruction"`
		}
		if data, err := os.ReadFile(file); err == nil && json.Unmarshal(data, &t) == nil {
			licence, instruction = t.Licence, t.Instruction
		}
	}
	if licence == "" {
		licence = s.suiteLicence()
	}
	return domain, licence, instruction
}

func (s *suiteInfo) suiteLicence() string {
	if s.licence == nil {
		v := ""
		for _, n := range []string{"LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING"} {
			data, err := os.ReadFile(filepath.Join(s.path, n))
			if err != nil {
				continue
			}
			lines := slices.DeleteFunc(strings.Split(string(data), "\n"), func(l string) bool { return strings.TrimSpace(l) == "" })
			if len(lines) > 0 {
				v = strings.TrimSpace(lines[0])
			}
			break
		}
		s.licence = &v
	}
	return *s.licence
}
