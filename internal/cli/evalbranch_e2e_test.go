//go:build linux

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/trace"
)

// recordPolicy is the recorded run of xterm-create-file: step 1 writes
// hello.txt through the terminal, step 2 writes second.txt, step 3 answers.
func recordPolicy(t testing.TB, step int, r llmtest.Request) string {
	switch step {
	case 0:
		return terminalPolicy(t, 0, r)
	case 1:
		return `type_text("echo second > ~/second.txt\n")`
	}
	return `final_answer("written")`
}

// branchModel continues a branched run: the first continuation to ask
// writes A into branch.txt, the second B; then each answers.
type branchModel struct {
	t     testing.TB
	mu    sync.Mutex
	n     int
	first []llmtest.Request // each continuation's first request
}

func (m *branchModel) answer(r llmtest.Request) string {
	assistant := 0
	for _, msg := range r.Messages {
		if msg.Role == "assistant" {
			assistant++
		}
	}
	if assistant > 1 {
		return "Thought: done.\n```python\nfinal_answer(\"branched\")\n```"
	}
	m.mu.Lock()
	letter := string(rune('A' + m.n))
	m.n++
	m.first = append(m.first, r)
	m.mu.Unlock()
	return fmt.Sprintf("Thought: branch %s.\n```python\ntype_text(\"echo %s > ~/branch.txt\\n\")\n```", letter, letter)
}

// TestEvalBranchFrom records a run of xterm-create-file, then branches two
// attempts from its step 2: each replays step 1 on its own display (the
// model is not asked for it: it is in the history), and only then do the
// attempts differ. On a screen laid out otherwise the replay stops before
// the model is asked anything, with exit 4.
func TestEvalBranchFrom(t *testing.T) {
	if testing.Short() {
		t.Skip("runs desktop tasks on private displays")
	}
	isolate(t)
	suite := copySuite(t, "../../eval/suites/desktop", "xterm-create-file")
	m := newScriptedModel(t, map[string]policy{"hello from deskpilot": recordPolicy})
	srv := llmtest.New(t, m.replies(3)...)
	rec := filepath.Join(t.TempDir(), "recorded")
	stdout, stderr, code := runCLI(t.Context(), "eval", suite, "--out", rec, "--json", "--yes",
		"--base-url", srv.URL, "--model", "scripted", "--max-steps", "5", "--timeout", "4m")
	if code != exitAnswered {
		t.Fatalf("recording: exit %d\n%s\n%s", code, stdout, stderr)
	}
	_, res := parseSummary(t, stdout)
	recTrace := filepath.Join(rec, *res["xterm-create-file"].Trace)
	recorded := readFile(t, filepath.Join(recTrace, "trace.jsonl"))

	bm := &branchModel{t: t}
	bsrv := llmtest.New(t, repeatReply(bm.answer, 4)...)
	out := filepath.Join(t.TempDir(), "branched")
	stdout, stderr, code = runCLI(t.Context(), "eval", suite, "--out", out, "--json", "--yes", "--attempts", "2", "--parallel", "2",
		"--branch-from", recTrace+":2", "--base-url", bsrv.URL, "--model", "scripted", "--max-steps", "5", "--timeout", "4m")
	if code != exitAnswered {
		t.Fatalf("branch: exit %d\n%s\n%s", code, stdout, stderr)
	}
	sum, _ := parseSummary(t, stdout)
	a := attemptsSummary(t, sum.Attempts)
	if len(a.Results) != 2 || a.Overall.PassAtK != 1 || a.Overall.Mean != 1 {
		t.Errorf("branched attempts %+v", a.Overall)
	}
	for _, r := range a.Results {
		cont, err := trace.Read(filepath.Join(out, r.Trace))
		if err != nil {
			t.Fatal(err)
		}
		prefix, err := trace.Read(cont.Start.Continues)
		if err != nil || !strings.HasPrefix(prefix.Start.Task, "branch: ") || prefix.StepCount() != 1 {
			t.Errorf("attempt %d: the continuation does not name its replayed prefix (%q): %v", r.Attempt, cont.Start.Continues, err)
		}
	}
	letters := map[string]bool{}
	for n := 1; n <= 2; n++ {
		home := filepath.Join(out, "tasks", "xterm-create-file", fmt.Sprintf("attempt-%d", n), "home")
		if _, err := os.Stat(filepath.Join(home, "hello.txt")); err != nil {
			t.Errorf("attempt %d: the replayed step 1 wrote no hello.txt: %v", n, err)
		}
		if _, err := os.Stat(filepath.Join(home, "second.txt")); err == nil {
			t.Errorf("attempt %d: recorded step 2 was replayed; the model was to write it", n)
		}
		data, err := os.ReadFile(filepath.Join(home, "branch.txt"))
		if err != nil {
			t.Errorf("attempt %d: %v", n, err)
		}
		letters[strings.TrimSpace(string(data))] = true
	}
	if !letters["A"] || !letters["B"] {
		t.Errorf("the attempts wrote %v to branch.txt, want A in one and B in the other", letters)
	}
	// The model never wrote step 1 again: it is the history of each
	// continuation, as recorded.
	if len(bsrv.Requests()) != 4 || len(bm.first) != 2 {
		t.Errorf("%d model requests (%d continuations), want 4 (2)", len(bsrv.Requests()), len(bm.first))
	}
	for _, r := range bm.first {
		var replies []string
		for _, msg := range r.Messages {
			if msg.Role == "assistant" {
				replies = append(replies, msg.Text())
			}
		}
		if len(replies) != 1 || !strings.Contains(replies[0], "hello from deskpilot") || !strings.Contains(lastObservation(r), "Continue the same task from step 2") {
			t.Errorf("continuation history %q, last %q", replies, lastObservation(r))
		}
	}
	if got := readFile(t, filepath.Join(recTrace, "trace.jsonl")); got != recorded {
		t.Errorf("the recorded trace changed")
	}

	// Another layout: the recorded step 1 would click elsewhere.
	moved := filepath.Join(suite, "xterm-create-file.json")
	task := readFile(t, moved)
	if err := os.WriteFile(moved, []byte(strings.Replace(task, "100x30+80+80", "40x10+900+600", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	none := llmtest.New(t) // any request fails the test
	div := filepath.Join(t.TempDir(), "diverged")
	stdout, stderr, code = runCLI(t.Context(), "eval", suite, "--out", div, "--json", "--yes", "--attempts", "2",
		"--branch-from", recTrace+":2", "--base-url", none.URL, "--model", "scripted", "--timeout", "4m")
	if code != exitDiverged || !strings.Contains(stderr, "the recorded prefix diverged") || !strings.Contains(stderr, "does not look as recorded") {
		t.Fatalf("diverged: exit %d, want 4\n%s\n%s", code, stdout, stderr)
	}
	sum, _ = parseSummary(t, stdout)
	for _, r := range attemptsSummary(t, sum.Attempts).Results {
		if r.Exit != exitDiverged || r.Correct || !strings.Contains(r.Error, "branch: step 1 does not look as recorded") {
			t.Errorf("diverged attempt %+v", r)
		}
	}
	if n := len(none.Requests()); n != 0 {
		t.Errorf("%d model requests after the divergence", n)
	}
}
