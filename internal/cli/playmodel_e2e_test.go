package cli

import (
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/trace"
	"deskpilot/internal/testapps"
	"deskpilot/vision/xdisplay"
)

// The dialog the recorded run dismissed before filling the form, where it
// was then and where it is in the changed screen (clear of the form).
var (
	dialogThen  = image.Pt(900, 100)
	dialogMoved = image.Pt(900, 500)
)

const dialogTask = "Dismiss the dialog, then fill in the form and save it"

// play --model: a recorded run dismissed a dialog, filled in the form and
// saved it. Played on the same screen, no model is asked. With the dialog
// moved, checkpoint 1 diverges: the model is asked once, for that step,
// with the task, the script and the diverged step; its click dismisses the
// dialog, checkpoint 2 holds again and the script saves the form. --update
// writes the model's click into the script, which then plays on the moved
// dialog with no model. A model that never brings the screen back hits
// --model-steps (exit 3), and deskpilot stop ends a takeover (exit 130).
func TestPlayModel(t *testing.T) {
	traces := isolate(t)
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	d := attachDisplay(t)
	rec := recordDialogFill(t, traces, d)
	star := filepath.Join(t.TempDir(), "run.star")
	if out, code := cli(t, "", "traces", "script", rec, "-o", star); code != 0 {
		t.Fatalf("traces script: exit %d:\n%s", code, out)
	}
	original, err := os.ReadFile(star)
	if err != nil {
		t.Fatal(err)
	}
	play := func(srv *llmtest.Server, extra ...string) (string, int) {
		args := append([]string{"play", star, "--model=m", "--base-url", srv.URL, "--yes", "--trace-dir", traces}, extra...)
		return cli(t, "", args...)
	}

	t.Run("unchanged screen: no model call", func(t *testing.T) {
		form, dialog := dialogScene(t, d, dialogThen)
		idle := llmtest.New(t)
		out, code := play(idle)
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if n := len(idle.Requests()); n != 0 {
			t.Errorf("the model was asked %d times on an unchanged screen", n)
		}
		wantSaved(t, form, dialog, out)
		if !strings.Contains(out, "4 steps from the script, 0 from the model; 0 model calls") {
			t.Errorf("no summary line:\n%s", out)
		}
		if got := sources(t, traces); got != "script script script script" {
			t.Errorf("step sources %q", got)
		}
	})

	t.Run("moved dialog: the model does that step, --update writes it", func(t *testing.T) {
		form, dialog := dialogScene(t, d, dialogMoved)
		var body string
		srv := llmtest.New(t, llmtest.Reply{Func: func(req llmtest.Request) string {
			body = string(req.Body)
			return "Thought: the dialog moved.\n```python\nclick(" + dialogButton(t, d, req) + ")\nwait(1)\n```"
		}})
		out, code := play(srv, "--update")
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("the model was asked %d times, want once (step 1 only)", n)
		}
		for _, want := range []string{dialogTask, "Step 1 did not look as recorded", `checkpoint(3)`, `type_text(\"Ada Lovelace\")`, "recorded step 2, 3 or 4"} {
			if !strings.Contains(body, want) {
				t.Errorf("the model's request lacks %q", want)
			}
		}
		wantSaved(t, form, dialog, out)
		if !strings.Contains(out, "4 steps from the script, 1 from the model; 1 model call") {
			t.Errorf("no summary line:\n%s", out)
		}
		if got := sources(t, traces); got != "script model script script script" {
			t.Errorf("step sources %q, want the diverged step, the model's, then the script's", got)
		}
		if tr := newest(t, traces); tr.End == nil || tr.End.ModelCalls != 1 {
			t.Errorf("run_end %+v, want model_calls 1", tr.End)
		}
		if bak, err := os.ReadFile(star + ".bak"); err != nil || string(bak) != string(original) {
			t.Errorf("the backup does not hold the original script (%v)", err)
		}
		updated, _ := os.ReadFile(star)
		if !strings.Contains(string(updated), "the model's, where step 1 did not look as recorded") || strings.Contains(string(updated), "\ncheckpoint(1)\n") {
			t.Errorf("updated script:\n%s", updated)
		}
	})

	t.Run("the updated script plays the moved dialog without a model", func(t *testing.T) {
		form, dialog := dialogScene(t, d, dialogMoved)
		idle := llmtest.New(t)
		out, code := play(idle)
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if n := len(idle.Requests()); n != 0 {
			t.Errorf("the model was asked %d times", n)
		}
		wantSaved(t, form, dialog, out)
	})

	t.Run("replay --model: the same takeover without a script", func(t *testing.T) {
		form, dialog := dialogScene(t, d, dialogMoved)
		srv := llmtest.New(t, llmtest.Reply{Func: func(req llmtest.Request) string {
			return "Thought: the dialog moved.\n```python\nclick(" + dialogButton(t, d, req) + ")\nwait(1)\n```"
		}})
		out, code := cli(t, "", "replay", rec, "--model=m", "--base-url", srv.URL, "--yes", "--trace-dir", traces)
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("the model was asked %d times, want once", n)
		}
		wantSaved(t, form, dialog, out)
		if got := sources(t, traces); got != "script model script script script" {
			t.Errorf("step sources %q", got)
		}
	})

	if err := os.WriteFile(star, original, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("a model that never gets back hits --model-steps", func(t *testing.T) {
		form, _ := dialogScene(t, d, dialogMoved)
		lost := llmtest.New(t, reply(`print("looking")`), reply(`print("still looking")`), reply(`print("more")`))
		out, code := play(lost, "--model-steps", "2")
		if code != exitStepLimit {
			t.Fatalf("exit %d, want 3:\n%s", code, out)
		}
		if n := len(lost.Requests()); n != 2 {
			t.Errorf("the model was asked %d times, want 2", n)
		}
		if !strings.Contains(out, "the model took 2 steps and the screen never looked as recorded at step 2, 3 or 4") {
			t.Errorf("unclear error:\n%s", out)
		}
		if _, _, err := form.Saved(); err == nil {
			t.Error("the form was saved")
		}
		closeDialogs(t, d)
	})

	t.Run("deskpilot stop ends a takeover", func(t *testing.T) {
		dialogScene(t, d, dialogMoved)
		hang := llmtest.New(t, llmtest.Reply{Hang: true})
		done := make(chan int, 1)
		var out string
		go func() {
			var code int
			out, code = play(hang)
			done <- code
		}()
		for deadline := time.Now().Add(90 * time.Second); len(hang.Requests()) == 0; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the model was never asked")
			}
		}
		if s, code := cli(t, "", "stop"); code != 0 || !strings.Contains(s, "stopped run") {
			t.Errorf("deskpilot stop (exit %d):\n%s", code, s)
		}
		select {
		case code := <-done:
			if code != exitInterrupted {
				t.Errorf("exit %d, want 130:\n%s", code, out)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("the play did not stop")
		}
		if tr := newest(t, traces); tr.End == nil || tr.End.Outcome != trace.OutcomeCancelled {
			t.Errorf("run_end %+v, want cancelled", tr.End)
		}
		closeDialogs(t, d)
	})

	for _, bad := range [][]string{
		{"play", star, "--model", "m"},
		{"play", star, "--update"},
		{"play", star, "--model", "--force"},
		{"play", star, "--model", "--model-steps", "0"},
	} {
		if out, code := cli(t, "", bad...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2:\n%s", bad, code, out)
		}
	}
}

// recordDialogFill records `deskpilot run` dismissing the dialog at
// dialogThen, filling in the form's name and saving it.
func recordDialogFill(t *testing.T, traces string, d *xdisplay.Display) string {
	t.Helper()
	form, dialog := dialogScene(t, d, dialogThen)
	think := func() { time.Sleep(600 * time.Millisecond) } // see TestFillFormEndToEnd
	srv := llmtest.New(t,
		llmtest.Reply{Func: func(req llmtest.Request) string {
			// The focus goes back to the form a moment after the dialog
			// closes (its entry draws a ring): wait for it, so the
			// frame after the step is the settled screen.
			return "Thought: dismiss the dialog.\n```python\nclick(" + dialogButton(t, d, req) + ")\nwait(1)\n```"
		}},
		llmtest.Reply{Func: func(req llmtest.Request) string {
			think()
			return fmt.Sprintf("Thought: the name field.\n```python\nclick(%s)\ntype_text(\"Ada Lovelace\")\n```", formClick(t, form, "name", req))
		}},
		llmtest.Reply{Func: func(req llmtest.Request) string {
			think()
			return fmt.Sprintf("Thought: save.\n```python\nclick(%s)\n```", formClick(t, form, "save", req))
		}},
		reply(`final_answer("saved the form")`),
	)
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "--json", "-q", dialogTask)
	if code != 0 {
		t.Fatalf("run: exit %d:\n%s", code, out)
	}
	wantSaved(t, form, dialog, out)
	return newest(t, traces).Dir
}

// dialogScene starts a fresh form and an xmessage dialog at `at` above it,
// after closing the previous ones.
func dialogScene(t *testing.T, d *xdisplay.Display, at image.Point) (*testapps.Form, *xdisplay.App) {
	t.Helper()
	closeDialogs(t, d)
	closeForm(t, d)
	form := testapps.StartForm(t, d)
	dialog, err := d.StartApp(t.Context(), "xmessage", "-buttons", "OK", "-print", "-geometry", fmt.Sprintf("+%d+%d", at.X, at.Y), "Go on?")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dialog.Stop() })
	waitWindow(t, d, "xmessage")
	time.Sleep(300 * time.Millisecond) // drawn
	return form, dialog
}

func closeDialogs(t *testing.T, d *xdisplay.Display) { closeWindows(t, d, "xmessage") }

// geometry is a line of xwininfo -tree: "WxH+x+y  +X+Y".
var geometry = regexp.MustCompile(`(\d+)x(\d+)[+-]-?\d+[+-]-?\d+\s+\+(-?\d+)\+(-?\d+)`)

// dialogButton is where a model clicks the centre of the xmessage's OK
// button, in pixels of the request's newest image: Xaw's button is the
// lowest of the dialog's child windows.
func dialogButton(t *testing.T, d *xdisplay.Display, req llmtest.Request) string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w, err := d.WaitWindow(ctx, "xmessage")
	if err != nil {
		t.Error(err)
		return "0, 0"
	}
	out, err := d.Command(ctx, "xwininfo", "-tree", "-id", fmt.Sprint(w.ID)).Output()
	if err != nil {
		t.Error(err)
		return "0, 0"
	}
	var best image.Rectangle
	for i, m := range geometry.FindAllStringSubmatch(string(out), -1) {
		if i == 0 {
			continue // the dialog's form
		}
		n := make([]int, 4)
		for j := range n {
			n[j], _ = strconv.Atoi(m[j+1])
		}
		r := image.Rect(n[2], n[3], n[2]+n[0], n[3]+n[1])
		if best.Empty() || r.Min.Y > best.Min.Y {
			best = r
		}
	}
	if best.Empty() {
		t.Errorf("no button in:\n%s", out)
	}
	imgs := req.Images()
	if len(imgs) == 0 {
		t.Error("request without an image")
		return "0, 0"
	}
	size := imgs[len(imgs)-1].Size
	return fmt.Sprintf("%d, %d", (best.Min.X+best.Max.X)/2*size.X/1280, (best.Min.Y+best.Max.Y)/2*size.Y/800)
}

// wantSaved checks the effect: the dialog was dismissed with OK and the
// form saved the name.
func wantSaved(t *testing.T, form *testapps.Form, dialog *xdisplay.App, out string) {
	t.Helper()
	if name, _, err := form.Saved(); err != nil || name != "Ada Lovelace" {
		t.Errorf("the form saved %q (%v)\n%s", name, err, out)
	}
	for deadline := time.Now().Add(10 * time.Second); !dialog.Exited() && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	if got := dialog.Output(); !regexp.MustCompile(`(?m)^OK$`).MatchString(got) {
		t.Errorf("the dialog printed %q, want OK (dismissed)", got)
	}
}

// newest is the newest trace under traces.
func newest(t *testing.T, traces string) *trace.Trace {
	t.Helper()
	sums, err := trace.List(traces)
	if err != nil || len(sums) == 0 {
		t.Fatalf("no trace: %v", err)
	}
	tr, err := trace.Read(sums[0].Dir)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// sources lists the source of each step of the newest trace.
func sources(t *testing.T, traces string) string {
	var out []string
	for _, s := range newest(t, traces).Steps {
		if s.Number > 0 {
			out = append(out, s.Source)
		}
	}
	return strings.Join(out, " ")
}
