package trace_test

import (
	"fmt"
	"image"
	"os"
	"time"

	"deskpilot/agent/trace"
)

// Example records a one-step run and reads it back.
func Example() {
	root, err := os.MkdirTemp("", "traces")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	clock := func() time.Time { return time.Date(2026, 11, 29, 19, 20, 0, 0, time.UTC) }

	w, err := trace.Create(root, trace.Event{
		Task: "What is 6 × 7?", Model: "gpt-4.1-mini", CoordMode: "pixels",
		Screen: trace.RectOf(image.Rect(0, 0, 1366, 768)), Image: trace.SizeOf(image.Pt(1366, 768)),
	}, trace.WithClock(clock), trace.WithSecrets("sk-secret"))
	if err != nil {
		panic(err)
	}
	frame, _ := w.Frame(1, image.NewRGBA(image.Rect(0, 0, 1366, 768)))
	for _, e := range []trace.Event{
		{Type: trace.TypeStepStart, Step: 1},
		{Type: trace.TypeModelOutput, Step: 1, Text: "Easy.\n```python\nfinal_answer(42)\n```", Usage: &trace.Usage{In: 900, Out: 12}},
		{Type: trace.TypeCode, Step: 1, Code: "final_answer(42)", Text: "Easy."},
		{Type: trace.TypeFinalAnswer, Step: 1, Answer: "42"},
		{Type: trace.TypeObservation, Step: 1, Text: "key sk-secret used", Frame: frame},
		{Type: trace.TypeRunEnd, Step: 1, Outcome: trace.OutcomeAnswered, Answer: "42", Steps: 1},
	} {
		if err := w.Write(e); err != nil {
			panic(err)
		}
	}
	if err := w.Close(); err != nil { // also writes report.html
		panic(err)
	}

	list, _ := trace.List(root)
	t, _ := trace.Read(list[0].Dir)
	s := t.Steps[0]
	fmt.Println(list[0].Outcome, list[0].Answer, t.Usage())
	fmt.Printf("step %d: %q %q %q\n", s.Number, s.Thought, s.Code, s.Observation.Text)
	// Output:
	// answered 42 {900 12}
	// step 1: "Easy." "final_answer(42)" "key [redacted] used"
}
