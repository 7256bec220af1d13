package trace

import (
	"deskpilot/actions"
	"image"
	"image/color"
	"sync"
	"testing"
	"time"
)

// t0 is the start of every fixed-clock run.
var t0 = time.Date(2026, 11, 29, 19, 20, 0, 0, time.UTC)

// fixedClock returns a clock that starts at start and advances by step on every call;
// safe for concurrent use.
func fixedClock(start time.Time, step time.Duration) func() time.Time {
	var mu sync.Mutex
	now := start
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t := now
		now = now.Add(step)
		return t
	}
}

// desktop draws a deterministic desktop-like picture: a gradient wallpaper, a window
// with a title bar and rows of "text", and a taskbar. seed shifts the content.
func desktop(w, h, seed int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, color.RGBA{uint8(30 + 40*y/h), uint8(60 + 50*x/w), 120, 255})
		}
	}
	fill := func(r image.Rectangle, c color.RGBA) {
		r = r.Intersect(img.Bounds())
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				img.SetRGBA(x, y, c)
			}
		}
	}
	win := image.Rect(w/8+seed*7%(w/8+1), h/8, w*3/4, h*3/4)
	fill(win, color.RGBA{245, 245, 245, 255})
	fill(image.Rect(win.Min.X, win.Min.Y, win.Max.X, win.Min.Y+h/30+4), color.RGBA{50, 70, 110, 255})
	for row, y := 0, win.Min.Y+h/20+8; y+6 < win.Max.Y; row, y = row+1, y+h/40+6 {
		for x := win.Min.X + 10; x+8 < win.Max.X-10; x += 9 + (x*7+row*13+seed)%5 {
			if (x*31+row*17+seed)%11 != 0 {
				fill(image.Rect(x, y, x+6, y+h/60+2), color.RGBA{40, 40, 40, 255})
			}
		}
	}
	fill(image.Rect(0, h-h/25-4, w, h), color.RGBA{25, 25, 30, 255})
	return img
}

// sampleStart is the run_start of the sample run.
func sampleStart() Event {
	return Event{
		Task:       "Open the calculator and compute 12 × 7",
		Model:      "qwen2.5-vl-72b-instruct",
		BaseURL:    "https://openrouter.ai/api/v1",
		CoordMode:  "pixels",
		Screen:     &Rect{X: 1920, Y: 0, W: 320, H: 200},
		Image:      &Size{W: 320, H: 200},
		MaxSteps:   20,
		AppVersion: "0.1.0",
		HostOS:     "linux/amd64",
	}
}

// writeSample records a three-step run with every event type under root and returns
// the Writer (closed) and the events written after run_start (T left zero).
func writeSample(t testing.TB, root string, opts ...Option) (*Writer, []Event) {
	t.Helper()
	opts = append([]Option{WithClock(fixedClock(t0, 1500*time.Millisecond))}, opts...)
	w, err := Create(root, sampleStart(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	frame := func(step, seed int) string {
		p, err := w.Frame(step, desktop(320, 200, seed))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	f0 := frame(0, 0)
	f1 := frame(1, 1)
	m1 := frame(1, 11)
	f2 := frame(2, 2)
	z2 := frame(2, 22)
	f3 := frame(3, 3)
	at := t0.Add(time.Minute)
	events := []Event{
		{Type: TypeObservation, Step: 0, Text: "Initial screenshot.", Frame: f0},
		{Type: TypeStepStart, Step: 1},
		{Type: TypeModelOutput, Step: 1, Text: "Thought: I will open the calculator from the dock.\n```python\nclick(80, 100)\ntype_text(\"12*7\")\n```", Usage: &Usage{In: 1250, Out: 40}, DurationMS: 2300, Attempts: 1},
		{Type: TypeCode, Step: 1, Code: "click(80, 100)\ntype_text(\"12*7\")", Text: "I will open the calculator from the dock."},
		{Type: TypeAction, Step: 1, Action: &actions.Record{Name: "click", Args: "80, 100", Model: &[2]float64{80, 100}, Screen: &[2]int{2000, 100}, Start: at, Duration: 35 * time.Millisecond, Result: "clicked", Traits: clickTraits}},
		{Type: TypeAction, Step: 1, Action: &actions.Record{Name: "type_text", Args: `"12*7"`, Start: at.Add(time.Second), Duration: 120 * time.Millisecond, Traits: actions.Traits{Types: actions.TypesText}}},
		{Type: TypeObservation, Step: 1, Text: "Screen changed: yes.", Changed: true, Frame: f1, ModelFrame: m1, SettleMS: 310},
		{Type: TypeStepStart, Step: 2},
		{Type: TypeModelOutput, Step: 2, Text: "Drag the result into the notes window.\n```python\ndrag(150, 60, 260, 150)\nright_click(400, 50)\n```", Usage: &Usage{In: 2600, Out: 35}, DurationMS: 1800, Attempts: 2},
		{Type: TypeCode, Step: 2, Code: "drag(150, 60, 260, 150)\nright_click(400, 50)", Text: "Drag the result into the notes window."},
		{Type: TypeAction, Step: 2, Action: &actions.Record{Name: "drag", Args: "150, 60, 260, 150", Model: &[2]float64{150, 60}, Screen: &[2]int{2070, 60}, To: &[2]int{2180, 150}, Start: at.Add(2 * time.Second), Duration: 400 * time.Millisecond, Result: "dragged", Traits: actions.Traits{Target: actions.TargetXY, Gesture: actions.GestureDrag}}},
		{Type: TypeAction, Step: 2, Action: &actions.Record{Name: "right_click", Args: "400, 50", Model: &[2]float64{400, 50}, Error: "x=400 is outside the screenshot (0..319)", Traits: actions.Traits{Target: actions.TargetXY, Gesture: actions.GestureRight}}},
		{Type: TypePaused, Step: 2, Reason: "the mouse moved: person took over"},
		{Type: TypeResumed, Step: 2, Reason: "continue please"},
		{Type: TypeObservation, Step: 2, Text: "Error: x=400 is outside the screenshot (0..319)\nScreen changed: no.", Error: "line 2: x=400 is outside the screenshot (0..319)", Frame: f2, Attachments: []string{z2}, SettleMS: 90},
		{Type: TypeStepStart, Step: 3},
		{Type: TypeModelOutput, Step: 3, Text: "The display shows 84.\n<code>final_answer(\"84\")</code>", Usage: &Usage{In: 3900, Out: 20}, DurationMS: 1500, Attempts: 1},
		{Type: TypeCode, Step: 3, Code: `final_answer("84")`, Text: "The display shows 84."},
		{Type: TypeFinalAnswer, Step: 3, Answer: "84"},
		{Type: TypeObservation, Step: 3, Text: "Final answer given.", Frame: f3},
		{Type: TypeRunEnd, Step: 3, Outcome: OutcomeAnswered, Answer: "84", Steps: 3, Usage: &Usage{In: 7750, Out: 95}, ElapsedMS: 42000},
	}
	for _, e := range events {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w, events
}
