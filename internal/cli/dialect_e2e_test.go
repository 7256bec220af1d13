package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io/fs"
	"math"
	"os"
	"strings"
	"testing"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/trace"
	"deskpilot/internal/testapps"
	"deskpilot/vision/xdisplay"
)

// family is one dialect as a model of its family speaks it: the model name
// that selects it (or the flags that do), how it writes a point and its
// click and finish replies.
type family struct {
	name  string   // the case's name
	model string   // the model name the fake server is asked for
	flags []string // extra flags ("" dialect by model name)
	note  string   // how the terminal names the dialect
	// image is the size of the screenshot the family must be sent, by
	// display size: the dialect's space, checked against each request.
	image map[image.Point]image.Point
	// point writes the centre (cx, cy) of a widget on a screen of size
	// screen in the family's space, for an image of size img.
	point  func(cx, cy float64, screen, img image.Point) (string, string)
	click  func(x, y string) string
	finish string
}

var (
	fullHD = image.Pt(1920, 1080)
	wxga   = image.Pt(1366, 768)
)

func pixels(cx, cy float64, screen, img image.Point) (string, string) {
	return fmt.Sprint(math.Round(cx * float64(img.X) / float64(screen.X))), fmt.Sprint(math.Round(cy * float64(img.Y) / float64(screen.Y)))
}

func grid(n float64) func(cx, cy float64, screen, _ image.Point) (string, string) {
	return func(cx, cy float64, screen, _ image.Point) (string, string) {
		return fmt.Sprint(math.Round(cx * n / float64(screen.X))), fmt.Sprint(math.Round(cy * n / float64(screen.Y)))
	}
}

func fractions(cx, cy float64, screen, _ image.Point) (string, string) {
	return fmt.Sprintf("%.4f", cx/float64(screen.X)), fmt.Sprintf("%.4f", cy/float64(screen.Y))
}

func families() []family {
	scaled := map[image.Point]image.Point{fullHD: {1366, 768}, wxga: {1366, 768}}
	smart28 := map[image.Point]image.Point{fullHD: {1932, 1092}, wxga: {1372, 756}}
	uitars := func(x, y string) string {
		return fmt.Sprintf("Thought: The form is filled in; I click the Save button.\nAction: click(start_box='(%s,%s)')", x, y)
	}
	qwenClick := func(x, y string) string {
		return fmt.Sprintf("<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [%s, %s]}}\n</tool_call>", x, y)
	}
	return []family{
		{name: "code", model: "scripted", note: "code (default)", image: scaled, point: pixels,
			click:  func(x, y string) string { return fmt.Sprintf("Thought: save.\n```python\nclick(%s, %s)\n```", x, y) },
			finish: "Thought: saved.\n```python\nfinal_answer(\"saved\")\n```"},
		{name: "uitars-1.5", model: "ByteDance-Seed/UI-TARS-1.5-7B", note: "uitars-1.5 (by model name)", image: smart28, point: pixels,
			click: uitars, finish: "Thought: The form is saved.\nAction: finished(content='saved')"},
		{name: "uitars-1.0", model: "bytedance-research/UI-TARS-7B-DPO", note: "uitars-1.0 (by model name)", image: smart28, point: grid(1000),
			click: uitars, finish: "Thought: The form is saved.\nAction: finished(content='saved')"},
		{name: "doubao", model: "doubao-1.5-ui-tars-250328", note: "doubao (by model name)", image: smart28, point: grid(1000),
			click: func(x, y string) string {
				return fmt.Sprintf("Thought: I click Save.\nAction: click(point='<point>%s %s</point>')", x, y)
			},
			finish: "Thought: Done.\nAction: finished(content='saved')"},
		{name: "qwen2.5", model: "Qwen/Qwen2.5-VL-7B-Instruct", note: "qwen2.5 (by model name)", image: smart28, point: pixels,
			click:  qwenClick,
			finish: "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"terminate\", \"status\": \"success\"}}\n</tool_call>"},
		{name: "qwen3", model: "Qwen/Qwen3-VL-8B-Instruct", note: "qwen3 (by model name)",
			image: map[image.Point]image.Point{fullHD: {1920, 1088}, wxga: {1376, 768}}, point: grid(999),
			click: func(x, y string) string { return "Action: Click the Save button.\n" + qwenClick(x, y) },
			finish: "Action: Report the form as saved.\n<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"answer\", \"text\": \"saved\"}}\n</tool_call>\n" +
				"<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"terminate\", \"status\": \"success\"}}\n</tool_call>"},
		{name: "pyautogui", model: "osworld-baseline", flags: []string{"--dialect", "pyautogui"}, note: "pyautogui, pixels coordinates",
			image: scaled, point: pixels,
			click: func(x, y string) string {
				return fmt.Sprintf("The Save button is below the notes.\n```python\nimport pyautogui\npyautogui.click(%s, %s)\n```", x, y)
			},
			finish: "The form is saved.\n```DONE```"},
		{name: "opencua", model: "xlangai/OpenCUA-7B", note: "opencua, smart coordinates (by model name)", image: smart28, point: pixels,
			click: func(x, y string) string {
				return fmt.Sprintf("## Thought:\nThe form is filled in.\n## Action:\nClick the Save button.\n## Code:\n```python\npyautogui.click(x=%s, y=%s)\n```", x, y)
			},
			finish: "## Thought:\nSaved.\n## Action:\nFinish.\n## Code:\n```code\ncomputer.terminate(status='success', answer='saved')\n```"},
		{name: "opencua-unit", model: "xlangai/OpenCUA-A3B", note: "opencua, unit coordinates (by model name)", image: scaled, point: fractions,
			click: func(x, y string) string {
				return fmt.Sprintf("## Thought:\nThe form is filled in.\n## Action:\nClick the Save button.\n## Code:\n```python\npyautogui.click(x=%s, y=%s)\n```", x, y)
			},
			finish: "## Thought:\nSaved.\n## Action:\nFinish.\n## Code:\n```code\ncomputer.terminate(status='success', answer='saved')\n```"},
		{name: "holo3", model: "Hcompany/Holo3-35B-A3B", note: "holo3 (by model name)",
			image: map[image.Point]image.Point{fullHD: {1920, 1088}, wxga: {1376, 768}}, point: grid(1000),
			click: func(x, y string) string {
				return fmt.Sprintf(`{"note": null, "thought": "The form is filled in; I click Save.", "tool_call": {"tool_name": "click", "element": "Save button", "x": %s, "y": %s}}`, x, y)
			},
			finish: `{"note": "The status line says saved.", "thought": "Done.", "tool_call": {"tool_name": "answer", "text": "saved"}}`},
		{name: "fara", model: "microsoft/Fara-7B", note: "fara (by model name)", image: smart28, point: pixels,
			click: func(x, y string) string {
				return "The Save button is below the notes; I will click it.\n" + qwenClick(x, y)
			},
			finish: "The form is saved.\n<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"terminate\", \"status\": \"success\"}}\n</tool_call>"},
		{name: "aguvis", model: "aguvis-7b-720p", note: "pyautogui, unit coordinates (by model name)", image: scaled, point: fractions,
			click: func(x, y string) string {
				return fmt.Sprintf("Click the Save button.\nassistantos\npyautogui.click(x=%s, y=%s)", x, y)
			},
			finish: "The form is saved.\n```DONE```"},
	}
}

// TestDialectsEndToEnd runs `deskpilot run` for every dialect on private Xvfb
// displays of 1920x1080 and 1366x768 against a fake server that answers in
// the family's own grammar, with the Save button's centre, reported by the
// form app itself, written in the family's own space for the image it was
// sent. The form's saved file shows the click landed; the family's own finish
// ends the run with exit 0; every request carries a screenshot of exactly the
// dialect's image size; `deskpilot replay` of the trace clicks Save again.
func TestDialectsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts X displays")
	}
	for _, size := range []image.Point{fullHD, wxga} {
		t.Run(size.String(), func(t *testing.T) {
			d, form := privateDisplay(t, size)
			for _, f := range families() {
				t.Run(f.name, func(t *testing.T) {
					runFamily(t, d, form, size, f)
				})
			}
		})
	}
}

// privateDisplay starts an X display of the given size with the form app.
func privateDisplay(t *testing.T, size image.Point) (*xdisplay.Display, *testapps.Form) {
	t.Helper()
	d := calibrationDisplay(t, size)
	return d, testapps.StartForm(t, d)
}

func runFamily(t *testing.T, d *xdisplay.Display, form *testapps.Form, size image.Point, f family) {
	traces := isolate(t)
	if err := os.Remove(form.Out); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	want := f.image[size]
	srv := llmtest.New(t,
		llmtest.Reply{Func: func(req llmtest.Request) string {
			save, err := form.Widget("save")
			if err != nil {
				t.Error(err)
				return "no widget"
			}
			cx, cy := float64(save.Min.X+save.Max.X)/2, float64(save.Min.Y+save.Max.Y)/2
			return f.click(f.point(cx, cy, size, want))
		}},
		llmtest.Reply{Text: f.finish},
	)
	args := append([]string{"run", "--base-url", srv.URL, "--model", f.model, "--x-display", d.Name,
		"--trace-dir", traces, "--json"}, f.flags...)
	out, code := cli(t, "", append(args, "Save the form.")...)
	if code != exitAnswered {
		t.Fatalf("exit %d, want 0; output:\n%s", code, out)
	}
	if !strings.Contains(out, "dialect "+f.note) {
		t.Errorf("the terminal does not name the dialect %q:\n%s", f.note, out)
	}
	if _, _, err := form.Saved(); err != nil {
		t.Errorf("the click missed the Save button: %v\noutput:\n%s", err, out)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2 (click, finish)", len(reqs))
	}
	if f.name == "holo3" && !strings.Contains(string(reqs[0].Body), `"response_format":{"json_schema":{"name":"holo3_step"`) {
		t.Errorf("holo3's step was not constrained by its schema: %.300s", reqs[0].Body)
	}
	for i, req := range reqs {
		imgs := req.Images()
		if len(imgs) == 0 {
			t.Fatalf("request %d has no screenshot", i)
		}
		for _, img := range imgs {
			if img.Size != want || img.DecodeErr != "" {
				t.Errorf("request %d sent a %v screenshot (%v), want exactly the dialect's %v", i, img.Size, img.DecodeErr, want)
			}
		}
	}
	res := jsonResult(t, out)
	if res.Outcome != "answered" || res.Steps != 2 {
		t.Errorf("result %+v", res)
	}
	// The recorded run replays in the space it was recorded in, without a
	// model. The form now says "saved" next to its button, which replay
	// rightly sees as a change from the recording: --force clicks anyway.
	if err := os.Remove(form.Out); err != nil {
		t.Fatal(err)
	}
	out, code = cli(t, "", "replay", res.Trace, "--yes", "--force", "--x-display", d.Name)
	if code != 0 {
		t.Fatalf("replay exit %d:\n%s", code, out)
	}
	if _, _, err := form.Saved(); err != nil {
		t.Errorf("the replayed click missed the Save button: %v\n%s", err, out)
	}
}

// TestPlannerAndGrounder: a planner in the code dialect describes widgets, a
// grounder answering in UI-TARS-1.5's format (pixels of its own smart-resized
// screenshot) finds them. A description the grounder finds no point for is an
// error the planner sees; the next one lands on the Save button. The trace
// records the grounder's call.
func TestPlannerAndGrounder(t *testing.T) {
	if testing.Short() {
		t.Skip("starts X displays")
	}
	for _, size := range []image.Point{fullHD, wxga} {
		t.Run(size.String(), func(t *testing.T) {
			d, form := privateDisplay(t, size)
			traces := isolate(t)
			grounderImage := map[image.Point]image.Point{fullHD: {1932, 1092}, wxga: {1372, 756}}[size]
			var gx, gy string
			grounder := llmtest.New(t,
				llmtest.Reply{Text: "Thought: There is no Launch button on this screen.\nAction: call_user()"},
				llmtest.Reply{Func: func(req llmtest.Request) string {
					save, err := form.Widget("save")
					if err != nil {
						t.Error(err)
						return ""
					}
					cx, cy := float64(save.Min.X+save.Max.X)/2, float64(save.Min.Y+save.Max.Y)/2
					gx, gy = pixels(cx, cy, size, grounderImage)
					return fmt.Sprintf("Thought: The Save button is below the notes.\nAction: click(start_box='(%s,%s)')", gx, gy)
				}},
			)
			planner := llmtest.New(t,
				reply(`click("the Launch button")`),
				reply(`click("the Save button")`),
				reply(`final_answer("saved")`),
			)
			out, code := cli(t, "", "run", "--base-url", planner.URL, "--model", "ui-tars-1.5-7b", "--x-display", d.Name,
				"--grounder", "ui-tars-1.5-7b", "--grounder-base-url", grounder.URL, "--trace-dir", traces, "--json", "Save the form.")
			if code != exitAnswered {
				t.Fatalf("exit %d, want 0; output:\n%s", code, out)
			}
			if !strings.Contains(out, "dialect code (planner of the grounder); grounder ui-tars-1.5-7b at "+grounder.URL+" (uitars-1.5)") {
				t.Errorf("the terminal does not name planner and grounder:\n%s", out)
			}
			if _, _, err := form.Saved(); err != nil {
				t.Fatalf("the grounded click missed the Save button: %v", err)
			}
			checkGrounderRequests(t, grounder.Requests(), grounderImage)
			reqs := planner.Requests()
			if sys := reqs[0].Messages[0].Text(); !strings.Contains(sys, "def locate(description: str)") || !strings.Contains(sys, `click("the Save button")`) {
				t.Errorf("the planner's prompt does not offer the grounded forms")
			}
			if obs := reqs[1].Last("user").Text(); !strings.Contains(obs, `found no point for "the Launch button"`) {
				t.Errorf("the planner was not told the grounder found nothing:\n%s", obs)
			}
			if obs := reqs[2].Last("user").Text(); !strings.Contains(obs, `grounded "the Save button" at (`) {
				t.Errorf("the planner was not told where it clicked:\n%s", obs)
			}
			res := jsonResult(t, out)
			checkGroundedTrace(t, res.Trace, form, gx, gy)
		})
	}
}

// checkGrounderRequests: the grounder got a fresh screenshot of exactly its
// own image size and the description, with its own prompt.
func checkGrounderRequests(t *testing.T, reqs []llmtest.Request, want image.Point) {
	t.Helper()
	if len(reqs) != 2 {
		t.Fatalf("%d grounder calls, want 2", len(reqs))
	}
	for i, req := range reqs {
		imgs := req.Images()
		if len(imgs) != 1 || imgs[0].Size != want {
			t.Errorf("grounder request %d images %+v, want one of %v", i, imgs, want)
		}
		if text := req.Last("user").Text(); !strings.Contains(text, "## User Instruction") {
			t.Errorf("grounder request %d is not UI-TARS's grounding prompt:\n%s", i, text)
		}
	}
	if !strings.Contains(reqs[1].Last("user").Text(), "the Save button") {
		t.Errorf("the grounder was not given the description")
	}
}

// checkGroundedTrace: the trace holds the grounder's call (its reply, its
// point in its own space, the screen point) and the click on the button.
func checkGroundedTrace(t *testing.T, dir string, form *testapps.Form, gx, gy string) {
	t.Helper()
	tr, err := trace.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	save, err := form.Widget("save")
	if err != nil {
		t.Fatal(err)
	}
	step, ok := tr.Step(2)
	if !ok || len(step.Actions) != 2 {
		t.Fatalf("trace step 2: %+v", step.Actions)
	}
	loc, click := step.Actions[0], step.Actions[1]
	if loc.Name != "locate" || loc.Model == nil || fmt.Sprint(loc.Model[0]) != gx || fmt.Sprint(loc.Model[1]) != gy ||
		!strings.Contains(loc.Result, "click(start_box=") {
		t.Errorf("trace locate action %+v; want the grounder's point (%s, %s) and reply", loc, gx, gy)
	}
	if click.Name != "click" || click.Screen == nil || !image.Pt(click.Screen[0], click.Screen[1]).In(save) {
		t.Errorf("trace click %+v is not on the Save button %v", click, save)
	}
	failed, _ := tr.Step(1)
	if len(failed.Actions) != 1 || failed.Actions[0].Error == "" || !strings.Contains(failed.Actions[0].Result, "call_user()") {
		t.Errorf("trace step 1 does not show the grounder's empty answer: %+v", failed.Actions)
	}
}

// jsonResult reads the --json result that ends out (after the progress lines).
func jsonResult(t *testing.T, out string) runResult {
	t.Helper()
	var res runResult
	i := strings.LastIndex(out, "{\n")
	if i < 0 {
		t.Fatalf("no JSON result:\n%s", out)
	}
	if err := json.Unmarshal([]byte(out[i:]), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return res
}
