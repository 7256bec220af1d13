package trace

import (
	"bytes"
	"deskpilot/actions"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestReadCutLastLine(t *testing.T) {
	w, _ := writeSample(t, t.TempDir())
	path := filepath.Join(w.Dir(), EventsFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Cut in the middle of the line after step 2's observation (step 3's step_start)
	// and drop everything after it, as if the writer died while writing that line.
	lines := strings.SplitAfter(string(data), "\n")
	var keep strings.Builder
	for _, l := range lines {
		if strings.Contains(l, `"type":"step_start"`) && strings.Contains(l, `"step":3`) {
			keep.WriteString(l[:len(l)/2])
			break
		}
		keep.WriteString(l)
	}
	if err := os.WriteFile(path, []byte(keep.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	tr, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Truncated || tr.Skipped != 0 {
		t.Errorf("Truncated %v Skipped %d, want true 0", tr.Truncated, tr.Skipped)
	}
	if tr.End != nil {
		t.Errorf("End = %+v, want nil", tr.End)
	}
	var numbers []int
	for _, s := range tr.Steps {
		numbers = append(numbers, s.Number)
	}
	if !reflect.DeepEqual(numbers, []int{0, 1, 2}) {
		t.Fatalf("steps %v, want [0 1 2]", numbers)
	}
	s2 := tr.Steps[2]
	if s2.Observation == nil || len(s2.Actions) != 2 || s2.Code == "" || s2.Thought == "" {
		t.Errorf("step 2 incomplete: observation %v, %d actions, code %q, thought %q", s2.Observation, len(s2.Actions), s2.Code, s2.Thought)
	}
	if got := tr.StepCount(); got != 2 {
		t.Errorf("StepCount %d, want 2", got)
	}
	if got, want := tr.Usage(), (Usage{In: 3850, Out: 75}); got != want {
		t.Errorf("Usage %v, want %v (sum of steps)", got, want)
	}
}

// TestReadKilledProcess kills a real writer process with SIGKILL in the middle of a run
// and reads what it left.
func TestReadKilledProcess(t *testing.T) {
	if os.Getenv("DESKPILOT_TRACE_CHILD") != "" {
		t.Skip("in the child")
	}
	root := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestKilledWriterChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "DESKPILOT_TRACE_CHILD="+root)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var dir string
	for {
		// Wait for the child to finish at least three steps; no time limit but the
		// test's own.
		if m, _ := filepath.Glob(filepath.Join(root, "*", EventsFile)); len(m) == 1 {
			dir = filepath.Dir(m[0])
			if tr, err := Read(dir); err == nil && len(tr.Steps) >= 4 {
				break
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("child exited early (%v):\n%s", err, out.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited

	tr, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tr.End != nil || tr.Skipped != 0 {
		t.Errorf("End %v Skipped %d, want nil 0", tr.End, tr.Skipped)
	}
	for i, s := range tr.Steps[:len(tr.Steps)-1] {
		if s.Number != i+1 || s.Observation == nil || s.Code != fmt.Sprintf("click(%d, 10)", s.Number) || len(s.Actions) != 1 {
			t.Errorf("step %d incomplete: %+v", s.Number, s)
		}
	}
}

// TestKilledWriterChild is the writer process of TestReadKilledProcess; it writes steps
// until it is killed.
func TestKilledWriterChild(t *testing.T) {
	root := os.Getenv("DESKPILOT_TRACE_CHILD")
	if root == "" {
		t.Skip("run by TestReadKilledProcess")
	}
	w, err := Create(root, Event{Task: "killed"})
	if err != nil {
		t.Fatal(err)
	}
	for step := 1; ; step++ {
		code := fmt.Sprintf("click(%d, 10)", step)
		for _, e := range []Event{
			{Type: TypeStepStart},
			{Type: TypeModelOutput, Text: "```python\n" + code + "\n```", Usage: &Usage{In: 10, Out: 2}},
			{Type: TypeCode, Code: code},
			{Type: TypeAction, Action: &actions.Record{Name: "click", Screen: &[2]int{step, 10}}},
			{Type: TypeObservation, Text: strings.Repeat("observation ", 100)},
		} {
			e.Step = step
			if err := w.Write(e); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(time.Millisecond)
	}
}

func TestReadRejectsBadFirstLine(t *testing.T) {
	cases := []struct {
		name, content, reason string
	}{
		{"empty", "", "empty file"},
		{"not json", "hello\n", "first line is not a JSON event"},
		{"wrong type", `{"v":1,"type":"step_start","t":"2026-11-29T19:20:00Z","step":1}` + "\n", `first event is "step_start", want "run_start"`},
		{"no version", `{"type":"run_start","t":"2026-11-29T19:20:00Z","step":0}` + "\n", "format version 0, want 1"},
		{"future version", `{"v":2,"type":"run_start","t":"2026-11-29T19:20:00Z","step":0}` + "\n", "format version 2, want 1"},
		{"cut first line", `{"v":1,"type":"run_st`, "first line is not a JSON event"},
		{"blank first line", "\n" + `{"v":1,"type":"run_start","t":"2026-11-29T19:20:00Z","step":0}` + "\n", "first line is not a JSON event"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, EventsFile), []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Read(dir)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FormatError", err)
			}
			if !strings.Contains(err.Error(), c.reason) || fe.Path != filepath.Join(dir, EventsFile) {
				t.Errorf("err = %q (path %q), want reason %q", err, fe.Path, c.reason)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		if _, err := Read(t.TempDir()); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("err = %v, want not-exist", err)
		}
	})
}

func TestReadForwardCompatible(t *testing.T) {
	content := strings.Join([]string{
		`{"v":1,"type":"run_start","t":"2026-11-29T19:20:00Z","step":0,"task":"t","gpu":"new field"}`,
		`{"type":"step_start","t":"2026-11-29T19:20:01Z","step":1,"budget":{"x":1}}`,
		`{"type":"thinking","t":"2026-11-29T19:20:02Z","step":1,"tokens":[1,2,3]}`,
		`this line is damaged`,
		``,
		`{"type":"code","t":"2026-11-29T19:20:03Z","step":1,"code":"wait(1)","lang":"starlark"}`,
		`{"type":"observation","t":"2026-11-29T19:20:04Z","step":"one"}`,
		`{"type":"observation","t":"2026-11-29T19:20:05Z","step":1,"text":"ok"}`,
		`{"type":"run_end","t":"2026-11-29T19:20:06Z","step":1,"outcome":"answered","steps":1,"extra":true}`,
	}, "\n") + "\n"
	tr, err := Parse(strings.NewReader(content))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Skipped != 2 || tr.Truncated {
		t.Errorf("Skipped %d Truncated %v, want 2 false", tr.Skipped, tr.Truncated)
	}
	if len(tr.Steps) != 1 {
		t.Fatalf("%d steps, want 1", len(tr.Steps))
	}
	s := tr.Steps[0]
	var types []Type
	for _, e := range s.Events {
		types = append(types, e.Type)
	}
	if want := []Type{TypeStepStart, "thinking", TypeCode, TypeObservation}; !reflect.DeepEqual(types, want) {
		t.Errorf("event types %v, want %v", types, want)
	}
	if s.Code != "wait(1)" || s.Observation == nil || s.Observation.Text != "ok" || tr.End == nil {
		t.Errorf("step %+v end %+v", s, tr.End)
	}
}

// TestThoughtFromCodeEvent: a step's thought is the one the agent recorded with its
// code (the agent's parser decides what is code), not re-derived from the reply.
func TestThoughtFromCodeEvent(t *testing.T) {
	tr, err := Parse(strings.NewReader(`{"v":1,"type":"run_start","t":"2026-11-29T19:20:00Z","step":0,"task":"x"}
{"type":"model_output","t":"2026-11-29T19:20:01Z","step":1,"text":"Thought: look\n` + "```python\\nclick(1, 2)\\n```" + `"}
{"type":"code","t":"2026-11-29T19:20:01Z","step":1,"code":"click(1, 2)","text":"look"}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Steps) != 1 || tr.Steps[0].Thought != "look" || tr.Steps[0].Code != "click(1, 2)" {
		t.Errorf("steps %+v", tr.Steps)
	}
}

func TestList(t *testing.T) {
	root := t.TempDir()
	mk := func(task string, at time.Time, end *Event) string {
		t.Helper()
		w, err := Create(root, Event{Task: task, Model: "m-" + task}, WithClock(fixedClock(at, time.Second)))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(Event{Type: TypeStepStart, Step: 1}); err != nil {
			t.Fatal(err)
		}
		if end != nil {
			if err := w.Write(*end); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return w.Dir()
	}
	old := mk("old", t0, &Event{Type: TypeRunEnd, Step: 1, Outcome: OutcomeFailed, Steps: 1, Error: "boom"})
	newest := mk("newest", t0.Add(2*time.Hour), &Event{Type: TypeRunEnd, Step: 4, Outcome: OutcomeAnswered, Answer: "42", Steps: 4})
	middle := mk("middle", t0.Add(time.Hour), nil)

	// Things List must skip without stopping.
	corrupt := filepath.Join(root, "20261129T230000Z-corrupt")
	if err := os.Mkdir(corrupt, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(corrupt, EventsFile), []byte("\x00\x01garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "empty-folder"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}

	got, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []Summary{
		{Dir: newest, ID: RunID(newest), Task: "newest", Model: "m-newest", Started: t0.Add(2 * time.Hour), Outcome: OutcomeAnswered, Answer: "42", Steps: 4},
		{Dir: middle, ID: RunID(middle), Task: "middle", Model: "m-middle", Started: t0.Add(time.Hour), Steps: 1},
		{Dir: old, ID: RunID(old), Task: "old", Model: "m-old", Started: t0, Outcome: OutcomeFailed, Steps: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("List:\n got %+v\nwant %+v", got, want)
	}

	t.Run("missing root", func(t *testing.T) {
		got, err := List(filepath.Join(root, "nope"))
		if err != nil || len(got) != 0 {
			t.Errorf("List(missing) = %v, %v; want empty, nil", got, err)
		}
	})
}

func TestStepByNumber(t *testing.T) {
	tr := &Trace{Steps: []Step{{Number: 0}, {Number: 1, Code: "a"}, {Number: 3, Code: "c"}}}
	if s, ok := tr.Step(3); !ok || s.Code != "c" {
		t.Errorf("Step(3) = %+v, %v", s, ok)
	}
	if _, ok := tr.Step(2); ok {
		t.Error("Step(2) found a step that is not there")
	}
}

// A run's id depends on its folder's name alone: the same wherever the folder
// is and however many runs are beside it, and different for another run.
func TestRunIDIsStable(t *testing.T) {
	a := RunID("/x/traces/20261129T212000Z-newest")
	if a != RunID("/elsewhere/20261129T212000Z-newest/") || len(a) != RunIDLen {
		t.Errorf("RunID %q changes with the folder's place", a)
	}
	if a == RunID("/x/traces/20261129T212000Z-newest-2") {
		t.Error("two runs share an id")
	}
	if RunID("") != "" {
		t.Error("a trace read from a stream has an id")
	}
}
