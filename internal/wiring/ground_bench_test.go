package wiring

import (
	"context"
	"image"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"deskpilot/a11y"
	"deskpilot/a11y/atspi"
	"deskpilot/agent"
	"deskpilot/agent/script"
	"deskpilot/internal/config"
	"deskpilot/internal/desktop"
	"deskpilot/internal/proc"
	"deskpilot/internal/testapps"
	"deskpilot/vision"
)

// The grounding benchmarks run the builtins as the model's code calls them
// (an Executor over the real engines and the real screen), on private
// displays. go test -run '^$' -bench Ground -benchtime 10x ./internal/wiring/

// busyDesk is the busy benchmark desktop (as scripts/bench-peers.sh sets it
// up): 1920x1080, openbox and three xterms full of text, returned once they
// are shown and the screen is still.
func busyDesk(b *testing.B) (*desk, *desktop.Desktop) {
	k := startDesk(b, image.Pt(1920, 1080), false)
	// The xterms first have to be up: a blank screen stands still too.
	ctx, cancel := context.WithTimeout(b.Context(), time.Minute)
	defer cancel()
	apps, err := k.d.StartBusy(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, a := range apps {
		b.Cleanup(func() { _ = a.Stop() })
	}
	d, err := desktop.Open(desktop.Options{XDisplay: k.d.Name})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	still(b, d)
	return k, d
}

// still waits until three captures 300 ms apart are the same.
func still(b *testing.B, d *desktop.Desktop) {
	ctx, cancel := context.WithTimeout(b.Context(), time.Minute)
	defer cancel()
	var prev *image.RGBA
	for same := 0; same < 2; {
		f, err := d.Capture(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if prev != nil && slices.Equal(prev.Pix, f.Pix) {
			same++
		} else {
			same = 0
		}
		prev = f
		select {
		case <-ctx.Done():
			b.Fatal("the screen never stood still")
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// execFind runs code, which must find something, and fails the benchmark
// otherwise.
func execFind(b *testing.B, e *script.Executor, code, want string) {
	res := e.Exec(b.Context(), code)
	if res.Err != nil || !strings.Contains(res.Output, want) {
		b.Fatalf("%s: %v, printed %q", code, res.Err, res.Output)
	}
}

// BenchmarkGroundFindText: find_text on the busy screen read from scratch
// (a new reader each time, its engines started beforehand), and on the same
// screen unchanged (the cache), each time from a new capture.
func BenchmarkGroundFindText(b *testing.B) {
	_, d := busyDesk(b)
	deps := script.DesktopDeps{Mapper: vision.NewMapper(d.Target().Bounds, 0, ""), Frames: d}
	const code, want = `print(find_text("services")[0].text)`, "services"
	b.Run("fresh", func(b *testing.B) {
		var cpu time.Duration
		var times []time.Duration
		for b.Loop() {
			b.StopTimer()
			r := newOCR(b)
			if _, err := r.Read(b.Context(), image.NewRGBA(image.Rect(0, 0, 64, 64))); err != nil {
				b.Fatal(err)
			}
			e := script.New(script.Options{}, script.Ground(deps, script.GroundDeps{Text: textReader{r}})...)
			c0, t0 := proc.CPUTime(), time.Now()
			b.StartTimer()
			execFind(b, e, code, want)
			b.StopTimer()
			times = append(times, time.Since(t0))
			cpu += proc.CPUTime() - c0
			r.Close()
			b.StartTimer()
		}
		b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
		reportMedian(b, times)
	})
	b.Run("cached", func(b *testing.B) {
		r := newOCR(b)
		e := script.New(script.Options{}, script.Ground(deps, script.GroundDeps{Text: textReader{r}})...)
		execFind(b, e, code, want)
		c0 := proc.CPUTime()
		var times []time.Duration
		for b.Loop() {
			t0 := time.Now()
			execFind(b, e, code, want)
			times = append(times, time.Since(t0))
		}
		b.ReportMetric(float64((proc.CPUTime()-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
		reportMedian(b, times)
	})
}

// reportMedian reports the median of times in milliseconds.
func reportMedian(b *testing.B, times []time.Duration) {
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
}

// BenchmarkGroundFindElements: find_elements on a GTK dialog (a form of three
// fields and two buttons), the whole visible tree read each call.
func BenchmarkGroundFindElements(b *testing.B) {
	k := startDesk(b, image.Pt(1920, 1080), true)
	app := k.start(b, "zenity", "--forms", "--title", "Bench", "--text", "Account", "--add-entry", "Name",
		"--add-password", "PIN", "--add-entry", "City")
	k.element(b, app, a11y.Query{Name: "OK", Exact: true, Role: "push button"})
	els := newElements(atspi.Options{XDisplay: k.d.Name, IgnoreEnv: true})
	b.Cleanup(func() { els.Close() })
	deps := script.DesktopDeps{Mapper: vision.NewMapper(image.Rectangle{Max: k.size}, 0, "")}
	e := script.New(script.Options{}, script.Ground(deps, script.GroundDeps{Elements: els})...)
	const code = `print([x.name for x in find_elements(role="textbox")])`
	execFind(b, e, code, "City")
	var times []time.Duration
	for b.Loop() {
		t0 := time.Now()
		execFind(b, e, code, "City")
		times = append(times, time.Since(t0))
	}
	reportMedian(b, times)
}

// BenchmarkGroundStep: one console step (print(1): capture, observe, events)
// on a desktop with a GTK dialog, a Tk form and an xmessage, without
// grounding, with set-of-marks, and with set-of-marks plus the a11y and ocr
// layers. The three are run in turn within each iteration, so the machine's
// load falls on them alike, and reported as medians (ms). The screen does not
// change between steps, as while a model thinks.
func BenchmarkGroundStep(b *testing.B) {
	k := startDesk(b, image.Pt(1920, 1080), true)
	testapps.StartForm(b, k.d)
	xm := k.start(b, "xmessage", "-geometry", "+900+600", "-buttons", "Alpha,Bravo,Charlie", "Pick a name")
	k.window(b, xm, "xmessage")
	app := k.start(b, "zenity", "--question", "--title", "Bench", "--text", "Proceed?")
	k.element(b, app, a11y.Query{Name: "Yes", Exact: true, Role: "push button"})
	reader := newOCR(b)
	configs := []struct {
		name string
		s    config.Settings
	}{
		{"plain", config.Settings{}},
		{"marks", config.Settings{Marks: true}},
		{"marks+a11y+ocr", config.Settings{Marks: true, Observe: []string{"a11y", "ocr"}}},
	}
	cons := make([]*agent.Console, len(configs))
	texts := make([]string, len(configs))
	var mu sync.Mutex
	for i, c := range configs {
		s := c.s
		s.XDisplay = k.d.Name
		cfg, err := config.Resolve(s)
		if err != nil {
			b.Fatal(err)
		}
		ready, err := Open(b.Context(), cfg, Options{OCR: reader})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ready.Close() })
		ready.Agent.NoTrace = true // the trace's frames are written off the loop; here they only add noise
		if cons[i], err = ready.Agent.NewConsole(b.Context(), "bench"); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(cons[i].Close)
	}
	times := make([][]time.Duration, len(configs))
	for b.Loop() {
		for i, con := range cons {
			hooks := agent.Hooks{Event: func(e agent.Event) {
				if o, ok := e.(agent.Observed); ok {
					mu.Lock()
					texts[i] = o.Text
					mu.Unlock()
				}
			}}
			t0 := time.Now()
			if err := con.Exec(b.Context(), "print(1)", hooks); err != nil {
				b.Fatal(err)
			}
			times[i] = append(times[i], time.Since(t0))
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for i, c := range configs {
		if c.s.Marks && !strings.Contains(texts[i], `push button "Yes"`) {
			b.Fatalf("%s: no marks in the observation:\n%s", c.name, texts[i])
		}
		slices.Sort(times[i])
		b.ReportMetric(float64(times[i][len(times[i])/2].Microseconds())/1000, c.name+"-median-ms")
	}
}
