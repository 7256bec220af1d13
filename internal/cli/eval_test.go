//go:build linux

package cli

import (
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"

	"deskpilot/agent/llm/llmtest"
)

// answerSuite writes n OSWorld-format tasks t0..t(n-1) without apps: task i
// passes when the final answer is "answer-i".
func answerSuite(t testing.TB, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "answers")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		task := fmt.Sprintf(`{"id": "t%d", "instruction": "Reply with the words answer-%d.",
			"evaluator": {"func": "exact_match", "result": {"type": "answer"}, "expected": {"type": "rule", "rules": {"expected": "answer-%d"}}}}`, i, i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("t%d.json", i)), []byte(task), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// answerPolicy looks at the screen once (a step), then gives the answer the
// task asks for.
func answerPolicy(t testing.TB, step int, r llmtest.Request) string {
	if step == 0 {
		return "print(screen_size())"
	}
	m := regexp.MustCompile(`answer-\d+`).FindString(r.Messages[1].Text())
	return fmt.Sprintf("final_answer(%q)", m)
}

func TestEvalUsage(t *testing.T) {
	isolate(t)
	suite := answerSuite(t, 1)
	model := []string{"--base-url", "http://127.0.0.1:9/v1", "--model", "m"}
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "mine.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no suite", []string{"eval", "--out", t.TempDir()}, "accepts 1 arg"},
		{"no results folder", []string{"eval", suite}, "no results folder"},
		{"two results folders", []string{"eval", suite, "--out", "a", "--resume", "b"}, "different folders"},
		{"no model", []string{"eval", suite, "--out", t.TempDir()}, "model"},
		{"bad shard", []string{"eval", suite, "--out", t.TempDir(), "--shard", "4/4"}, "--shard"},
		{"bad screen", []string{"eval", suite, "--out", t.TempDir(), "--screen", "huge"}, "--screen"},
		{"no parallelism", []string{"eval", suite, "--out", t.TempDir(), "--parallel", "0"}, "--parallel"},
		{"timeout without a unit", []string{"eval", suite, "--out", t.TempDir(), "--timeout", "300"}, "timeout"},
		{"missing suite", []string{"eval", filepath.Join(suite, "none"), "--out", t.TempDir()}, "none"},
		{"missing suite and no results folder", []string{"eval", filepath.Join(suite, "none")}, "none"},
		{"a results folder holding other files", []string{"eval", suite, "--out", full}, "not empty"},
		{"parallel on one display", []string{"eval", suite, "--out", t.TempDir(), "--x-display", os.Getenv("DISPLAY"), "--parallel", "2"}, "one at a time"},
		{"no attempts", []string{"eval", suite, "--out", t.TempDir(), "--attempts", "0"}, "--attempts 0"},
		{"a judge of one attempt", []string{"eval", suite, "--out", t.TempDir(), "--select", "judge"}, "--attempts 2 or more"},
		{"an unknown selection", []string{"eval", suite, "--out", t.TempDir(), "--attempts", "2", "--select", "best"}, `--select "best"`},
		{"a judge model without the judge", []string{"eval", suite, "--out", t.TempDir(), "--attempts", "2", "--judge-model", "j"}, "--select judge"},
		{"an unknown judge provider", []string{"eval", suite, "--out", t.TempDir(), "--attempts", "2", "--select", "judge", "--judge-provider", "carrier-pigeon"}, "--judge-provider"},
		{"branch from no step", []string{"eval", suite, "--out", t.TempDir(), "--branch-from", "traces/run"}, "TRACE:STEP"},
		{"branch from step 0", []string{"eval", suite, "--out", t.TempDir(), "--branch-from", "traces/run:0"}, "from 1"},
		{"branch from no trace", []string{"eval", suite, "--out", t.TempDir(), "--branch-from", filepath.Join(t.TempDir(), "none") + ":2"}, "--branch-from"},
		{"merge without --out", []string{"eval", "merge", t.TempDir()}, "--out"},
		{"merge of a folder without results", []string{"eval", "merge", "--out", filepath.Join(t.TempDir(), "m"), t.TempDir()}, "run.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.name != "no model" && !strings.HasPrefix(tt.name, "merge") {
				args = append(append([]string(nil), args...), model...)
			}
			stdout, stderr, code := runCLI(t.Context(), args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, tt.want)
			}
		})
	}
}

// TestEvalInterruptAndResume stops an evaluation while the agent waits for the
// model (Ctrl+C cancels the command's context): the command ends with 130, the
// summary it prints and writes holds the finished task only, and --resume runs
// the rest. The model comes from the config file, as for every command.
func TestEvalInterruptAndResume(t *testing.T) {
	isolate(t)
	suite := answerSuite(t, 3)
	arrived, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	blocking := func(t testing.TB, step int, r llmtest.Request) string {
		if strings.Contains(r.Messages[1].Text(), "answer-1") && step == 0 {
			first := false
			once.Do(func() { first = true })
			if first {
				close(arrived)
				<-release // until the evaluation was stopped
			}
		}
		return answerPolicy(t, step, r)
	}
	m := newScriptedModel(t, map[string]policy{"answer-": blocking})
	srv := llmtest.New(t, m.replies(2+1)...)
	defer close(release)
	cfgDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "deskpilot")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(fmt.Sprintf("base_url = %q\nmodel = \"from-config\"\n", srv.URL)), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "results")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		select {
		case <-arrived:
			cancel()
		case <-ctx.Done():
		}
	}()
	stdout, stderr, code := runCLI(ctx, "eval", suite, "--out", out, "--json", "--screen", "1024x768")
	if code != exitInterrupted {
		t.Fatalf("exit %d, want 130\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	sum, res := parseSummary(t, stdout)
	if !sum.Interrupted || sum.Model != "from-config" || sum.Tasks != 3 || len(sum.Results) != 1 || !*res["t0"].Correct {
		t.Errorf("interrupted summary %+v", sum)
	}
	if !strings.Contains(stderr, "--resume "+out) {
		t.Errorf("stderr does not say how to go on:\n%s", stderr)
	}

	srv.Add(m.replies(2 + 2)...)
	stdout, stderr, code = runCLI(t.Context(), "eval", suite, "--resume", out, "--json", "--screen", "1024x768")
	if code != exitAnswered {
		t.Fatalf("resume: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	sum, _ = parseSummary(t, stdout)
	if sum.Interrupted || sum.Tasks != 3 || len(sum.Results) != 3 || sum.Passed != 3 {
		t.Errorf("resumed summary %+v", sum)
	}
	if !strings.Contains(stderr, "3 tasks, 1 finished before") {
		t.Errorf("resume did not skip the finished task:\n%s", stderr)
	}
	if srv.Pending() != 0 {
		t.Errorf("%d scripted replies left: a task ran twice or not at all", srv.Pending())
	}
}

// TestEvalShardsAndMerge runs a suite as two shards, as two pods of the
// Kubernetes Job would, and merges their folders.
func TestEvalShardsAndMerge(t *testing.T) {
	isolate(t)
	suite := answerSuite(t, 3)
	m := newScriptedModel(t, map[string]policy{"answer-": answerPolicy})
	srv := llmtest.New(t, m.replies(3*2)...)
	root := t.TempDir()
	for i := range 2 {
		dir := filepath.Join(root, fmt.Sprintf("shard-%d", i))
		stdout, stderr, code := runCLI(t.Context(), "eval", suite, "--resume", dir, "--shard", fmt.Sprintf("%d/2", i), "--json",
			"--screen", "1024x768", "--base-url", srv.URL, "--model", "m")
		if code != exitAnswered {
			t.Fatalf("shard %d: exit %d\n%s\n%s", i, code, stdout, stderr)
		}
		if sum, _ := parseSummary(t, stdout); sum.Tasks != 2-i || sum.Passed != 2-i {
			t.Errorf("shard %d: %+v", i, sum)
		}
	}
	merged := filepath.Join(root, "merged")
	stdout, stderr, code := runCLI(t.Context(), "eval", "merge", "--out", merged, "--json", filepath.Join(root, "shard-0"), filepath.Join(root, "shard-1"))
	if code != exitAnswered {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	sum, _ := parseSummary(t, stdout)
	if sum.Tasks != 3 || sum.Passed != 3 || len(sum.Results) != 3 || sum.Results[0].ID != "t0" || sum.Results[1].ID != "t1" || sum.Results[2].ID != "t2" {
		t.Errorf("merged %+v", sum)
	}
	for _, r := range sum.Results {
		checkTrace(t, merged, *r.Trace)
	}
}

// TestEvalManifestArgs: the command lines of the Kubernetes Jobs in
// deploy/k8s parse with the real commands and mean what the Job intends
// (each pod resumes its own shard folder).
func TestEvalManifestArgs(t *testing.T) {
	jobArgs := func(file string) []string {
		data, err := os.ReadFile(filepath.Join("../../deploy/k8s", file))
		if err != nil {
			t.Fatal(err)
		}
		var job batchv1.Job
		if err := yaml.Unmarshal(data, &job); err != nil {
			t.Fatal(err)
		}
		c := job.Spec.Template.Spec.Containers[0]
		return append(append([]string(nil), c.Command...), c.Args...)
	}
	tests := []struct {
		name string
		args []string
		want map[string]string // flag -> value
	}{
		{"eval job", jobArgs("job.yaml"), map[string]string{"resume": "/results/shard-3", "shard": "3/4", "json": "true"}},
		{"merge job", strings.Fields(strings.TrimPrefix(jobArgs("merge-job.yaml")[2], "exec deskpilot ")), map[string]string{"out": "/results/merged", "json": "true"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := make([]string, len(tt.args))
			for i, a := range tt.args { // as Kubernetes expands it in pod 3
				args[i] = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", "3")
			}
			cmd, rest, err := newRootCmd("test").Find(args)
			if err != nil || !strings.HasPrefix(cmd.CommandPath(), "deskpilot eval") {
				t.Fatalf("args %q: %v (command %q)", args, err, cmd.CommandPath())
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Fatalf("args %q: %v", args, err)
			}
			if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
				t.Errorf("args %q: %v", args, err)
			}
			for name, want := range tt.want {
				if f := cmd.Flags().Lookup(name); f == nil || f.Value.String() != want {
					t.Errorf("--%s = %v, want %s", name, f, want)
				}
			}
		})
	}
}

// TestEvalOnExistingDisplay runs tasks one after another on a display that
// is already there (--x-display: the test's own), and records a run whose
// model refuses the key as a failed task with its reason, not as a failed
// evaluation.
func TestEvalOnExistingDisplay(t *testing.T) {
	isolate(t)
	suite := answerSuite(t, 2)
	m := newScriptedModel(t, map[string]policy{"answer-": answerPolicy})
	srv := llmtest.New(t, append(m.replies(2), llmtest.Reply{Status: 401, Message: "invalid key"})...)
	out := filepath.Join(t.TempDir(), "results")
	stdout, stderr, code := runCLI(t.Context(), "eval", suite, "--out", out, "--x-display", os.Getenv("DISPLAY"), "--json",
		"--base-url", srv.URL, "--model", "m")
	if code != exitAnswered {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	sum, res := parseSummary(t, stdout)
	if sum.Tasks != 2 || sum.Passed != 1 || !*res["t0"].Correct {
		t.Errorf("summary %+v", sum)
	}
	if r := res["t1"]; *r.Correct || *r.Exit != exitFailed || !strings.Contains(*r.Error, "invalid key") {
		t.Errorf("t1: correct %v exit %d error %q; want a failed run that says why", *r.Correct, *r.Exit, *r.Error)
	}
	for _, r := range srv.Requests() {
		if imgs := r.Images(); len(imgs) > 0 && imgs[0].Size != image.Pt(1280, 800) {
			t.Errorf("screenshot %v, want the test display's 1280x800", imgs[0].Size)
		}
	}
}
