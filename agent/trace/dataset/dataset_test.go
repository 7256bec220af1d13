package dataset

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"deskpilot/actions"
)

// fillRuns writes three runs of one task: the second repeats the first
// (same code, same screens), the third takes another way. Step labels of
// the first: 1 changed; 2 the same code again, nothing changed (no_change,
// repeated); 3 an action failed (error, changed); 4 refused by the policy.
func fillRuns(t *testing.T, root string) []string {
	t.Helper()
	refused := actions.Record{Name: "launch", Args: `"rm -rf /"`, Result: "refused", Error: "refused by policy: rm is in deny_apps"}
	failed := actions.Record{Name: "click", Args: "999, 999", Error: "x=999 is outside the screenshot (0..319)", Traits: actions.Traits{Gesture: actions.GestureClick}}
	a := runSpec{task: "Fill in the form", first: 1, steps: []stepSpec{
		{code: "click(40, 50)", acts: []actions.Record{click(40, 50)}, changed: true, screen: 2},
		{code: "click(40, 50)", acts: []actions.Record{click(40, 50)}, screen: 2},
		{code: "click(999, 999)\ntype_text(\"Ada\")", acts: []actions.Record{failed, typeText("Ada")}, changed: true, screen: 3},
		{code: "launch(\"rm -rf /\")", acts: []actions.Record{refused}, err: "refused by policy: rm is in deny_apps", screen: 3},
	}}
	c := a
	c.steps = slices.Clone(a.steps)
	c.steps[1] = stepSpec{code: "press(\"tab\")", acts: []actions.Record{{Name: "press", Args: `"tab"`}}, changed: true, screen: 4}
	return []string{writeRun(t, root, a), writeRun(t, root, a), writeRun(t, root, c)}
}

func sources(dirs []string) []Source {
	var out []Source
	for _, d := range dirs {
		out = append(out, Source{Trace: d})
	}
	return out
}

// The labels are those measured; a run repeating another of its task is
// left out; --drop leaves out the steps with the labels given.
func TestLabelsDedupDrop(t *testing.T) {
	runs := fillRuns(t, t.TempDir())
	out := filepath.Join(t.TempDir(), "ds")
	rep, err := Build(t.Context(), out, sources(runs), Options{Format: AgentNet})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Trajectories != 2 || rep.Duplicates != 1 || rep.Steps != 8 {
		t.Fatalf("%d trajectories, %d duplicates, %d steps; want 2, 1, 8", rep.Trajectories, rep.Duplicates, rep.Steps)
	}
	tasks := readAgentNet(t, out)
	want := [][]string{{"changed"}, {"no_change", "repeated"}, {"changed", "error"}, {"no_change", "refused", "error"}}
	for i, st := range tasks[0].Traj {
		if !slices.Equal(st.Value.Labels, want[i]) {
			t.Errorf("step %d: labels %v, want %v", i+1, st.Value.Labels, want[i])
		}
	}
	if got := tasks[1].Traj[1].Value.Labels; !slices.Equal(got, []string{"changed"}) {
		t.Errorf("the other run's step 2: labels %v, want [changed]", got)
	}
	if rep.Labels[Repeated] != 1 || rep.Labels[Refused] != 2 || rep.Labels[Error] != 4 {
		t.Errorf("label counts %v", rep.Labels)
	}

	kept := filepath.Join(t.TempDir(), "all")
	rep, err = Build(t.Context(), kept, sources(runs), Options{Format: AgentNet, KeepDuplicates: true})
	if err != nil || rep.Trajectories != 3 {
		t.Fatalf("KeepDuplicates: %d trajectories (%v), want 3", rep.Trajectories, err)
	}

	dropped := filepath.Join(t.TempDir(), "dropped")
	rep, err = Build(t.Context(), dropped, sources(runs), Options{Format: AgentNet, Drop: []Label{NoChange, Repeated, Error}})
	if err != nil {
		t.Fatal(err)
	}
	tasks = readAgentNet(t, dropped)
	var steps [][]int
	for _, task := range tasks {
		var n []int
		for _, st := range task.Traj {
			n = append(n, st.Value.Step)
			for _, l := range st.Value.Labels {
				if l == "no_change" || l == "repeated" || l == "error" {
					t.Errorf("%s step %d kept with label %s", task.TaskID, st.Value.Step, l)
				}
			}
		}
		steps = append(steps, n)
	}
	if len(steps) != 2 || !slices.Equal(steps[0], []int{1}) || !slices.Equal(steps[1], []int{1, 2}) {
		t.Errorf("steps kept %v, want [[1] [1 2]]", steps)
	}
	if rep.Dropped[NoChange] != 3 || rep.Dropped[Error] != 2 {
		t.Errorf("dropped %v", rep.Dropped)
	}
	card, err := os.ReadFile(filepath.Join(dropped, CardFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"| trajectories | 2 |", "| steps | 3 |", "| duplicates left out | 1 |", "| no_change | 3 |", "| fake-model | 2 |", "| unknown | 2 |"} {
		if !contains(card, s) {
			t.Errorf("the card lacks %q:\n%s", s, card)
		}
	}
}

// A run of an eval results folder carries its task's id, domain, licence
// and score; the results' trace paths are relative to the folder.
func TestEvalResultsSources(t *testing.T) {
	root := t.TempDir()
	suite := filepath.Join(root, "suite")
	writeJSON(t, filepath.Join(suite, "forms", "t1.json"), map[string]any{"id": "t1", "instruction": "Fill in the form", "license": "apache-2.0"})
	writeJSON(t, filepath.Join(suite, "forms", "t2.json"), map[string]any{"id": "t2", "instruction": "Fill it again"})
	if err := os.WriteFile(filepath.Join(suite, "LICENSE"), []byte("\nMIT License\n\nCopyright...\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(root, "results")
	runs := fillRuns(t, filepath.Join(res, "tasks", "t1"))
	rel1, _ := filepath.Rel(res, runs[0])
	rel2, _ := filepath.Rel(res, runs[2])
	writeJSON(t, filepath.Join(res, evalRunFile), map[string]any{"version": 1, "suite": "suite", "suite_path": suite})
	lines := []map[string]any{
		{"id": "t1", "correct": true, "score": 1.0, "trace": rel1},
		{"id": "t2", "correct": false, "score": 0.25, "trace": rel2},
		{"id": "t3", "correct": false, "score": 0.0, "trace": ""},
	}
	f, err := os.Create(filepath.Join(res, evalResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		json.NewEncoder(f).Encode(l)
	}
	f.Close()
	srcs, err := Sources([]string{filepath.Join(root, "res*")})
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 2 {
		t.Fatalf("%d sources, want 2: %+v", len(srcs), srcs)
	}
	out := filepath.Join(t.TempDir(), "ds")
	if _, err := Build(t.Context(), out, srcs, Options{Format: AgentNet}); err != nil {
		t.Fatal(err)
	}
	tasks := readAgentNet(t, out)
	if len(tasks) != 2 {
		t.Fatalf("%d tasks", len(tasks))
	}
	got := map[string]AgentNetTask{}
	for _, task := range tasks {
		got[task.Domain+"/"+task.Licence] = task
	}
	t1, t2 := got["forms/apache-2.0"], got["forms/MIT License"]
	if t1.Score == nil || *t1.Score != 1 || !t1.TaskCompleted || t2.Score == nil || *t2.Score != 0.25 || t2.TaskCompleted {
		t.Errorf("scores and completion: %+v / %+v", t1, t2)
	}
}

// A folder that holds a dataset already is refused: nothing is mixed in.
func TestBuildRefusesFullFolder(t *testing.T) {
	runs := fillRuns(t, t.TempDir())
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "keep.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(t.Context(), out, sources(runs[:1]), Options{}); err == nil {
		t.Fatal("built into a folder that was not empty")
	}
}

func writeJSON(t *testing.T, p string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func contains(b []byte, s string) bool { return strings.Contains(string(b), s) }

// readAgentNet reads agentnet.jsonl, each line decoded strictly.
func readAgentNet(t *testing.T, dir string) []AgentNetTask {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, AgentNetFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []AgentNetTask
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var task AgentNetTask
		if err := json.Unmarshal(sc.Bytes(), &task); err != nil {
			t.Fatal(err)
		}
		out = append(out, task)
	}
	return out
}
