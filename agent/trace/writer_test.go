package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRoundTripEveryEventType(t *testing.T) {
	w, written := writeSample(t, t.TempDir())
	tr, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}

	start := sampleStart()
	start.Type, start.V, start.T = TypeRunStart, Version, t0
	if !reflect.DeepEqual(tr.Start, start) {
		t.Errorf("start:\n got %+v\nwant %+v", tr.Start, start)
	}
	// The fixed clock stamps run_start at t0 and each later event 1.5 s after the last.
	var got []Event
	for _, s := range tr.Steps {
		got = append(got, s.Events...)
	}
	if tr.End != nil {
		got = append(got, *tr.End)
	}
	if len(got) != len(written) {
		t.Fatalf("read %d events, wrote %d", len(got), len(written))
	}
	seen := map[Type]bool{TypeRunStart: true}
	for i, want := range written {
		want.T = t0.Add(time.Duration(i+1) * 1500 * time.Millisecond)
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, got[i], want)
		}
		seen[want.Type] = true
	}
	for _, typ := range []Type{TypeRunStart, TypeStepStart, TypeModelOutput, TypeCode, TypeAction,
		TypeObservation, TypePaused, TypeResumed, TypeFinalAnswer, TypeRunEnd} {
		if !seen[typ] {
			t.Errorf("the sample run has no %s event", typ)
		}
	}
}

func TestReadGroupsSteps(t *testing.T) {
	w, _ := writeSample(t, t.TempDir())
	tr, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tr.Steps); n != 4 {
		t.Fatalf("got %d steps, want 4 (0..3)", n)
	}
	s1, s2, s3 := tr.Steps[1], tr.Steps[2], tr.Steps[3]
	checks := []struct {
		name      string
		got, want any
	}{
		{"numbers", []int{tr.Steps[0].Number, s1.Number, s2.Number, s3.Number}, []int{0, 1, 2, 3}},
		{"step 1 thought", s1.Thought, "I will open the calculator from the dock."},
		{"step 3 thought (code tags)", s3.Thought, "The display shows 84."},
		{"step 1 code", s1.Code, "click(80, 100)\ntype_text(\"12*7\")"},
		{"step 1 actions", len(s1.Actions), 2},
		{"step 2 action error", s2.Actions[1].Error, "x=400 is outside the screenshot (0..319)"},
		{"step 1 frame is the initial screenshot", s1.Frame, "frames/0000.png"},
		{"step 2 frame is step 1's", s2.Frame, "frames/0001.png"},
		{"step 2 model frame", s2.ModelFrame, "frames/0001-1.png"},
		{"step 3 frame is step 2's", s3.Frame, "frames/0002.png"},
		{"step 2 observation error", s2.Observation.Error, "line 2: x=400 is outside the screenshot (0..319)"},
		{"step 1 usage", s1.Usage, Usage{In: 1250, Out: 40}},
		{"step 2 model ms", s2.ModelMS, int64(1800)},
		{"step 3 answer", s3.Answer, "84"},
		{"answer", tr.Answer(), "84"},
		{"usage", tr.Usage(), Usage{In: 7750, Out: 95}},
		{"elapsed", tr.Elapsed(), 42 * time.Second},
		{"steps", tr.StepCount(), 3},
		{"outcome", tr.End.Outcome, OutcomeAnswered},
		{"truncated", tr.Truncated, false},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if !reflect.DeepEqual(c.got, c.want) {
				t.Errorf("got %#v, want %#v", c.got, c.want)
			}
		})
	}
}

func TestFrames(t *testing.T) {
	w, err := Create(t.TempDir(), Event{Task: "frames"})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		step int
		path string
	}{{1, "frames/0001.png"}, {1, "frames/0001-1.png"}, {2, "frames/0002.png"}, {1, "frames/0001-2.png"}, {12345, "frames/12345.png"}}
	for i, c := range want {
		img := desktop(64+i, 48, i)
		got, err := w.Frame(c.step, img)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.path {
			t.Errorf("frame %d: path %q, want %q", i, got, c.path)
		}
		f, err := os.Open(filepath.Join(w.Dir(), filepath.FromSlash(got)))
		if err != nil {
			t.Fatal(err)
		}
		dec, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if dec.Bounds().Size() != img.Bounds().Size() || dec.At(10, 10) != img.At(10, 10) {
			t.Errorf("frame %d: decoded %v, pixel %v; wrote %v, pixel %v", i, dec.Bounds(), dec.At(10, 10), img.Bounds(), img.At(10, 10))
		}
	}
	if _, err := w.Frame(-1, desktop(8, 8, 0)); err == nil {
		t.Error("Frame(-1) succeeded")
	}
	var none *image.RGBA
	for _, img := range []image.Image{nil, none, image.NewRGBA(image.Rect(0, 0, 0, 5))} {
		if _, err := w.Frame(3, img); err == nil {
			t.Errorf("Frame(%#v) succeeded", img)
		}
	}
	// Already-encoded frames are stored as they are and numbered with the others.
	data := []byte("\xff\xd8 not decoded, stored verbatim")
	got, err := w.FrameData(2, data, "jpeg")
	if err != nil || got != "frames/0002-1.jpeg" {
		t.Fatalf("FrameData = %q, %v; want frames/0002-1.jpeg", got, err)
	}
	if b, err := os.ReadFile(filepath.Join(w.Dir(), filepath.FromSlash(got))); err != nil || !bytes.Equal(b, data) {
		t.Errorf("stored %q, %v; want the bytes given", b, err)
	}
	if _, err := w.FrameData(3, data, "../x"); err == nil {
		t.Error("FrameData accepted an extension that is not an image type")
	}
	tmp, _ := filepath.Glob(filepath.Join(w.Dir(), FramesDir, "*.tmp"))
	if len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCloseTwiceAndWriteAfterClose(t *testing.T) {
	w, err := Create(t.TempDir(), Event{Task: "close"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.Dir(), ReportFile)); err != nil {
		t.Errorf("no report after Close: %v", err)
	}
	if err := w.Write(Event{Type: TypeStepStart, Step: 1}); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Write after Close: %v, want fs.ErrClosed", err)
	}
	if _, err := w.Frame(1, desktop(8, 8, 0)); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Frame after Close: %v, want fs.ErrClosed", err)
	}
}

func TestWriteRejectsBadTypes(t *testing.T) {
	w, err := Create(t.TempDir(), Event{Task: "types"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, typ := range []Type{"", TypeRunStart} {
		if err := w.Write(Event{Type: typ}); err == nil {
			t.Errorf("Write(type %q) succeeded", typ)
		}
	}
	if _, err := Create(t.TempDir(), Event{Type: TypeStepStart}); err == nil {
		t.Error("Create with a step_start succeeded")
	}
}

func TestCreateFolderNames(t *testing.T) {
	cases := []struct {
		name, task, want string
	}{
		{"plain", "Open the calculator", "20261129T192000Z-open-the-calculator"},
		{"accents folded", "Réserve un café à Zürich", "20261129T192000Z-reserve-un-cafe-a-zurich"},
		{"punctuation collapsed", "  What's 2+2?!  ", "20261129T192000Z-what-s-2-2"},
		{"non-latin dropped", "打开计算器", "20261129T192000Z-run"},
		{"empty", "", "20261129T192000Z-run"},
		{"cut at 40 bytes", "find the cheapest flight from paris to tokyo next week", "20261129T192000Z-find-the-cheapest-flight-from-paris-to"},
		{"path tricks", "../../etc/passwd", "20261129T192000Z-etc-passwd"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, err := Create(t.TempDir(), Event{Task: c.task}, WithClock(func() time.Time { return t0 }))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if got := filepath.Base(w.Dir()); got != c.want {
				t.Errorf("folder %q, want %q", got, c.want)
			}
			if slug := strings.TrimPrefix(filepath.Base(w.Dir()), "20261129T192000Z-"); len(slug) > maxSlug {
				t.Errorf("slug %q longer than %d", slug, maxSlug)
			}
		})
	}
	t.Run("unique", func(t *testing.T) {
		root := t.TempDir()
		var dirs []string
		for range 3 {
			w, err := Create(root, Event{Task: "same"}, WithClock(func() time.Time { return t0 }))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			dirs = append(dirs, filepath.Base(w.Dir()))
		}
		want := []string{"20261129T192000Z-same", "20261129T192000Z-same-2", "20261129T192000Z-same-3"}
		if !reflect.DeepEqual(dirs, want) {
			t.Errorf("folders %q, want %q", dirs, want)
		}
	})
}

func TestConcurrentWriters(t *testing.T) {
	w, err := Create(t.TempDir(), Event{Task: "concurrent"})
	if err != nil {
		t.Fatal(err)
	}
	const goroutines, each = 8, 40
	var wg sync.WaitGroup
	paths := make(chan string, goroutines*each)
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				long := strings.Repeat(fmt.Sprintf("g%d-%d ", g, i), 200) // lines of ~2 KB
				if err := w.Write(Event{Type: TypeObservation, Step: g + 1, Text: long}); err != nil {
					t.Error(err)
				}
				if i%10 == 0 {
					img := desktop(32, 24, i)
					img.SetRGBA(0, 0, color.RGBA{uint8(g), uint8(i), 0, 255}) // a different image each time
					p, err := w.Frame(g%3, img)
					if err != nil {
						t.Error(err)
					}
					paths <- p
				}
			}
		})
	}
	wg.Wait()
	close(paths)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for p := range paths {
		if seen[p] {
			t.Errorf("frame path %s handed out twice", p)
		}
		seen[p] = true
	}
	data, err := os.ReadFile(filepath.Join(w.Dir(), EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	lines := 0
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %d is not an event: %v", lines+1, err)
		}
		lines++
	}
	if want := 1 + goroutines*each; lines != want {
		t.Errorf("%d lines, want %d", lines, want)
	}
}

func TestCleanURL(t *testing.T) {
	cases := []struct{ in, want string }{
		{"https://api.openai.com/v1", "https://api.openai.com/v1"},
		{"https://user:sk-123@host.example/v1", "https://host.example/v1"},
		{"https://generativelanguage.googleapis.com/v1beta/openai/?key=AIza123#frag", "https://generativelanguage.googleapis.com/v1beta/openai/"},
		{"http://localhost:11434/v1", "http://localhost:11434/v1"},
		{"http://[::1", ""},
		{"", ""},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			if got := cleanURL(c.in); got != c.want {
				t.Errorf("cleanURL(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}
