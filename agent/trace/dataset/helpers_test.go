package dataset

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"sync"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/agent/trace"
)

// stepSpec is one step of a synthesised run.
type stepSpec struct {
	code    string
	acts    []actions.Record
	changed bool
	err     string
	screen  int // which screen the step leaves (a seed of the frame drawn after it)
}

// runSpec is a synthesised run: a real trace.Writer trace with real PNG
// frames (screens of coloured windows, one per seed).
type runSpec struct {
	task, model string
	w, h        int // frame size; 0 = 320x200
	first       int // the seed of the screen before step 1
	steps       []stepSpec
	outcome     string
}

// writeRun records spec under root and returns the trace folder.
func writeRun(t testing.TB, root string, spec runSpec) string {
	t.Helper()
	if spec.w == 0 {
		spec.w, spec.h = 320, 200
	}
	if spec.model == "" {
		spec.model = "fake-model"
	}
	clock := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	w, err := trace.Create(root, trace.Event{Task: spec.task, Model: spec.model, CoordMode: "pixels", Dialect: "code",
		Screen: &trace.Rect{W: spec.w, H: spec.h}, Image: &trace.Size{W: spec.w, H: spec.h}},
		trace.WithClock(func() time.Time { clock = clock.Add(time.Millisecond); return clock }))
	if err != nil {
		t.Fatal(err)
	}
	frame := func(step, seed int) string {
		p, err := w.FrameData(step, screenPNG(t, spec.w, spec.h, seed), "png")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	must := func(e trace.Event) {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	must(trace.Event{Type: trace.TypeObservation, Step: 0, Text: "the screen", Frame: frame(0, spec.first)})
	for i, s := range spec.steps {
		n := i + 1
		must(trace.Event{Type: trace.TypeStepStart, Step: n})
		must(trace.Event{Type: trace.TypeModelOutput, Step: n, Text: "Thought: step " + s.code + "\n```python\n" + s.code + "\n```"})
		must(trace.Event{Type: trace.TypeCode, Step: n, Code: s.code, Text: "I do " + s.code})
		for _, a := range s.acts {
			must(trace.Event{Type: trace.TypeAction, Step: n, Action: &a})
		}
		must(trace.Event{Type: trace.TypeObservation, Step: n, Text: "observed " + s.code, Error: s.err,
			Changed: s.changed, Frame: frame(n, s.screen)})
	}
	outcome := spec.outcome
	if outcome == "" {
		outcome = trace.OutcomeAnswered
	}
	must(trace.Event{Type: trace.TypeRunEnd, Step: len(spec.steps), Outcome: outcome, Steps: len(spec.steps)})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Dir()
}

// screens caches screenPNG's images: benchmarks draw the same ones often.
var screens sync.Map

// screenPNG draws a desktop: a background and three windows placed by seed.
func screenPNG(t testing.TB, w, h, seed int) []byte {
	t.Helper()
	key := [3]int{w, h, seed}
	if b, ok := screens.Load(key); ok {
		return b.([]byte)
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fill := func(r image.Rectangle, c color.RGBA) {
		r = r.Intersect(img.Rect)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				img.SetRGBA(x, y, c)
			}
		}
	}
	fill(img.Rect, color.RGBA{40, 60, 90, 255})
	for k := range 3 {
		v := seed*7919 + k*104729
		x, y := v%(w/2), (v/7)%(h/2)
		fill(image.Rect(x, y, x+w/3, y+h/3), color.RGBA{uint8(200 + k*20), uint8(230 - k*40), uint8(v % 256), 255})
		fill(image.Rect(x+4, y+4, x+w/3-4, y+12), color.RGBA{30, 30, 30, 255})
	}
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	screens.Store(key, b.Bytes())
	return b.Bytes()
}

func click(x, y int) actions.Record {
	return actions.Record{Name: "click", Args: itoa(x) + ", " + itoa(y), Model: &[2]float64{float64(x), float64(y)},
		Screen: &[2]int{x, y}, Result: "clicked", Traits: actions.Traits{Gesture: actions.GestureClick}}
}

func typeText(s string) actions.Record {
	return actions.Record{Name: "type_text", Args: `"` + s + `"`, Traits: actions.Traits{Types: actions.TypesText}}
}

func itoa(v int) string {
	b := []byte{}
	if v == 0 {
		return "0"
	}
	for v > 0 {
		b = append([]byte{byte('0' + v%10)}, b...)
		v /= 10
	}
	return string(b)
}
