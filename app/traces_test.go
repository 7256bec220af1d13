package app

import (
	"image"
	"image/color"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"deskpilot/actions"
	"deskpilot/agent/trace"
)

// writeTrace records a two-step run at 2× HiDPI (screen 200×100, frames 100×50).
func writeTrace(t *testing.T, root string) string {
	t.Helper()
	w, err := trace.Create(root, trace.Event{Task: "Rename the files", Model: "vision-7b", T: runStart,
		Screen: &trace.Rect{W: 200, H: 100}, Image: &trace.Size{W: 100, H: 50}, MaxSteps: 30})
	if err != nil {
		t.Fatal(err)
	}
	frame := func(step int, c color.RGBA) string {
		rel, err := w.Frame(step, solid(100, 50, c))
		if err != nil {
			t.Fatal(err)
		}
		return rel
	}
	at := func(s int) time.Time { return runStart.Add(time.Duration(s) * time.Second) }
	events := []trace.Event{
		{Type: trace.TypeObservation, T: at(1), Step: 0, Text: "initial", Frame: frame(0, color.RGBA{0, 0, 255, 255})},
		{Type: trace.TypeStepStart, T: at(2), Step: 1},
		{Type: trace.TypeModelOutput, T: at(3), Step: 1, Text: "Thought: open the folder\n```python\ndouble_click(20, 10)\n```",
			Usage: &trace.Usage{In: 900, Out: 40}, DurationMS: 1000},
		{Type: trace.TypeCode, T: at(3), Step: 1, Code: "double_click(20, 10)"},
		{Type: trace.TypeAction, T: at(4), Step: 1, Action: &actions.Record{Name: "double_click", Args: "20, 10", Screen: &[2]int{40, 20}}},
		{Type: trace.TypeObservation, T: at(5), Step: 1, Text: "the folder opened", Changed: true, Frame: frame(1, color.RGBA{0, 255, 0, 255})},
		{Type: trace.TypeStepStart, T: at(6), Step: 2},
		{Type: trace.TypeModelOutput, T: at(7), Step: 2, Text: "Done.\n```python\nfinal_answer(\"renamed 3 files\")\n```"},
		{Type: trace.TypeCode, T: at(7), Step: 2, Code: `final_answer("renamed 3 files")`},
		{Type: trace.TypeFinalAnswer, T: at(7), Step: 2, Answer: "renamed 3 files"},
		{Type: trace.TypeObservation, T: at(8), Step: 2, Text: "final answer given"},
		{Type: trace.TypeRunEnd, T: at(9), Step: 2, Outcome: trace.OutcomeAnswered, Answer: "renamed 3 files", Steps: 2, ElapsedMS: 9000},
	}
	for _, e := range events {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Dir()
}

func TestRunsView(t *testing.T) {
	h := newHarness(t, configured(t))
	dir := writeTrace(t, h.u.deps.TraceRoot)
	tv := h.u.tv
	h.u.tabs.Select(h.u.runsTab) // lists in the background
	h.q.waitFor(t, "the trace list", func() bool { return len(tv.items) == 1 })
	if s := tv.items[0]; s.Task != "Rename the files" || s.Outcome != "answered" || s.Steps != 2 {
		t.Fatalf("listed %+v", s)
	}
	if line := summaryLine(tv.items[0]); !strings.Contains(line, "answered  ·  2 steps  ·  vision-7b") {
		t.Errorf("summary line %q", line)
	}
	tv.list.Select(0)
	if !tv.detail.Visible() || tv.title.Text != "Rename the files" || tv.answer.Text != "renamed 3 files" {
		t.Fatalf("detail: visible=%v title=%q answer=%q", tv.detail.Visible(), tv.title.Text, tv.answer.Text)
	}
	if tv.stepInfo.Text != "Step 1 of 2" || tv.card.thought.Text != "open the folder" || !tv.prev.Disabled() {
		t.Errorf("step 1: info=%q thought=%q", tv.stepInfo.Text, tv.card.thought.Text)
	}
	// The frame the model saw before step 1, with the double click marked at
	// screen (40, 20) = image (20, 10).
	img, ok := tv.frame.Image.(*image.RGBA)
	if !ok || !tv.frame.Visible() {
		t.Fatalf("no frame shown for step 1 (%T)", tv.frame.Image)
	}
	if c := img.RGBAAt(20, 10); c.B == 255 && c.R == 0 {
		t.Error("the action is not marked on the frame")
	}
	if c := img.RGBAAt(90, 45); c != (color.RGBA{0, 0, 255, 255}) {
		t.Errorf("frame pixel far from the mark = %v, want the recorded blue", c)
	}
	test.Tap(tv.next)
	if tv.stepInfo.Text != "Step 2 of 2" || tv.card.code.block.Text() != `final_answer("renamed 3 files")` || !tv.next.Disabled() {
		t.Errorf("step 2: info=%q code=%q", tv.stepInfo.Text, tv.card.code.block.Text())
	}
	test.Tap(tv.prev)
	tv.after.SetChecked(true)
	if img, _ := tv.frame.Image.(*image.RGBA); img == nil || img.RGBAAt(50, 25) != (color.RGBA{0, 255, 0, 255}) {
		t.Error("'screen after the step' does not show step 1's observation frame")
	}
	test.Tap(tv.report)
	h.q.waitFor(t, "the report to open", func() bool { return len(h.app.openedFiles()) == 1 })
	if got := h.app.openedFiles(); !strings.HasSuffix(got[0], dir+"/report.html") {
		t.Errorf("opened %v", got)
	}
}

func TestRunsViewEmpty(t *testing.T) {
	h := newHarness(t, configured(t))
	h.u.tabs.Select(h.u.runsTab)
	h.q.waitFor(t, "the trace list", func() bool { return !strings.HasPrefix(h.u.tv.listNote.Text, "Loading") })
	if !strings.HasPrefix(h.u.tv.listNote.Text, "No runs yet") {
		t.Errorf("note = %q", h.u.tv.listNote.Text)
	}
}

func TestLoadFrameStaysInsideTrace(t *testing.T) {
	for _, rel := range []string{"../secret.png", "/etc/passwd", ""} {
		if loadFrame(t.TempDir(), rel) != nil {
			t.Errorf("loadFrame(%q) read outside the trace", rel)
		}
	}
}
