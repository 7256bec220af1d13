package trace

import (
	"deskpilot/actions"
	"fmt"
	"testing"
	"time"
)

// BenchmarkWriteStep records one typical step: six events (a 2 KB reply, code, two
// actions, an observation) and one 1366x768 frame, fsync included.
func BenchmarkWriteStep(b *testing.B) {
	w, err := Create(b.TempDir(), sampleStart())
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	frame := desktop(1366, 768, 3)
	reply := fmt.Sprintf("Thought: %s\n```python\nclick(640, 400)\ntype_text(\"hello\")\n```", make([]byte, 0, 2000))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		step := i + 1
		path, err := w.Frame(step, frame)
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range []Event{
			{Type: TypeStepStart, Step: step},
			{Type: TypeModelOutput, Step: step, Text: reply, Usage: &Usage{In: 3000, Out: 60}, DurationMS: 1800, Attempts: 1},
			{Type: TypeCode, Step: step, Code: "click(640, 400)\ntype_text(\"hello\")"},
			{Type: TypeAction, Step: step, Action: &actions.Record{Name: "click", Args: "640, 400", Model: &[2]float64{640, 400}, Screen: &[2]int{640, 400}, Start: time.Now(), Duration: 30 * time.Millisecond}},
			{Type: TypeAction, Step: step, Action: &actions.Record{Name: "type_text", Args: `"hello"`, Duration: 80 * time.Millisecond}},
			{Type: TypeObservation, Step: step, Text: "Screen changed: yes.", Changed: true, Frame: path, SettleMS: 250},
		} {
			if err := w.Write(e); err != nil {
				b.Fatal(err)
			}
		}
	}
}
