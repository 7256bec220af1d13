package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"deskpilot/agent/trace"
	"deskpilot/internal/testapps"
)

// A run types a secret into the form (DESKPILOT_SECRET_PASSWORD); the
// dataset exported with --redact holds it nowhere, and the field it went into
// is flat in every image taken after it was typed.
func TestExportRedactsTypedSecret(t *testing.T) {
	const secret = "S3cret-Value-42"
	traces := isolate(t)
	t.Setenv("DESKPILOT_SECRET_PASSWORD", secret)
	d := attachDisplay(t)
	form := testapps.StartForm(t, d)
	defer closeForm(t, d)
	rec := recordFill(t, traces, form, `type_secret("password")`)
	if name, _, err := form.Saved(); err != nil || name != secret {
		t.Fatalf("the run saved %q (%v): the secret was not typed", name, err)
	}
	field, err := form.Widget("name")
	if err != nil {
		t.Fatal(err)
	}
	field = field.Inset(3) // the text, not the border
	art := artifactsDir(t) // $DESKPILOT_ARTIFACTS keeps the datasets to look at
	plain, redacted := filepath.Join(art, "plain"), filepath.Join(art, "redacted")
	if out, code := cli(t, "", "traces", "export", rec, "--format", "dataset", "-o", plain); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if out, code := cli(t, "", "traces", "export", rec, "--format", "dataset", "--redact", "-o", redacted); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	filepath.WalkDir(redacted, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if data, _ := os.ReadFile(p); bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds the secret", p)
			}
		}
		return err
	})
	rowsPlain, rowsRed := datasetRows(t, plain), datasetRows(t, redacted)
	if len(rowsRed) != 3 || len(rowsPlain) != 3 {
		t.Fatalf("%d and %d rows, want 3", len(rowsPlain), len(rowsRed))
	}
	for i, r := range rowsRed {
		scale := func(image.Image) image.Rectangle { // the field in the row's image
			return image.Rect(field.Min.X*r.ImageWidth/1280, field.Min.Y*r.ImageHeight/800,
				field.Max.X*r.ImageWidth/1280, field.Max.Y*r.ImageHeight/800)
		}
		red := decodePNG(t, filepath.Join(redacted, r.FileName))
		orig := decodePNG(t, filepath.Join(plain, rowsPlain[i].FileName))
		if r.Step == 1 {
			continue // taken before the secret was typed
		}
		// The last image (after Save) shows the secret in the plain export;
		// the one before may show a click mark there.
		if r.Step == 3 && flatIn(orig, scale(orig)) {
			t.Errorf("step %d: the plain export shows nothing in the field: the test proves nothing", r.Step)
		}
		if !flatIn(red, scale(red)) || len(r.Redacted) == 0 {
			t.Errorf("step %d: the field is not flattened (redacted %v)", r.Step, r.Redacted)
		}
	}
	if out, _ := cli(t, "", "traces", "show", rec); strings.Contains(out, secret) {
		t.Errorf("traces show prints the secret:\n%s", out)
	}
}

// Code in a trace may hold escape sequences and carriage returns that would
// hide a line of it on the terminal: the step prompt shows escapes, and each
// line of code as Starlark reads it.
func TestReplayPromptShowsControlCharacters(t *testing.T) {
	traces := isolate(t)
	dir := writeTrace(t, traces, "print(\"hello\")  # \x1b[2K\x1b[1A tidy\rfinal_answer(\"pwned\")")
	out, code := cli(t, "q\n", "replay", dir, "--trace-dir", traces)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	// Starlark reads a carriage return as a line break: the line it hid is
	// shown as the line of code it is.
	if !strings.Contains(out, "# \\x1b[2K\\x1b[1A tidy\n  final_answer(\"pwned\")\n") || !strings.Contains(out, "run this step?") {
		t.Errorf("the prompt does not show the escapes:\n%q", out)
	}
	if strings.ContainsAny(out, "\x1b\r") {
		t.Errorf("raw control characters reached the terminal:\n%q", out)
	}
	if strings.Contains(out, "final_answer: pwned") || strings.Count(out, "pwned") != 1 {
		t.Errorf("the step ran after q")
	}
}

// Replay applies the safety policy of a run: launch asks, nobody at a
// terminal means no, --yes approves.
func TestReplayAsksBeforeLaunch(t *testing.T) {
	traces := isolate(t)
	d := attachDisplay(t)
	const title = "dp-replay-launch"
	dir := writeTrace(t, traces, fmt.Sprintf("launch(\"xterm -title %s\")", title))
	out, code := cli(t, "y\n", "replay", dir, "--trace-dir", traces)
	if code != exitFailed || !strings.Contains(out, "refused") {
		t.Errorf("without --yes: exit %d, want 1 and a refusal:\n%s", code, out)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	if _, err := d.WaitWindow(ctx, title); err == nil {
		t.Error("xterm started without approval")
	}
	cancel()
	out, code = cli(t, "", "replay", dir, "--yes", "--trace-dir", traces)
	if code != 0 {
		t.Fatalf("--yes: exit %d:\n%s", code, out)
	}
	ctx, cancel = context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := d.WaitWindow(ctx, title); err != nil {
		t.Errorf("xterm did not start with --yes: %v\n%s", err, out)
	}
	closeWindows(t, d, title)
}

// writeTrace records a one-step trace whose step ran code (no frames).
func writeTrace(t *testing.T, traces, code string) string {
	t.Helper()
	w, err := trace.Create(traces, trace.Event{Task: "crafted", CoordMode: "pixels",
		Screen: &trace.Rect{W: 1280, H: 800}, Image: &trace.Size{W: 1280, H: 800}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []trace.Event{
		{Type: trace.TypeCode, Step: 1, Code: code},
		{Type: trace.TypeObservation, Step: 1, Text: "Screen changed: no."},
		{Type: trace.TypeRunEnd, Step: 1, Outcome: trace.OutcomeAnswered, Steps: 1},
	} {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Dir()
}

// datasetRows reads a dataset's metadata.jsonl.
func datasetRows(t *testing.T, dir string) []trace.DatasetRow {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, trace.DatasetMetadata))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []trace.DatasetRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r trace.DatasetRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("row %d: %v", len(rows)+1, err)
		}
		rows = append(rows, r)
	}
	return rows
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// flatIn reports whether r of img holds one colour.
func flatIn(img image.Image, r image.Rectangle) bool {
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
