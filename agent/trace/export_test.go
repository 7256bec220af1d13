package trace

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// exportLines runs Export and decodes its lines.
func exportLines(t *testing.T, tr *Trace, o ExportOptions) []ExportRecord {
	t.Helper()
	var b bytes.Buffer
	if err := Export(tr, &b, o); err != nil {
		t.Fatal(err)
	}
	var out []ExportRecord
	sc := bufio.NewScanner(&b)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var r ExportRecord
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("line %d: %v", len(out)+1, err)
		}
		out = append(out, r)
	}
	return out
}

func TestExport(t *testing.T) {
	w, _ := writeSample(t, t.TempDir())
	tr, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	recs := exportLines(t, tr, ExportOptions{})
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3 (steps 1-3)", len(recs))
	}
	r2 := recs[1]
	want := ExportRecord{
		Trace: filepath.Base(w.Dir()), Task: "Open the calculator and compute 12 × 7",
		Model: "qwen2.5-vl-72b-instruct", CoordMode: "pixels", Step: 2,
		// Step 2's model looked at the downscaled view recorded after step 1.
		Image: filepath.Join(w.Dir(), "frames", "0001-1.png"), ImageSource: "model",
		Thought:     "Drag the result into the notes window.",
		Code:        "drag(150, 60, 260, 150)\nright_click(400, 50)",
		Actions:     tr.Steps[2].Actions,
		Observation: "Error: x=400 is outside the screenshot (0..319)\nScreen changed: no.",
		Error:       "line 2: x=400 is outside the screenshot (0..319)",
		Outcome:     OutcomeAnswered,
	}
	if !reflect.DeepEqual(r2, want) {
		t.Errorf("step 2:\n got %+v\nwant %+v", r2, want)
	}
	if r1 := recs[0]; r1.ImageSource != "screen" || r1.Image != filepath.Join(w.Dir(), "frames", "0000.png") {
		t.Errorf("step 1 image %q (%s), want the initial full-resolution frame", r1.Image, r1.ImageSource)
	}
	if r3 := recs[2]; r3.Answer != "84" || r3.Thought != "The display shows 84." || len(r3.Actions) != 0 || r3.Actions == nil {
		t.Errorf("step 3: %+v", r3)
	}

	t.Run("inline images", func(t *testing.T) {
		recs := exportLines(t, tr, ExportOptions{Format: JSONL, InlineImages: true})
		data, err := os.ReadFile(filepath.Join(w.Dir(), "frames", "0001-1.png"))
		if err != nil {
			t.Fatal(err)
		}
		img := recs[1].Image
		const prefix = "data:image/png;base64,"
		if !strings.HasPrefix(img, prefix) {
			t.Fatalf("image %.40q is not a PNG data URL", img)
		}
		got, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(img, prefix))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("data URL does not hold the frame's bytes (err %v)", err)
		}
	})
	t.Run("unknown format", func(t *testing.T) {
		err := Export(tr, &bytes.Buffer{}, ExportOptions{Format: "csv"})
		if err == nil || !strings.Contains(err.Error(), `"jsonl"`) {
			t.Errorf("err = %v, want one naming the valid formats", err)
		}
	})
	t.Run("missing frame when inlining", func(t *testing.T) {
		if err := os.RemoveAll(filepath.Join(w.Dir(), FramesDir)); err != nil {
			t.Fatal(err)
		}
		if err := Export(tr, &bytes.Buffer{}, ExportOptions{InlineImages: true}); err == nil {
			t.Error("Export inlined a frame that does not exist")
		}
	})
}
