package trace

import (
	"bytes"
	"deskpilot/actions"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// frameFiles lists the files in the trace's frames folder.
func frameFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, FramesDir))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// decodeFrame reads a frame path of a trace as an image.
func decodeFrame(t *testing.T, dir, rel string) image.Image {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return img
}

func TestFrameDedupe(t *testing.T) {
	w, err := Create(t.TempDir(), Event{Task: "dedupe"})
	if err != nil {
		t.Fatal(err)
	}
	still := desktop(640, 400, 1)
	moved := desktop(640, 400, 1)
	moved.SetRGBA(320, 200, color.RGBA{255, 0, 0, 255}) // one pixel differs
	steps := []struct {
		name string
		img  *image.RGBA
		want string
	}{
		{"first frame is written", still, "frames/0000.png"},
		{"same screen: the earlier file", desktop(640, 400, 1), "frames/0000.png"},
		{"one pixel changed: a new file", moved, "frames/0002.png"},
		{"back to the first screen: its file again", still, "frames/0000.png"},
		{"new content", desktop(640, 400, 2), "frames/0004.png"},
		{"other size", desktop(320, 200, 2), "frames/0005.png"},
	}
	var events []Event
	for i, st := range steps {
		got, err := w.Frame(i, st.img)
		if err != nil {
			t.Fatal(err)
		}
		if got != st.want {
			t.Errorf("%s: path %q, want %q", st.name, got, st.want)
		}
		// Whatever file it names holds exactly the frame.
		samePicture(t, decodeFrame(t, w.Dir(), got), st.img)
		events = append(events, Event{Type: TypeObservation, Step: i, Frame: got})
	}
	if got := frameFiles(t, w.Dir()); len(got) != 4 {
		t.Errorf("frames folder holds %q, want 4 files", got)
	}

	// Model frames (bytes as sent) are deduplicated the same way, per extension.
	jpegish := []byte("\xff\xd8 pretend jpeg")
	a, _ := w.FrameData(1, jpegish, "jpeg")
	b, _ := w.FrameData(2, bytes.Clone(jpegish), "jpeg")
	c, _ := w.FrameData(2, jpegish, "webp")
	if a != "frames/0001.jpeg" || b != a || c != "frames/0002-1.webp" {
		t.Errorf("FrameData paths %q %q %q; want frames/0001.jpeg twice, then frames/0002-1.webp", a, b, c)
	}

	// The reader resolves every observation's frame, repeated paths included.
	for _, e := range events {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range steps[:len(steps)-1] {
		s, ok := tr.Step(i + 1)
		if !ok || s.Frame != st.want {
			t.Fatalf("step %d: Frame %q (found %v), want %q", i+1, s.Frame, ok, st.want)
		}
		samePicture(t, decodeFrame(t, w.Dir(), s.Frame), st.img)
	}
}

// samePicture fails unless got has want's size and pixels.
func samePicture(t *testing.T, got image.Image, want *image.RGBA) {
	t.Helper()
	if got.Bounds().Size() != want.Rect.Size() {
		t.Fatalf("size %v, want %v", got.Bounds().Size(), want.Rect.Size())
	}
	for y := range want.Rect.Dy() {
		for x := range want.Rect.Dx() {
			r, g, b, a := got.At(got.Bounds().Min.X+x, got.Bounds().Min.Y+y).RGBA()
			if c := (color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}); c != want.RGBAAt(x, y) {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, c, want.RGBAAt(x, y))
			}
		}
	}
}

// TestTraceGrowthUnchangedScreen records a run on a screen that does not change
// (1920x1080 frame and the 1366x768 model frame the same every step) and checks that
// a step adds at most 50 KB to the folder: events only, no image again.
func TestTraceGrowthUnchangedScreen(t *testing.T) {
	w, err := Create(t.TempDir(), sampleStart())
	if err != nil {
		t.Fatal(err)
	}
	full := desktop(1920, 1080, 4)
	var model bytes.Buffer
	if err := png.Encode(&model, desktop(1366, 768, 4)); err != nil {
		t.Fatal(err)
	}
	const steps = 20
	var after1 int64
	for step := 1; step <= steps; step++ {
		writeFrameStep(t, w, step, full, model.Bytes())
		if step == 1 {
			after1 = dirSize(t, w.Dir())
		}
	}
	grown := dirSize(t, w.Dir()) - after1
	perStep := grown / (steps - 1)
	t.Logf("first step %d KB (frames included), then %d bytes per step", after1/1024, perStep)
	if perStep > 50<<10 {
		t.Errorf("the trace grows %d bytes per step on an unchanged screen, want at most 50 KB", perStep)
	}
	if got := frameFiles(t, w.Dir()); len(got) != 2 {
		t.Errorf("frames folder holds %q, want the full frame and the model frame of step 1", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeStep records one typical step: its events, the full frame and the model frame.
func writeFrameStep(t testing.TB, w *Writer, step int, full image.Image, model []byte) {
	t.Helper()
	frame, err := w.Frame(step, full)
	if err != nil {
		t.Fatal(err)
	}
	mf, err := w.FrameData(step, model, "png")
	if err != nil {
		t.Fatal(err)
	}
	reply := "Thought: the dialog is still loading, so I wait and look again.\n```python\nwait(1)\n```"
	for _, e := range []Event{
		{Type: TypeStepStart, Step: step},
		{Type: TypeModelOutput, Step: step, Text: reply, Usage: &Usage{In: 3000, Out: 60}, DurationMS: 1800, Attempts: 1},
		{Type: TypeCode, Step: step, Code: "wait(1)", Text: "the dialog is still loading, so I wait and look again."},
		{Type: TypeAction, Step: step, Action: &actions.Record{Name: "wait", Args: "1", Duration: time.Second}},
		{Type: TypeObservation, Step: step, Text: "Screen changed: no.", Frame: frame, ModelFrame: mf, SettleMS: 30},
	} {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
}

// dirSize is the total size of the files under dir.
func dirSize(t testing.TB, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n += info.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReadTraceWrittenBeforeDedupe reads a trace from before frames were shared
// between steps (every observation its own file) and checks that every step's frame
// still resolves to a file that decodes, and that the report links them all.
func TestReadTraceWrittenBeforeDedupe(t *testing.T) {
	dir := filepath.Join("testdata", "v1-frame-per-step")
	tr, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int][2]string{
		1: {"frames/0000.png", ""},
		2: {"frames/0001.png", "frames/0001-1.png"},
		3: {"frames/0002.png", ""},
	}
	for n, w := range want {
		s, ok := tr.Step(n)
		if !ok || s.Frame != w[0] || s.ModelFrame != w[1] {
			t.Errorf("step %d: Frame %q, ModelFrame %q (found %v); want %q", n, s.Frame, s.ModelFrame, ok, w)
			continue
		}
		for _, rel := range []string{s.Frame, s.ModelFrame} {
			if rel != "" {
				decodeFrame(t, dir, rel)
			}
		}
	}
	var html bytes.Buffer
	if err := Report(tr, &html); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"frames/0000.png", "frames/0001.png", "frames/0002.png", "frames/0002-1.png"} {
		if !bytes.Contains(html.Bytes(), []byte(rel)) {
			t.Errorf("report does not show %s", rel)
		}
	}
}
