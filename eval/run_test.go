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
	"time"

	"deskpilot/vision/xdisplay"
)

// answerSuite writes n OSWorld tasks t0..t(n-1) whose check is the final answer
// "answer-i", each with a setup step that writes a file in the task's home.
func answerSuite(t testing.TB, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		task := fmt.Sprintf(`{"id": "t%d", "instruction": "say answer-%d",
			"config": [{"type": "execute", "parameters": {"command": "echo ready > ~/setup.txt", "shell": true}}],
			"evaluator": {"func": ["exact_match", "exact_match"],
				"result": [{"type": "answer"}, {"type": "vm_command_line", "command": ["cat", "~/setup.txt"]}],
				"expected": [{"type": "rule", "rules": {"expected": "answer-%d"}}, {"type": "rule", "rules": {"expected": "ready\n"}}]}}`, i, i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("t%d.json", i)), []byte(task), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// answering answers every task right, except the ids in wrong.
func answering(wrong ...string) Runner {
	return func(ctx context.Context, j Job) (Outcome, error) {
		if j.Display == nil || j.Home == "" || j.TraceDir == "" {
			return Outcome{}, errors.New("incomplete job")
		}
		n := strings.TrimPrefix(j.TaskID, "t")
		a := "answer-" + n
		if slices.Contains(wrong, j.TaskID) {
			a = "wrong"
		}
		return Outcome{Answer: a, Outcome: "answered", Steps: 2, Tokens: 10}, nil
	}
}

func TestRunAnswers(t *testing.T) {
	suite := answerSuite(t, 4)
	out := t.TempDir()
	var progress strings.Builder
	sum, err := Run(t.Context(), Options{Suite: suite, Out: out, Model: "m", Parallel: 2, Screen: image1280(), Progress: &syncWriter{w: &progress}}, answering("t2"))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Suite != filepath.Base(suite) || sum.Model != "m" || sum.Tasks != 4 || sum.Passed != 3 || len(sum.Results) != 4 {
		t.Fatalf("summary = %+v", sum)
	}
	for i, r := range sum.Results {
		if r.ID != fmt.Sprintf("t%d", i) {
			t.Errorf("results[%d] = %s: not in suite order", i, r.ID)
		}
		if want := r.ID != "t2"; r.Correct != want || r.Steps != 2 || r.Tokens != 10 || r.Exit != 0 {
			t.Errorf("%s: %+v", r.ID, r)
		}
	}
	if r := sum.Results[2]; r.Score != 0.0 || !strings.Contains(r.Check, `got "wrong", expected "answer-2"`) {
		t.Errorf("t2 check = %q (score %g)", r.Check, r.Score)
	}
	if got := readSummary(t, out); got.Passed != 3 || len(got.Results) != 4 {
		t.Errorf("summary.json = %+v", got)
	}
	html, err := os.ReadFile(filepath.Join(out, indexFile))
	if err != nil || !strings.Contains(string(html), "3 / 4 passed") {
		t.Errorf("index.html: %v\n%s", err, html)
	}
	if lines := strings.Count(progress.String(), "\n"); lines != 5 || !strings.Contains(progress.String(), "fail t2") {
		t.Errorf("progress (%d lines):\n%s", lines, progress.String())
	}
	waitNoXvfb(t)
}

// syncWriter serialises writes for the race detector's sake.
type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// TestCancelAndResume stops an evaluation in the middle (as Ctrl+C does), checks
// what it left, then resumes it: only the unfinished tasks run again.
func TestCancelAndResume(t *testing.T) {
	suite := answerSuite(t, 6)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var started atomic.Int32
	blocking := func(ctx context.Context, j Job) (Outcome, error) {
		if started.Add(1) > 2 {
			cancel() // the third task: stop everything while it runs
			<-ctx.Done()
			return Outcome{Outcome: "cancelled", Exit: 130}, ctx.Err()
		}
		return answering()(ctx, j)
	}
	sum, err := Run(ctx, Options{Suite: suite, Out: out, Model: "m", Parallel: 1, Screen: image1280()}, blocking)
	if !errors.Is(err, context.Canceled) || errors.As(err, new(*StartError)) {
		t.Fatalf("Run = %v, want context.Canceled (not a StartError: it started)", err)
	}
	// The cancel stopped the evaluation: no task after the third started.
	if n := started.Load(); n != 3 {
		t.Errorf("%d tasks started, want 3: the evaluation ran on after the cancel", n)
	}
	if !sum.Interrupted || len(sum.Results) != 2 || sum.Passed != 2 || sum.Tasks != 6 {
		t.Fatalf("partial summary = %+v", sum)
	}
	if lines := readJSONL(t, out); len(lines) != 2 {
		t.Fatalf("results.jsonl has %d results, want 2", len(lines))
	}
	if s := readSummary(t, out); !s.Interrupted || len(s.Results) != 2 {
		t.Errorf("summary.json = %+v", s)
	}
	waitNoXvfb(t)

	var startErr *StartError
	if _, err := Run(t.Context(), Options{Suite: suite, Out: out, Model: "m"}, answering()); !errors.As(err, &startErr) {
		t.Errorf("a second run into the same folder without Resume: %v, want a StartError", err)
	}
	if _, err := Run(t.Context(), Options{Suite: suite, Out: out, Model: "other", Resume: true}, answering()); !errors.As(err, &startErr) || !strings.Contains(err.Error(), "model") {
		t.Errorf("resume with another model: %v, want a StartError", err)
	}
	var ran []string
	var mu sync.Mutex
	counting := func(ctx context.Context, j Job) (Outcome, error) {
		mu.Lock()
		ran = append(ran, j.TaskID)
		mu.Unlock()
		return answering()(ctx, j)
	}
	sum, err = Run(t.Context(), Options{Suite: suite, Out: out, Model: "m", Resume: true, Parallel: 2, Screen: image1280()}, counting)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ran)
	if strings.Join(ran, " ") != "t2 t3 t4 t5" {
		t.Errorf("resumed run ran %v, want t2..t5", ran)
	}
	if sum.Interrupted || sum.Passed != 6 || len(sum.Results) != 6 || len(readJSONL(t, out)) != 6 {
		t.Errorf("resumed summary = %+v", sum)
	}
	waitNoXvfb(t)
}

// TestResumeAfterCrash: a results.jsonl cut inside its last line (the process died
// while writing) loses that line only, and resume runs that task again.
func TestResumeAfterCrash(t *testing.T) {
	suite := answerSuite(t, 2)
	out := t.TempDir()
	if _, err := Run(t.Context(), Options{Suite: suite, Out: out, Model: "m", Screen: image1280()}, answering()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(out, resultsFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(t.Context(), Options{Suite: suite, Out: out, Model: "m", Resume: true, Screen: image1280()}, answering())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Passed != 2 || len(readJSONL(t, out)) != 2 {
		t.Errorf("after the repair: %+v", sum)
	}
}

func TestRunnerFailures(t *testing.T) {
	suite := answerSuite(t, 1)
	tests := []struct {
		name    string
		run     Runner
		timeout time.Duration
		want    string
	}{
		{"panic", func(ctx context.Context, j Job) (Outcome, error) { panic("boom") }, 0, "runner panicked: boom"},
		{"error", func(ctx context.Context, j Job) (Outcome, error) {
			return Outcome{Outcome: "failed", Exit: 1}, errors.New("model unreachable")
		}, 0, "model unreachable"},
		{"timeout", func(ctx context.Context, j Job) (Outcome, error) {
			<-ctx.Done()
			return Outcome{Outcome: "cancelled", Exit: 130, Answer: "answer-0"}, ctx.Err()
		}, time.Second, "timeout: the run took longer than 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			sum, err := Run(t.Context(), Options{Suite: suite, Out: out, Timeout: tt.timeout, Screen: image1280()}, tt.run)
			if err != nil {
				t.Fatal(err)
			}
			r := sum.Results[0]
			if !strings.Contains(r.Error, tt.want) {
				t.Errorf("error = %q, want %q", r.Error, tt.want)
			}
			// The task is still checked: the setup file is there, the answer decides.
			if want := tt.name == "timeout"; r.Correct != want {
				t.Errorf("correct = %v, want %v (%s)", r.Correct, want, r.Check)
			}
			waitNoXvfb(t)
		})
	}
}

func TestProblemTasksAreReported(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"a.json": `{"id": "pdf", "instruction": "x", "evaluator": {"func": "compare_holograms", "result": {"type": "answer"}}}`,
		"b.json": `{"id": "bad", "instruction": "x", "evaluator": {"func": "exact_match"}}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	called := false
	sum, err := Run(t.Context(), Options{Suite: dir, Out: t.TempDir()}, func(context.Context, Job) (Outcome, error) {
		called = true
		return Outcome{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if called {
		t.Error("the runner ran a task that cannot be checked")
	}
	if len(sum.Results) != 2 || sum.Passed != 0 ||
		sum.Results[0].Error != `unsupported evaluator func "compare_holograms"` || !strings.Contains(sum.Results[1].Error, "has no result getter") {
		t.Errorf("summary = %+v", sum)
	}
}

func TestShardAndMerge(t *testing.T) {
	suite := answerSuite(t, 7)
	root := t.TempDir()
	var dirs []string
	for i := range 3 {
		dir := filepath.Join(root, fmt.Sprintf("shard-%d", i))
		dirs = append(dirs, dir)
		sh := Shard{Index: i, Count: 3}
		sum, err := Run(t.Context(), Options{Suite: suite, Out: dir, Model: "m", Shard: sh, Screen: image1280()}, answering("t4"))
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range sum.Results {
			ids = append(ids, r.ID)
		}
		want := map[int]string{0: "t0 t3 t6", 1: "t1 t4", 2: "t2 t5"}[i]
		if strings.Join(ids, " ") != want || sum.Tasks != len(ids) {
			t.Errorf("shard %s ran %v (tasks %d), want %s", sh, ids, sum.Tasks, want)
		}
	}
	merged := filepath.Join(root, "merged")
	sum, err := Merge(merged, dirs...)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Tasks != 7 || sum.Passed != 6 || len(sum.Results) != 7 {
		t.Fatalf("merged = %+v", sum)
	}
	for i, r := range sum.Results {
		if r.ID != fmt.Sprintf("t%d", i) {
			t.Errorf("merged results[%d] = %s", i, r.ID)
		}
		if r.Trace != "" {
			t.Errorf("%s: trace %q from a runner that wrote none", r.ID, r.Trace)
		}
	}
	if len(readJSONL(t, merged)) != 7 || readSummary(t, merged).Passed != 6 {
		t.Error("merged folder's files disagree with the summary")
	}
	if _, err := Merge(filepath.Join(root, "again"), dirs[0], dirs[0]); err == nil {
		t.Error("merging a shard with itself succeeded")
	}
	if _, err := Merge(filepath.Join(root, "partial"), dirs[0], dirs[2]); err != nil {
		t.Errorf("merging two of three shards: %v", err)
	} else if s := readSummary(t, filepath.Join(root, "partial")); s.Tasks != 7 || len(s.Results) != 5 {
		t.Errorf("partial merge = %d tasks, %d results; want 7 and 5", s.Tasks, len(s.Results))
	}
	other := filepath.Join(root, "other-model")
	if _, err := Run(t.Context(), Options{Suite: suite, Out: other, Model: "n", Shard: Shard{1, 3}, Screen: image1280()}, answering()); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(filepath.Join(root, "mixed"), dirs[0], other); err == nil || !strings.Contains(err.Error(), "model") {
		t.Errorf("merging two models: %v", err)
	}
}

// TestExistingDisplay runs tasks one at a time on a display that is not the
// harness's own; it stays up afterwards.
func TestExistingDisplay(t *testing.T) {
	d, err := xdisplay.Start(t.Context(), xdisplay.Options{Width: 1024, Height: 768})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	t.Setenv("XAUTHORITY", d.XAuthority)
	var names []string
	var mu sync.Mutex
	run := func(ctx context.Context, j Job) (Outcome, error) {
		mu.Lock()
		names = append(names, j.Display.Name)
		mu.Unlock()
		return answering()(ctx, j)
	}
	if _, err := Run(t.Context(), Options{Suite: answerSuite(t, 2), Out: t.TempDir(), XDisplay: d.Name, Parallel: 2}, run); err == nil {
		t.Error("parallel 2 on one display was accepted")
	}
	sum, err := Run(t.Context(), Options{Suite: answerSuite(t, 2), Out: t.TempDir(), XDisplay: d.Name}, run)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Passed != 2 || strings.Join(names, " ") != d.Name+" "+d.Name {
		t.Errorf("passed %d on displays %v, want 2 on %s", sum.Passed, names, d.Name)
	}
	if _, err := d.Windows(t.Context()); err != nil {
		t.Errorf("the existing display is gone: %v", err)
	}
}

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		err  bool
	}{
		{"", Shard{}, false},
		{"0/4", Shard{0, 4}, false},
		{" 3 / 4 ", Shard{3, 4}, false},
		{"4/4", Shard{}, true},
		{"-1/4", Shard{}, true},
		{"1/0", Shard{}, true},
		{"1", Shard{}, true},
		{"a/b", Shard{}, true},
	}
	for _, tt := range tests {
		got, err := ParseShard(tt.in)
		if (err != nil) != tt.err || (!tt.err && got != tt.want) {
			t.Errorf("ParseShard(%q) = %v, %v", tt.in, got, err)
		}
	}
}

func TestSafeName(t *testing.T) {
	seen := map[string]string{}
	for _, id := range []string{"xterm-make-dirs", "../../etc", "a/b", "a_b", "", ".", "..", strings.Repeat("x", 200), "é"} {
		n := safeName(id)
		if !filepath.IsLocal(n) || strings.ContainsAny(n, `/\`) || len(n) > 100 {
			t.Errorf("safeName(%q) = %q", id, n)
		}
		if prev, ok := seen[n]; ok {
			t.Errorf("safeName(%q) = safeName(%q) = %q", id, prev, n)
		}
		seen[n] = id
	}
	if safeName("xterm-make-dirs") != "xterm-make-dirs" {
		t.Error("a plain id changed")
	}
}

// TestRunGAIA runs the gaia-files suite with a runner that answers from a table:
// the answers are scored with the GAIA scorer, and each job carries its file.
func TestRunGAIA(t *testing.T) {
	answers := map[string]string{
		"gf-warehouse-city":      "tampere",
		"gf-revenue":             "2,450,000", // a number: separators are dropped
		"gf-product-lines":       "Kettles, Blenders, Toasters",
		"gf-north-units":         "245",
		"gf-top-revenue-product": "Blender",
		"gf-budget-owner":        "Priya  Nair.",
		"gf-attendees":           "8",
		"gf-next-meeting":        "2026-02-17",
	}
	wrong := []string{"gf-attendees", "gf-product-lines"}
	run := func(ctx context.Context, j Job) (Outcome, error) {
		if len(j.Files) != 1 || !strings.Contains(j.Instruction, j.Files[0]) {
			return Outcome{}, fmt.Errorf("job files %v not in the instruction %q", j.Files, j.Instruction)
		}
		if _, err := os.Stat(j.Files[0]); err != nil {
			return Outcome{}, err
		}
		return Outcome{Answer: answers[j.TaskID], Outcome: "answered", Steps: 1}, nil
	}
	sum, err := Run(t.Context(), Options{Suite: "suites/gaia-files", Out: t.TempDir(), Model: "table", Parallel: 3, Screen: image1280()}, run)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Tasks != 8 || sum.Passed != 6 {
		t.Errorf("passed %d of %d, want 6 of 8", sum.Passed, sum.Tasks)
	}
	for _, r := range sum.Results {
		if want := !slices.Contains(wrong, r.ID); r.Correct != want || r.Error != "" || r.Expected == "" {
			t.Errorf("%s: %+v, want correct %v", r.ID, r, want)
		}
	}
}

// TestStartErrors: an evaluation that cannot start is a StartError and leaves
// no results.
func TestStartErrors(t *testing.T) {
	suite := answerSuite(t, 1)
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "mine.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		o    Options
		run  Runner
	}{
		{"no runner", Options{Suite: suite, Out: t.TempDir()}, nil},
		{"bad options", Options{Suite: suite, Out: t.TempDir(), Parallel: -1}, answering()},
		{"missing suite", Options{Suite: filepath.Join(suite, "none"), Out: t.TempDir()}, answering()},
		{"a folder holding other files", Options{Suite: suite, Out: full}, answering()},
		{"a display that does not answer", Options{Suite: suite, Out: t.TempDir(), XDisplay: ":65000"}, answering()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(t.Context(), tt.o, tt.run)
			var start *StartError
			if !errors.As(err, &start) {
				t.Fatalf("Run = %v, want a StartError", err)
			}
			if _, err := os.Stat(filepath.Join(tt.o.Out, resultsFile)); err == nil {
				t.Errorf("results.jsonl written")
			}
		})
	}
}
