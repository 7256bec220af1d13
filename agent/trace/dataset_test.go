package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"deskpilot/actions"
)

// datasetRowsIn reads dir/metadata.jsonl strictly (unknown columns fail) and
// checks that every row's image exists, decodes and has the stated size.
func datasetRowsIn(t *testing.T, dir string) []DatasetRow {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, DatasetMetadata))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []DatasetRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var r DatasetRow
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("row %d: %v", len(rows)+1, err)
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.FileName)))
		if err != nil {
			t.Fatalf("row %d: %v", len(rows)+1, err)
		}
		img, _, err := decodeImage(data)
		if err != nil {
			t.Fatalf("row %d: image %s: %v", len(rows)+1, r.FileName, err)
		}
		if img.Bounds().Size() != image.Pt(r.ImageWidth, r.ImageHeight) {
			t.Errorf("row %d: image is %v, row says %dx%d", len(rows)+1, img.Bounds().Size(), r.ImageWidth, r.ImageHeight)
		}
		rows = append(rows, r)
	}
	return rows
}

func TestExportDataset(t *testing.T) {
	w, _ := writeSample(t, t.TempDir())
	tr, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	rep, err := ExportDataset(out, []*Trace{tr}, DatasetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != 3 || rep.Replaced != 0 || rep.Rows != 3 || len(rep.Skipped) != 0 || rep.Card != "" {
		t.Errorf("report %+v, want 3 rows added and the card written", rep)
	}
	rows := datasetRowsIn(t, out)
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	names := map[string]bool{}
	for i, r := range rows {
		if r.Step != i+1 || r.Steps != 3 || r.Task != tr.Start.Task || r.Outcome != OutcomeAnswered || r.Actions == nil || r.Redacted == nil {
			t.Errorf("row %d: %+v", i+1, r)
		}
		names[r.FileName] = true
	}
	if len(names) != 3 {
		t.Errorf("image names %v are not unique", names)
	}
	r1, r2 := rows[0], rows[1]
	if r1.ImageSource != "screen" || r2.ImageSource != "model" || r2.Code != "drag(150, 60, 260, 150)\nright_click(400, 50)" {
		t.Errorf("rows 1-2: %+v\n%+v", r1, r2)
	}
	// Step 2's drag at screen (2070, 60) on a display at x=1920, 320 wide,
	// seen in a 320x200 image: image pixel (150, 60).
	if a := r2.Actions[0]; a.Image == nil || *a.Image != [2]int{150, 60} || *a.Screen != [2]int{2070, 60} || *a.Model != [2]float64{150, 60} {
		t.Errorf("drag action %+v", a)
	}
	// The card states the schema.
	card, err := os.ReadFile(filepath.Join(out, DatasetCard))
	if err != nil || !bytes.Contains(card, []byte("| file_name |")) || !bytes.Contains(card, []byte("3 rows")) {
		t.Errorf("card (%v):\n%s", err, card)
	}

	t.Run("export again replaces", func(t *testing.T) {
		rep, err := ExportDataset(out, []*Trace{tr}, DatasetOptions{})
		if err != nil || rep.Added != 0 || rep.Replaced != 3 || rep.Rows != 3 {
			t.Errorf("report %+v, %v; want the 3 rows replaced", rep, err)
		}
		if n := len(datasetRowsIn(t, out)); n != 3 {
			t.Errorf("%d rows after exporting the same trace twice", n)
		}
	})
	t.Run("another trace appends", func(t *testing.T) {
		w2, _ := writeSample(t, t.TempDir(), WithClock(fixedClock(t0.Add(time.Hour), time.Second)))
		tr2, err := Read(w2.Dir())
		if err != nil {
			t.Fatal(err)
		}
		rep, err := ExportDataset(out, []*Trace{tr, tr2}, DatasetOptions{})
		if err != nil || rep.Added != 3 || rep.Replaced != 3 || rep.Rows != 6 {
			t.Errorf("report %+v, %v", rep, err)
		}
		rows := datasetRowsIn(t, out)
		if len(rows) != 6 || rows[3].Trace != filepath.Base(w2.Dir()) || rows[0].FileName == rows[3].FileName {
			t.Errorf("rows after a second trace: %d, %q", len(rows), rows[3].Trace)
		}
	})
	t.Run("someone else's card and a broken metadata file are kept", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, DatasetCard), []byte("# my dataset\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		rep, err := ExportDataset(dir, []*Trace{tr}, DatasetOptions{})
		if err != nil || rep.Card == "" {
			t.Errorf("report %+v, %v; want the card left alone and said so", rep, err)
		}
		if card, _ := os.ReadFile(filepath.Join(dir, DatasetCard)); string(card) != "# my dataset\n" {
			t.Errorf("card overwritten: %q", card)
		}
		meta := filepath.Join(dir, DatasetMetadata)
		broken := []byte("{\"trace\": \"x\", \"step\": 1}\nnot json\n")
		if err := os.WriteFile(meta, broken, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := ExportDataset(dir, []*Trace{tr}, DatasetOptions{}); err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("err = %v, want one naming line 2", err)
		}
		if got, _ := os.ReadFile(meta); !bytes.Equal(got, broken) {
			t.Error("the metadata file was changed")
		}
	})
	t.Run("a symlink in the dataset is replaced, not followed", func(t *testing.T) {
		dir := t.TempDir()
		victim := filepath.Join(t.TempDir(), "victim")
		if err := os.WriteFile(victim, []byte("keep me"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, DatasetImages), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, filepath.Join(dir, DatasetImages, filepath.Base(tr.Dir)+"-0001.png")); err != nil {
			t.Fatal(err)
		}
		if _, err := ExportDataset(dir, []*Trace{tr}, DatasetOptions{}); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(victim); string(got) != "keep me" {
			t.Errorf("the file the symlink pointed to now holds %d bytes", len(got))
		}
	})
}

// secretTrace records a run that clicks a field at screen (300, 200), types
// a secret there, and prints it by mistake (as a run that did not know the
// value was a secret would).
func secretTrace(t *testing.T, secret string) *Trace {
	t.Helper()
	start := Event{Task: "log in", Model: "m", CoordMode: "pixels", Screen: &Rect{W: 640, H: 400}, Image: &Size{W: 640, H: 400}}
	w, err := Create(t.TempDir(), start, WithClock(fixedClock(t0, time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	screen := func(seed int) string {
		img := desktop(640, 400, seed)
		// The field shows text: black marks on white.
		for x := 200; x < 400; x++ {
			for y := 190; y < 210; y++ {
				c := color.RGBA{255, 255, 255, 255}
				if x%7 < 3 && y%5 < 3 {
					c = color.RGBA{0, 0, 0, 255}
				}
				img.SetRGBA(x, y, c)
			}
		}
		p, err := w.Frame(seed, img)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	events := []Event{
		{Type: TypeObservation, Step: 0, Frame: screen(0)},
		{Type: TypeCode, Step: 1, Code: "click(300, 200)\ntype_secret(\"password\")"},
		{Type: TypeAction, Step: 1, Action: &actions.Record{Name: "click", Args: "300, 200", Model: &[2]float64{300, 200}, Screen: &[2]int{300, 200}, Result: "clicked", Traits: clickTraits}},
		{Type: TypeAction, Step: 1, Action: &actions.Record{Name: "type_secret", Args: `"password"`, Result: "typed [redacted]", Traits: secretTraits}},
		{Type: TypeObservation, Step: 1, Frame: screen(1)},
		{Type: TypeCode, Step: 2, Code: "print(x)", Text: "the value is " + secret},
		{Type: TypeObservation, Step: 2, Text: "Printed output:\n" + secret + "\n", Frame: screen(2)},
		{Type: TypeCode, Step: 3, Code: "final_answer(\"done\")"},
		{Type: TypeObservation, Step: 3, Frame: screen(3)},
	}
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
	return tr
}

func TestExportDatasetRedacts(t *testing.T) {
	const secret = "hunter2-Xylophone"
	tr := secretTrace(t, secret)
	out := t.TempDir()
	if _, err := ExportDataset(out, []*Trace{tr}, DatasetOptions{Redact: true, Secrets: []string{secret}}); err != nil {
		t.Fatal(err)
	}
	// No file of the dataset holds the secret.
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("%s holds the secret", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	rows := datasetRowsIn(t, out)
	if len(rows) != 3 || !strings.Contains(rows[1].Observation, Redacted) || !strings.Contains(rows[1].Thought, Redacted) {
		t.Fatalf("rows %+v", rows)
	}
	// Step 1's image was taken before the secret was typed; steps 2 and 3
	// show the field, flattened to one colour.
	field := image.Rect(200, 190, 400, 210)
	for _, r := range rows {
		img := rowImage(t, out, r)
		flat := uniform(img, field)
		switch {
		case r.Step == 1 && (flat || len(r.Redacted) != 0):
			t.Errorf("step 1 was redacted: %v", r.Redacted)
		case r.Step > 1 && (!flat || len(r.Redacted) != 1):
			t.Errorf("step %d: field flat %v, redacted %v", r.Step, flat, r.Redacted)
		}
	}
}

func rowImage(t *testing.T, dir string, r DatasetRow) image.Image {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.FileName)))
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := decodeImage(data)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// uniform reports whether every pixel of r in img has one colour.
func uniform(img image.Image, r image.Rectangle) bool {
	first := img.At(r.Min.X, r.Min.Y)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.At(x, y) != first {
				return false
			}
		}
	}
	return true
}

// The traits the catalogue gives click and type_secret, as their records carry them.
var (
	clickTraits  = actions.Traits{Target: actions.TargetXY, Gesture: actions.GestureClick}
	secretTraits = actions.Traits{Types: actions.TypesSecret}
)

func TestSecretFields(t *testing.T) {
	rec := func(name string, tr actions.Traits, at ...int) actions.Record {
		a := actions.Record{Name: name, Traits: tr}
		if len(at) == 2 {
			a.Screen = &[2]int{at[0], at[1]}
		}
		return a
	}
	move := actions.Traits{Target: actions.TargetXY, Gesture: actions.GestureMove}
	tr := &Trace{Steps: []Step{
		{Number: 1, Actions: []actions.Record{rec("type_secret", secretTraits)}},
		{Number: 2, Actions: []actions.Record{rec("click", clickTraits, 500, 300), rec("move", move, 10, 10), rec("type_secret", secretTraits)}},
		{Number: 3},
	}}
	got := secretFields(tr)
	if len(got[1]) != 0 || len(got[2]) != 1 || len(got[3]) != 2 {
		t.Fatalf("fields %v", got)
	}
	if !image.Pt(100000, 100000).In(got[2][0]) {
		t.Errorf("a secret typed without a click before: %v, want the whole screen", got[2][0])
	}
	if want := image.Rect(180, 272, 820, 328); got[3][1] != want {
		t.Errorf("field %v, want %v (around the click, not the move)", got[3][1], want)
	}
	// Mapped into a half-size image of a display at x=100.
	rects := imageRects([]image.Rectangle{image.Rect(101, 0, 103, 3)}, Rect{X: 100, W: 800, H: 600}, image.Pt(400, 300))
	if len(rects) != 1 || rects[0] != image.Rect(0, 0, 2, 2) {
		t.Errorf("imageRects = %v", rects)
	}
}

// A trace written before action records carried traits is redacted once the
// catalogue's traits are filled in; recorded traits are kept.
func TestFillTraits(t *testing.T) {
	old := func() *Trace {
		return &Trace{Steps: []Step{
			{Number: 1, Actions: []actions.Record{{Name: "click", Screen: &[2]int{300, 200}}, {Name: "type_secret"}}},
			{Number: 2},
		}}
	}
	if got := secretFields(old()); len(got) != 0 {
		t.Fatalf("without traits: %v, want nothing known", got)
	}
	tr := old()
	tr.Steps[0].Actions[0].Gesture = actions.GestureMove // recorded: kept
	tr.FillTraits(map[string]actions.Traits{"click": clickTraits, "type_secret": secretTraits})
	if a := tr.Steps[0].Actions; a[0].Gesture != actions.GestureMove || a[0].Target != "" || a[1] != (actions.Record{Name: "type_secret", Traits: secretTraits}) {
		t.Errorf("filled %+v", a)
	}
	tr = old()
	tr.FillTraits(map[string]actions.Traits{"click": clickTraits, "type_secret": secretTraits})
	if got := secretFields(tr)[2]; len(got) != 1 || !image.Pt(300, 200).In(got[0]) || got[0].Dx() != secretFieldWidth {
		t.Errorf("fields of step 2 %v, want the field around (300, 200)", got)
	}
}
