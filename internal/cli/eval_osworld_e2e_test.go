//go:build linux

package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/eval"
)

// osworldSuite is the folder of OSWorld's own task files, copied unchanged,
// with a scripted solution for some under solutions/<domain>/<id>.star.
const osworldSuite = "../../eval/suites/osworld"

// solutionSep separates the replies of a solution file: each part is the code
// of one reply, in order.
const solutionSep = "# ---"

// osworldTask is what the tests need of one task of the suite.
type osworldTask struct {
	key, instruction string   // key is "domain/id", as results name it
	replies          []string // the solution's replies; nil for a task without one
}

// osworldTasks reads every task of the suite with its solution, if it has
// one; a solution without its task is an error, so that the suite and its
// solutions stay in step.
func osworldTasks(t *testing.T) []osworldTask {
	t.Helper()
	s, err := eval.Load(osworldSuite)
	if err != nil {
		t.Fatal(err)
	}
	var out []osworldTask
	keys := map[string]bool{}
	for _, task := range s.Tasks {
		keys[task.ID] = true
		out = append(out, osworldTask{task.ID, osworldInstruction(t, task.ID), osworldSolution(t, task.ID)})
	}
	// The tasks that download their inputs run from a cache
	// (eval_osworld_cache_e2e_test.go); their solutions are here too.
	cached, err := eval.Load(filepath.Join(osworldSuite, "test_cached.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range cached.Tasks {
		keys[task.ID] = true
	}
	sols, _ := filepath.Glob(filepath.Join(osworldSuite, "solutions", "*", "*.star"))
	for _, f := range sols {
		key := filepath.Base(filepath.Dir(f)) + "/" + strings.TrimSuffix(filepath.Base(f), ".star")
		if !keys[key] {
			t.Errorf("solution %s has no task in the suite's test_all.json or test_cached.json", f)
		}
	}
	return out
}

// osworldInstruction reads the instruction of the task of key "domain/id"
// from its file in the suite.
func osworldInstruction(t *testing.T, key string) string {
	t.Helper()
	domain, id, ok := strings.Cut(key, "/")
	if !ok {
		t.Fatalf("task %q: want a domain/id key", key)
	}
	var file struct {
		Instruction string `json:"instruction"`
	}
	data, err := os.ReadFile(filepath.Join(osworldSuite, "examples", domain, id+".json"))
	if err == nil {
		err = json.Unmarshal(data, &file)
	}
	if err != nil || file.Instruction == "" {
		t.Fatalf("task %s: instruction: %v", key, err)
	}
	return file.Instruction
}

// osworldSolution reads the replies of the task's scripted solution
// (solutions/<domain>/<id>.star), or nil when it has none.
func osworldSolution(t *testing.T, key string) []string {
	t.Helper()
	domain, id, _ := strings.Cut(key, "/")
	sol, err := os.ReadFile(filepath.Join(osworldSuite, "solutions", domain, id+".star"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		t.Fatal(err)
	}
	var replies []string
	for _, part := range strings.Split(string(sol), solutionSep+"\n") {
		if part = strings.TrimSpace(part); part != "" {
			replies = append(replies, part)
		}
	}
	if len(replies) == 0 || !strings.Contains(replies[len(replies)-1], "final_answer(") {
		t.Fatalf("task %s: the solution's last reply must give the final answer", key)
	}
	return replies
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

// idleCheckErrors are the tasks of test_all.json whose check, with nothing
// done, fails with an error rather than a plain 0 (docs/eval.md names each),
// with the start of that error.
var idleCheckErrors = map[string]string{
	// gsettings has no org.gnome.shell schema here (GNOME Shell is not
	// installed; openbox is the window manager): favorite-apps reads "".
	"os/ec4e3f68-9ea4-4c18-a5c9-69f89d1178b3": "check: check_gnome_favorite_apps: ",
	// timedatectl needs systemd, which the box does not run.
	"os/b6781586-6346-41cd-935a-a6b1487918fc": "check: is_utc_0: ",
	// VLC streams a video from the internet; offline nothing plays, VLC's
	// HTTP interface gives no status and the getter None, on which
	// OSWorld's metric raises too.
	"vlc/bba3381f-b5eb-4439-bd9e-80c22218d5a7": "check: is_vlc_playing: ",
}

// watchPolicy does nothing either, but first watches the screen for 5 s, so
// that the apps the task started are up (and have written what they write
// at start) when the check runs.
func watchPolicy(_ testing.TB, step int, _ llmtest.Request) string {
	if step == 0 {
		return "wait(5)"
	}
	return `final_answer("done")`
}

// osworldApps are the programs the suite's tasks start; without one the
// tests skip.
var osworldApps = []string{"Xvfb", "openbox", "bwrap", "xterm", "gsettings", "vlc", "python3",
	"chromium", "socat", "soffice", "gimp", "xdg-mime", "gnome-terminal", "sar", "jq"}

// osworldResultsDir is where a run of the index file's tasks writes its
// results: a temporary folder, or with $DESKPILOT_OSWORLD_OUT set a folder
// there named after the index, kept to look at the runs' frames and logs.
func osworldResultsDir(t *testing.T, index string) string {
	keep := os.Getenv("DESKPILOT_OSWORLD_OUT")
	if keep == "" {
		return filepath.Join(t.TempDir(), "results")
	}
	if index == "" {
		index = "test_all.json"
	}
	return filepath.Join(keep, strings.TrimSuffix(filepath.Base(index), ".json"))
}

// evalOSWorld runs the tasks of the suite the index file (or the suite's own
// test_all.json, for index "") names through `deskpilot eval` with the
// scripted model and returns the results by key. $DESKPILOT_OSWORLD_OUT, if
// set, keeps the results folders there.
func evalOSWorld(t *testing.T, index string, m *scriptedModel, replies int) (map[string]osworldResult, string) {
	t.Helper()
	isolate(t)
	srv := llmtest.New(t, m.replies(replies)...)
	out := osworldResultsDir(t, index)
	suite := osworldSuite
	if index != "" {
		suite = index
	}
	stdout, stderr, code := runCLI(t.Context(), "eval", suite, "--out", out, "--parallel", "2", "--json", "--yes",
		"--base-url", srv.URL, "--model", "scripted", "--max-steps", "6", "--timeout", "3m")
	var sum struct {
		Tasks       int             `json:"tasks"`
		Interrupted bool            `json:"interrupted"`
		Results     []osworldResult `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil || len(sum.Results) != sum.Tasks || sum.Interrupted {
		t.Fatalf("exit %d, summary %+v (%v)\nstderr:\n%s", code, sum, err, stderr)
	}
	res := map[string]osworldResult{}
	for _, r := range sum.Results {
		res[r.ID] = r
	}
	return res, stderr
}

// TestEvalOSWorldSolutions runs every task of eval/suites/osworld (OSWorld's
// task files, verbatim) that has a scripted solution through `deskpilot eval`
// on private displays, with the real harness, box and apps and a scripted
// model over real HTTP that does what a person would (a terminal opened with
// launch, the commands typed into it): every task must pass.
// TestEvalOSWorldIdle runs the same tasks, and every other, doing nothing.
func TestEvalOSWorldSolutions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs OSWorld tasks on private displays")
	}
	needTools(t, osworldApps...)
	policies := map[string]policy{}
	n := 0
	var solved []osworldTask
	var keys []string
	for _, task := range osworldTasks(t) {
		if task.replies == nil {
			continue
		}
		solved = append(solved, task)
		keys = append(keys, task.key)
		policies[task.instruction] = solutionPolicy(task.replies)
		n += len(task.replies)
	}
	// test_solved.json, the suite's index of its solved tasks, lists exactly them.
	index := filepath.Join(osworldSuite, "test_solved.json")
	wantListed(t, index, keys)
	m := newScriptedModel(t, policies)
	res, stderr := evalOSWorld(t, index, m, n)
	wantPasses(t, res, m, solved)
	if t.Failed() {
		t.Logf("stderr:\n%s", stderr)
	}
}

// wantListed fails the test unless the index file lists exactly the tasks
// of keys.
func wantListed(t *testing.T, index string, keys []string) {
	t.Helper()
	s, err := eval.Load(index)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, task := range s.Tasks {
		listed = append(listed, task.ID)
	}
	keys = slices.Sorted(slices.Values(keys))
	slices.Sort(listed)
	if !slices.Equal(keys, listed) {
		t.Fatalf("%s lists %q, the tasks with a solution are %q", filepath.Base(index), listed, keys)
	}
}

// wantPasses checks that each solved task passed, with every reply of its
// solution asked for.
func wantPasses(t *testing.T, res map[string]osworldResult, m *scriptedModel, solved []osworldTask) {
	t.Helper()
	for _, task := range solved {
		r, ok := res[task.key]
		if !ok {
			t.Errorf("%s: no result", task.key)
			continue
		}
		if !r.Correct || r.Status != "" || r.Error != "" {
			t.Errorf("%s: correct %v (score %g, status %q, error %q, check %q), want a pass", task.key, r.Correct, r.Score, r.Status, r.Error, r.Check)
		}
		if m.calls(task.instruction) != len(task.replies) {
			t.Errorf("%s: %d model calls, want %d", task.key, m.calls(task.instruction), len(task.replies))
		}
	}
}

// TestEvalOSWorldIdle: a model that does nothing passes nothing. Every task of
// eval/suites/osworld (each task of OSWorld that reaches a verdict offline
// with what Debian has: no download, no web page to open, its apps
// installed) runs with a model that does nothing but watch the screen for
// 5 s: each must reach a verdict (no status, no setup error) and score 0.
func TestEvalOSWorldIdle(t *testing.T) {
	if testing.Short() {
		t.Skip("runs OSWorld tasks on private displays")
	}
	needTools(t, osworldApps...)
	// Without GNOME Videos, VLC is the default video player and
	// multi_apps/937087b6 passes doing nothing: not a reason to skip.
	if _, err := exec.LookPath("totem"); err != nil {
		t.Fatal("totem is not installed (make deps installs it): the snapshot's default video player")
	}
	tasks := osworldTasks(t)
	start := time.Now()
	res, stderr := evalOSWorld(t, "", newScriptedModel(t, map[string]policy{"": watchPolicy}), 3*len(tasks))
	checkErrors := 0
	for _, task := range tasks {
		r, ok := res[task.key]
		switch {
		case !ok:
			t.Errorf("%s: no result", task.key)
		case r.Correct || r.Score != 0:
			t.Errorf("%s: passed (score %g) with nothing done", task.key, r.Score)
		case r.Status != "" || (r.Error != "" && !strings.HasPrefix(r.Error, "check: ")):
			t.Errorf("%s: no verdict: status %q, error %q", task.key, r.Status, r.Error)
		case r.Error != "":
			checkErrors++
			if want, ok := idleCheckErrors[task.key]; !ok || !strings.HasPrefix(r.Error, want) {
				t.Errorf("%s: fails with a check error none is expected from: %s", task.key, r.Error)
			}
		}
	}
	t.Logf("%d tasks, none passed, %d of the failures check errors, in %.0fs at --parallel 2", len(tasks), checkErrors, time.Since(start).Seconds())
	if t.Failed() {
		t.Logf("stderr:\n%s", stderr)
	}
}

// BenchmarkEvalOSWorldTree runs the OSWorld tree or index file named by
// $DESKPILOT_OSWORLD_SUITE (scripts/bench-osworld.sh extracts it from a
// mirror of OSWorld) through `deskpilot eval` with a model that answers at
// once and an empty inputs cache (offline: a task that downloads is
// not_cached). It prints the tasks loaded, those that reached a verdict and
// the count of each status, then runs the tasks that reached a verdict again at
// --parallel 1, 2 and 4 and prints each wall time ($DESKPILOT_OSWORLD_TIMING=0
// leaves that out). $DESKPILOT_OSWORLD_OUT, if set, keeps the results folders
// there.
func BenchmarkEvalOSWorldTree(b *testing.B) {
	suite := os.Getenv("DESKPILOT_OSWORLD_SUITE")
	if suite == "" {
		b.Skip("set DESKPILOT_OSWORLD_SUITE to OSWorld's evaluation_examples or an index file of it")
	}
	keep := os.Getenv("DESKPILOT_OSWORLD_OUT")
	dir := b.TempDir()
	if keep != "" {
		dir = keep
	}
	for _, k := range []string{"OPENAI_BASE_URL", "OPENAI_API_KEY", "DESKPILOT_MODEL", "DESKPILOT_BASE_URL", "DESKPILOT_PRESET"} {
		b.Setenv(k, "")
	}
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	b.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	cache := filepath.Join(dir, "empty-inputs")
	if err := os.MkdirAll(cache, 0o700); err != nil {
		b.Fatal(err)
	}
	s, err := eval.Load(suite)
	if err != nil {
		b.Fatal(err)
	}
	run := func(suite, name string, parallel int) ([]osworldResult, time.Duration) {
		b.Helper()
		srv := llmtest.New(b, newScriptedModel(b, map[string]policy{"": idlePolicy}).replies(2*len(s.Tasks)+8)...)
		start := time.Now()
		stdout, stderr, code := runCLI(b.Context(), "eval", suite, "--out", filepath.Join(dir, name), "--cache", cache,
			"--parallel", fmt.Sprint(parallel), "--json", "--yes", "--base-url", srv.URL, "--model", "idle", "--max-steps", "2", "--timeout", "3m")
		took := time.Since(start)
		var sum struct {
			Results []osworldResult `json:"results"`
		}
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
			b.Fatalf("exit %d: %v\nstderr:\n%s", code, err, stderr)
		}
		return sum.Results, took
	}
	b.ResetTimer()
	for range b.N {
		res, took := run(suite, "classify", 4)
		status := map[string]int{}
		errs := map[string]int{}
		free := map[string][]string{}
		var order []string
		passed := 0
		for _, r := range res {
			st := r.Status
			if st == "" {
				st = "verdict"
				if r.Error != "" {
					kind, _, _ := strings.Cut(r.Error, ":")
					errs[kind]++
				}
				domain, id, _ := strings.Cut(r.ID, "/")
				if _, ok := free[domain]; !ok {
					order = append(order, domain)
				}
				free[domain] = append(free[domain], id)
			}
			if r.Correct {
				passed++
			}
			status[st]++
		}
		fmt.Printf("osworld: %d tasks loaded, %d results, %d reached a verdict, %d passed (do-nothing model), %.1fs at --parallel 4\n",
			len(s.Tasks), len(res), status["verdict"], passed, took.Seconds())
		for _, k := range slices.Sorted(maps.Keys(status)) {
			fmt.Printf("osworld: status %-14s %d\n", k, status[k])
		}
		for _, k := range slices.Sorted(maps.Keys(errs)) {
			fmt.Printf("osworld: verdict with an error from %-8s %d\n", k+":", errs[k])
		}
		if status["verdict"] == 0 || os.Getenv("DESKPILOT_OSWORLD_TIMING") == "0" {
			continue
		}
		// An index file next to the tree's examples/ selects the tasks that
		// reached a verdict offline: the network-free ones.
		examples := filepath.Join(suite, "examples")
		if fi, err := os.Stat(suite); err == nil && !fi.IsDir() {
			examples = filepath.Join(filepath.Dir(suite), "examples")
		}
		var idx bytes.Buffer
		idx.WriteString("{")
		for i, d := range order {
			ids, _ := json.Marshal(free[d])
			if i > 0 {
				idx.WriteString(",")
			}
			fmt.Fprintf(&idx, "%q: %s", d, ids)
		}
		idx.WriteString("}")
		index := filepath.Join(filepath.Dir(examples), "deskpilot-network-free.json")
		if err := os.WriteFile(index, idx.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		for _, p := range []int{1, 2, 4} {
			res, took := run(index, fmt.Sprintf("parallel-%d", p), p)
			fmt.Printf("osworld: network-free %d tasks at --parallel %d: %.1fs\n", len(res), p, took.Seconds())
		}
	}
}

// needTools skips the test unless every program is installed.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
}
