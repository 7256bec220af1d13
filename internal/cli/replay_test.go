package cli

import (
	"context"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/trace"
	"deskpilot/internal/testapps"
	"deskpilot/vision"
	"deskpilot/vision/screen"
	"deskpilot/vision/xdisplay"
)

// A person at the form: a recorded run fills in the name and saves it; then
// the run is replayed, replayed after the window moved (stopping, then
// adapting), turned into a script, edited and played, and exported as a
// dataset. Each replay drives a fresh form app, whose output proves the
// effect.
func TestReplayPlayAndExport(t *testing.T) {
	traces := isolate(t)
	d := attachDisplay(t)
	first := testapps.StartForm(t, d)
	rec := recordFill(t, traces, first, `type_text("Ada Lovelace")`)
	if name, _, err := first.Saved(); err != nil || name != "Ada Lovelace" {
		t.Fatalf("the recorded run saved %q (%v)", name, err)
	}
	closeForm(t, d)

	t.Run("replay repeats the effect", func(t *testing.T) {
		form := testapps.StartForm(t, d)
		defer closeForm(t, d)
		out, code := cli(t, "", "replay", rec, "--yes", "--trace-dir", traces)
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if name, _, err := form.Saved(); err != nil || name != "Ada Lovelace" {
			t.Errorf("the replay saved %q (%v)\n%s", name, err, out)
		}
		if !strings.Contains(out, "checkpoint(1): the screen looks") {
			t.Errorf("the replay does not report its checks:\n%s", out)
		}
	})
	t.Run("replay stops when the window moved, --adapt finds it", func(t *testing.T) {
		form := testapps.StartForm(t, d)
		defer closeForm(t, d)
		moveForm(t, d, form, image.Pt(640, 380))
		before := formPixels(t, form)
		out, code := cli(t, "", "replay", rec, "--yes", "--trace-dir", traces)
		if code != exitDiverged {
			t.Fatalf("exit %d, want 4:\n%s", code, out)
		}
		// No click: the form looks as before (a click in the name field
		// would have shown its caret).
		if after := formPixels(t, form); !vision.Same(before, after, nil) {
			t.Error("the form changed during the stopped replay")
		}
		for _, want := range []string{"step 1 does not look as recorded", "click target (", "looks ", "--adapt acts there"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		if acts := newestActions(t, traces); strings.Join(acts, ",") != "checkpoint" {
			t.Errorf("the stopped replay ran %v, want only the checkpoint", acts)
		}
		time.Sleep(500 * time.Millisecond)
		if _, err := os.Stat(form.Out); err == nil {
			t.Error("the form was saved: the replay clicked")
		}

		out, code = cli(t, "", "replay", rec, "--yes", "--adapt", "--trace-dir", traces)
		if code != 0 {
			t.Fatalf("--adapt: exit %d:\n%s", code, out)
		}
		if !strings.Contains(out, "acting there") || !strings.Contains(out, "target moved") {
			t.Errorf("--adapt does not say it moved the clicks:\n%s", out)
		}
		if name, _, err := form.Saved(); err != nil || name != "Ada Lovelace" {
			t.Errorf("the adapted replay saved %q (%v)\n%s", name, err, out)
		}
	})
	t.Run("a script, edited by hand, plays", func(t *testing.T) {
		form := testapps.StartForm(t, d)
		defer closeForm(t, d)
		star := filepath.Join(t.TempDir(), "run.star")
		if out, code := cli(t, "", "traces", "script", rec, "-o", star); code != 0 {
			t.Fatalf("traces script: exit %d:\n%s", code, out)
		}
		src, err := os.ReadFile(star)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "checkpoint(1)\nclick(") || !strings.Contains(string(src), "# deskpilot-trace: ") {
			t.Fatalf("script:\n%s", src)
		}
		edited := strings.Replace(string(src), "Ada Lovelace", "Grace Hopper", 1)
		if err := os.WriteFile(star, []byte(edited), 0o600); err != nil {
			t.Fatal(err)
		}
		out, code := cli(t, "", "play", star, "--yes", "--trace-dir", traces)
		if code != 0 || !strings.Contains(out, "saved the form") {
			t.Fatalf("play: exit %d:\n%s", code, out)
		}
		if name, _, err := form.Saved(); err != nil || name != "Grace Hopper" {
			t.Errorf("the played script saved %q (%v)\n%s", name, err, out)
		}
		// Played again, the form already shows the name: checkpoint(1) stops
		// the script before it types a second time.
		out, code = cli(t, "", "play", star, "--yes", "--trace-dir", traces)
		if code != exitDiverged {
			t.Errorf("second play: exit %d, want 4:\n%s", code, out)
		}
		if name, _, _ := form.Saved(); name != "Grace Hopper" {
			t.Errorf("after the stopped play the form holds %q", name)
		}
	})
	t.Run("dataset", func(t *testing.T) {
		ds := filepath.Join(t.TempDir(), "ds")
		for range 2 { // exporting twice adds nothing
			if out, code := cli(t, "", "traces", "export", rec, "--format", "dataset", "-o", ds); code != 0 {
				t.Fatalf("exit %d:\n%s", code, out)
			}
		}
		rows := datasetRows(t, ds)
		if len(rows) != 3 {
			t.Fatalf("%d rows, want 3 (one per step)", len(rows))
		}
		for i, r := range rows {
			img := decodePNG(t, filepath.Join(ds, r.FileName))
			if r.Step != i+1 || img.Bounds().Dx() != r.ImageWidth || r.Task == "" {
				t.Errorf("row %d: %+v", i+1, r)
			}
		}
		if a := rows[0].Actions; len(a) != 2 || a[0].Name != "click" || a[0].Screen == nil || a[0].Image == nil || a[0].Model == nil {
			t.Errorf("row 1 actions %+v", a)
		}
	})
}

// recordFill records `deskpilot run` filling the form's name with the code
// typed and saving it, and returns the trace folder.
func recordFill(t *testing.T, traces string, form *testapps.Form, typed string) string {
	t.Helper()
	think := func() { time.Sleep(600 * time.Millisecond) } // see TestFillFormEndToEnd
	srv := llmtest.New(t,
		llmtest.Reply{Func: func(req llmtest.Request) string {
			return fmt.Sprintf("Thought: the name field.\n```python\nclick(%s)\n%s\n```", formClick(t, form, "name", req), typed)
		}},
		llmtest.Reply{Func: func(req llmtest.Request) string {
			think()
			return fmt.Sprintf("Thought: save.\n```python\nclick(%s)\n```", formClick(t, form, "save", req))
		}},
		reply(`final_answer("saved the form")`),
	)
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "--json", "-q", "Fill in the form and save it")
	if code != 0 {
		t.Fatalf("run: exit %d:\n%s", code, out)
	}
	sums, err := trace.List(traces)
	if err != nil || len(sums) == 0 {
		t.Fatalf("no trace: %v", err)
	}
	return sums[0].Dir
}

// formClick is where a model clicks to hit a form widget in the newest image.
func formClick(t *testing.T, form *testapps.Form, widget string, req llmtest.Request) string {
	imgs := req.Images()
	if len(imgs) == 0 {
		t.Error("request without an image")
		return "0, 0"
	}
	at, err := form.Click(widget, imgs[len(imgs)-1].Size, image.Pt(1280, 800), "pixels")
	if err != nil {
		t.Error(err)
	}
	return at
}

func attachDisplay(t *testing.T) *xdisplay.Display {
	t.Helper()
	d, err := xdisplay.Attach("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// closeForm kills every form window on d and waits until none is left.
func closeForm(t *testing.T, d *xdisplay.Display) {
	t.Helper()
	closeWindows(t, d, testapps.FormTitle)
}

// closeWindows kills the clients of the windows whose title holds title.
func closeWindows(t *testing.T, d *xdisplay.Display, title string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		ws, err := d.Windows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		left := 0
		for _, w := range ws {
			if strings.Contains(w.Title, title) {
				left++
				_ = d.Command(ctx, "xdotool", "windowkill", fmt.Sprint(w.ID)).Run()
			}
		}
		if left == 0 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("windows %q did not close", title)
}

// moveForm moves the form window's top-left corner to at and waits until
// the app reports its new, settled layout.
func moveForm(t *testing.T, d *xdisplay.Display, form *testapps.Form, at image.Point) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := d.WaitWindow(ctx, testapps.FormTitle)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := form.Widget("save")
	cmd := d.Command(ctx, "xdotool", "windowmove", fmt.Sprint(w.ID), fmt.Sprint(at.X), fmt.Sprint(at.Y))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool: %v %s", err, out)
	}
	var last image.Rectangle
	for stable := 0; stable < 4; time.Sleep(150 * time.Millisecond) {
		if ctx.Err() != nil {
			t.Fatal("the form did not move")
		}
		r, err := form.Widget("save")
		switch {
		case err != nil || r == before:
			stable = 0
		case r == last:
			stable++
		default:
			last, stable = r, 0
		}
	}
}

// formPixels captures the form window's area of the screen.
func formPixels(t *testing.T, form *testapps.Form) *image.RGBA {
	t.Helper()
	sc, err := screen.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	name, err := form.Widget("name")
	if err != nil {
		t.Fatal(err)
	}
	save, err := form.Widget("save")
	if err != nil {
		t.Fatal(err)
	}
	area, err := sc.Capture(t.Context(), name.Union(save).Inset(-20))
	if err != nil {
		t.Fatal(err)
	}
	return vision.Crop(area, area.Rect)
}

// newestActions lists the action names of the newest trace under traces.
func newestActions(t *testing.T, traces string) []string {
	t.Helper()
	sums, err := trace.List(traces)
	if err != nil || len(sums) == 0 {
		t.Fatalf("no trace: %v", err)
	}
	tr, err := trace.Read(sums[0].Dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range tr.Steps {
		for _, a := range s.Actions {
			names = append(names, a.Name)
		}
	}
	return names
}

// The pointer resting on a recorded click's target lights the control up
// (Tk's active background): the replay leaves the highlight out of its check
// and repeats the click, which saves the form. A run recorded with the
// pointer elsewhere is the recording.
func TestReplayPointerOnTarget(t *testing.T) {
	traces := isolate(t)
	d := attachDisplay(t)
	first := testapps.StartForm(t, d)
	srv := llmtest.New(t,
		llmtest.Reply{Func: func(req llmtest.Request) string {
			return fmt.Sprintf("Thought: save.\n```python\nclick(%s)\n```", formClick(t, first, "save", req))
		}},
		reply(`final_answer("saved the form")`),
	)
	park(t, 5, 5)
	if out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "--json", "-q", "Save the form"); code != 0 {
		t.Fatalf("run: exit %d:\n%s", code, out)
	}
	sums, err := trace.List(traces)
	if err != nil || len(sums) == 0 {
		t.Fatalf("no trace: %v", err)
	}
	rec := sums[0].Dir
	closeForm(t, d)

	park(t, 5, 5) // where the recording's frame had it
	form := testapps.StartForm(t, d)
	defer closeForm(t, d)
	save, err := form.Widget("save")
	if err != nil {
		t.Fatal(err)
	}
	plain := widgetPixels(t, save)
	c := image.Pt((save.Min.X+save.Max.X)/2, (save.Min.Y+save.Max.Y)/2)
	park(t, c.X+8, c.Y) // beside the label, clear of the arrow's image
	lit := false
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && !lit; time.Sleep(50 * time.Millisecond) {
		lit = litPixels(plain, widgetPixels(t, save)) > save.Dx()*save.Dy()/2
	}
	if !lit {
		t.Fatal("the Save button does not light up under the pointer: the case is not made")
	}
	out, code := cli(t, "", "replay", rec, "--yes", "--trace-dir", traces)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if name, _, err := form.Saved(); err != nil || name != "" {
		t.Errorf("the replay saved %q (%v)\n%s", name, err, out)
	}
	if !strings.Contains(out, "the pointer's highlight in (") {
		t.Errorf("the replay does not say it left the highlight out:\n%s", out)
	}
}

// litPixels counts the pixels whose colour moved between a and b (same
// bounds) by more than the least step of a highlight.
func litPixels(a, b *image.RGBA) int {
	n := 0
	for y := a.Rect.Min.Y; y < a.Rect.Max.Y; y++ {
		for x := a.Rect.Min.X; x < a.Rect.Max.X; x++ {
			p, q := a.RGBAAt(x, y), b.RGBAAt(x, y)
			if d := int(p.R) - int(q.R); d > 8 || d < -8 {
				n++
			}
		}
	}
	return n
}

// park moves the pointer of the test's display to (x, y).
func park(t *testing.T, x, y int) {
	t.Helper()
	if out, err := exec.CommandContext(t.Context(), "xdotool", "mousemove", fmt.Sprint(x), fmt.Sprint(y)).CombinedOutput(); err != nil {
		t.Fatalf("xdotool: %v: %s", err, out)
	}
}

// widgetPixels captures r (root coordinates) of the test's display.
func widgetPixels(t *testing.T, r image.Rectangle) *image.RGBA {
	t.Helper()
	sc, err := screen.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	img, err := sc.Capture(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// run --branch-from TRACE:STEP replays the recorded steps before STEP (here
// the name typed into the form) and the model goes on from there with them
// as its history: its click on Save saves the replayed name. A moved window
// stops the replay with exit 4 before the model is asked anything.
func TestRunBranchFrom(t *testing.T) {
	traces := isolate(t)
	d := attachDisplay(t)
	first := testapps.StartForm(t, d)
	rec := recordFill(t, traces, first, `type_text("Ada Lovelace")`)
	closeForm(t, d)

	form := testapps.StartForm(t, d)
	var history string
	srv := llmtest.New(t,
		llmtest.Reply{Func: func(req llmtest.Request) string {
			history = string(req.Body)
			return fmt.Sprintf("Thought: save.\n```python\nclick(%s)\n```", formClick(t, form, "save", req))
		}},
		reply(`final_answer("saved")`),
	)
	out, code := cli(t, "", "run", "--branch-from", rec+":2", "--base-url", srv.URL, "--model", "m", "--yes", "--trace-dir", traces)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if name, _, err := form.Saved(); err != nil || name != "Ada Lovelace" {
		t.Errorf("the branched run saved %q (%v)\n%s", name, err, out)
	}
	for _, want := range []string{`type_text(\"Ada Lovelace\")`, "Continue the same task from step 2", "Fill in the form and save it"} {
		if !strings.Contains(history, want) {
			t.Errorf("the model's first request lacks %q", want)
		}
	}
	closeForm(t, d)

	moved := testapps.StartForm(t, d)
	defer closeForm(t, d)
	moveForm(t, d, moved, image.Pt(640, 380))
	idle := llmtest.New(t, reply(`final_answer("no")`))
	out, code = cli(t, "", "run", "--branch-from", rec+":2", "--base-url", idle.URL, "--model", "m", "--yes", "--trace-dir", traces)
	if code != exitDiverged || !strings.Contains(out, "does not look as recorded") {
		t.Errorf("moved window: exit %d, want 4:\n%s", code, out)
	}
	if n := len(idle.Requests()); n != 0 {
		t.Errorf("the model was asked %d times after the replay diverged", n)
	}
	for _, bad := range [][]string{
		{"run", "--branch-from", rec + ":9"},
		{"run", "--branch-from", rec},
		{"run", "--branch-from", rec + ":2", "--continue", rec},
	} {
		if out, code := cli(t, "", bad...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2:\n%s", bad, code, out)
		}
	}
}
