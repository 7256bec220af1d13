//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/eval"
)

// osworldSuite is the folder of OSWorld's own task files, copied unchanged,
// with a scripted solution for each under solutions/<domain>/<id>.star.
const osworldSuite = "../../eval/suites/osworld"

// solutionSep separates the replies of a solution file: each part is the code
// of one reply, in order.
const solutionSep = "# ---"

// osworldTask is what the tests need of one task of the suite.
type osworldTask struct {
	key, instruction string   // key is "domain/id", as results name it
	replies          []string // the solution's replies
}

// osworldTasks reads every task of the suite with its solution; a task
// without one is an error, so that the suite and its solutions stay in step.
func osworldTasks(t *testing.T) []osworldTask {
	t.Helper()
	s, err := eval.Load(osworldSuite)
	if err != nil {
		t.Fatal(err)
	}
	var out []osworldTask
	for _, task := range s.Tasks {
		domain, id, ok := strings.Cut(task.ID, "/")
		if !ok {
			t.Fatalf("task %q: want a domain/id key", task.ID)
		}
		var file struct {
			Instruction string `json:"instruction"`
		}
		data, err := os.ReadFile(filepath.Join(osworldSuite, "examples", domain, id+".json"))
		if err == nil {
			err = json.Unmarshal(data, &file)
		}
		if err != nil || file.Instruction == "" {
			t.Fatalf("task %s: instruction: %v", task.ID, err)
		}
		sol, err := os.ReadFile(filepath.Join(osworldSuite, "solutions", domain, id+".star"))
		if err != nil {
			t.Fatalf("task %s has no solution: %v", task.ID, err)
		}
		var replies []string
		for _, part := range strings.Split(string(sol), solutionSep+"\n") {
			if part = strings.TrimSpace(part); part != "" {
				replies = append(replies, part)
			}
		}
		if len(replies) == 0 || !strings.Contains(replies[len(replies)-1], "final_answer(") {
			t.Fatalf("task %s: the solution's last reply must give the final answer", task.ID)
		}
		out = append(out, osworldTask{task.ID, file.Instruction, replies})
	}
	return out
}

// osworldResult is what the tests read of a result line of `eval --json`.
type osworldResult struct {
	ID      string  `json:"id"`
	Correct bool    `json:"correct"`
	Score   float64 `json:"score"`
	Status  string  `json:"status"`
	Error   string  `json:"error"`
	Check   string  `json:"check"`
	Domain  string  `json:"domain"`
}

// solutionPolicy replies with the solution's parts in turn.
func solutionPolicy(replies []string) policy {
	return func(t testing.TB, step int, r llmtest.Request) string {
		if step > 0 {
			if obs := lastObservation(r); strings.Contains(obs, "Error") {
				t.Errorf("solution step %d failed: %s", step, obs)
			}
		}
		if step >= len(replies) {
			return `final_answer("done")`
		}
		return replies[step]
	}
}

// idlePolicy does nothing: it answers at once.
func idlePolicy(testing.TB, int, llmtest.Request) string { return `final_answer("done")` }

// TestEvalOSWorldSolutions runs every task of eval/suites/osworld (OSWorld's
// task files, verbatim) through `deskpilot eval` on private displays, with the
// real harness, box and apps and a scripted model over real HTTP: once with
// each task's solution (a terminal opened with launch, the commands typed into
// it), when every task must pass, and once with a model that answers at once
// without doing anything, when every task must reach a verdict and fail.
func TestEvalOSWorldSolutions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs OSWorld tasks on private displays")
	}
	for _, tool := range []string{"Xvfb", "openbox", "bwrap", "xterm", "gsettings", "vlc", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	tasks := osworldTasks(t)
	for _, mode := range []string{"solved", "idle"} {
		t.Run(mode, func(t *testing.T) {
			isolate(t)
			policies := map[string]policy{}
			n := 0
			for _, task := range tasks {
				if mode == "solved" {
					policies[task.instruction] = solutionPolicy(task.replies)
					n += len(task.replies)
				} else {
					policies[task.instruction] = idlePolicy
					n++
				}
			}
			m := newScriptedModel(t, policies)
			srv := llmtest.New(t, m.replies(n)...)
			out := filepath.Join(t.TempDir(), "results")
			stdout, stderr, code := runCLI(t.Context(), "eval", osworldSuite, "--out", out, "--parallel", "2", "--json", "--yes",
				"--base-url", srv.URL, "--model", "scripted", "--max-steps", "6", "--timeout", "3m")
			var sum struct {
				Tasks       int             `json:"tasks"`
				Interrupted bool            `json:"interrupted"`
				Results     []osworldResult `json:"results"`
			}
			if err := json.Unmarshal([]byte(stdout), &sum); err != nil || sum.Tasks != len(tasks) || len(sum.Results) != len(tasks) || sum.Interrupted {
				t.Fatalf("exit %d, summary %+v (%v)\nstderr:\n%s", code, sum, err, stderr)
			}
			res := map[string]osworldResult{}
			for _, r := range sum.Results {
				res[r.ID] = r
			}
			for _, task := range tasks {
				r, ok := res[task.key]
				if !ok {
					t.Errorf("%s: no result", task.key)
					continue
				}
				want := mode == "solved"
				if r.Correct != want || r.Status != "" || r.Error != "" {
					t.Errorf("%s: correct %v (score %g, status %q, error %q, check %q), want %v", task.key, r.Correct, r.Score, r.Status, r.Error, r.Check, want)
				}
				if w := map[bool]int{true: len(task.replies), false: 1}[want]; m.calls(task.instruction) != w {
					t.Errorf("%s: %d model calls, want %d", task.key, m.calls(task.instruction), w)
				}
			}
			if t.Failed() {
				t.Logf("stderr:\n%s", stderr)
			}
		})
	}
}
