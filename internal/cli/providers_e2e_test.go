package cli

import (
	"errors"
	"fmt"
	"image"
	"io/fs"
	"os"
	"strings"
	"testing"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/internal/testapps"
	"deskpilot/vision/xdisplay"
)

var qhd = image.Pt(2560, 1440)

// vendorFamily is a model reached through its vendor's computer tool or a
// structured format: the server that speaks its wire, how it writes a point
// on the screenshot it was sent, and the script of turns that fills in the
// form's name ("Ada") and saves it.
type vendorFamily struct {
	name  string
	model string
	flags []string
	note  string // how the terminal names dialect and provider
	wire  llmtest.Wire
	image map[image.Point]image.Point
	point func(cx, cy float64, screen, img image.Point) (string, string)
	// turns writes the script from the name field's and the Save button's
	// points in the family's space.
	turns func(nx, ny, sx, sy string) []llmtest.Turn
}

func vendorFamilies() []vendorFamily {
	same := map[image.Point]image.Point{fullHD: fullHD, qhd: qhd, wxga: wxga}
	done := llmtest.Turn{Text: "The form is saved with the name Ada."}
	return []vendorFamily{
		{name: "openai-computer batched", model: "gpt-5.4", flags: []string{"--dialect", "openai-computer"},
			note: "(provider responses (the dialect's)), dialect openai-computer", wire: llmtest.Responses, image: same, point: pixels,
			turns: func(nx, ny, sx, sy string) []llmtest.Turn {
				return []llmtest.Turn{
					{Calls: []llmtest.Call{{Input: `{"actions": [{"type": "screenshot"}]}`}}},
					{Text: "I'll fill in the name and save.", Calls: []llmtest.Call{{Input: fmt.Sprintf(
						`{"actions": [{"type": "click", "button": "left", "x": %s, "y": %s}, {"type": "type", "text": "Ada"}, {"type": "click", "button": "left", "x": %s, "y": %s}]}`,
						nx, ny, sx, sy)}}},
					done,
				}
			}},
		{name: "openai-computer preview", model: "computer-use-preview",
			note: "(provider responses (the dialect's)), dialect openai-computer (by model name)", wire: llmtest.Responses, image: same, point: pixels,
			turns: func(nx, ny, sx, sy string) []llmtest.Turn {
				act := func(a string) llmtest.Turn {
					return llmtest.Turn{Calls: []llmtest.Call{{Input: `{"action": ` + a + `}`}}}
				}
				return []llmtest.Turn{
					act(fmt.Sprintf(`{"type": "click", "button": "left", "x": %s, "y": %s}`, nx, ny)),
					act(`{"type": "type", "text": "Ada"}`),
					act(fmt.Sprintf(`{"type": "click", "button": "left", "x": %s, "y": %s}`, sx, sy)),
					done,
				}
			}},
		{name: "anthropic-computer", model: "claude-sonnet-4-5", flags: []string{"--dialect", "anthropic-computer"},
			note: "(provider anthropic (the dialect's)), dialect anthropic-computer", wire: llmtest.Anthropic,
			image: map[image.Point]image.Point{fullHD: {1429, 804}, qhd: {1429, 804}, wxga: wxga}, point: pixels,
			turns: func(nx, ny, sx, sy string) []llmtest.Turn {
				return []llmtest.Turn{
					{Text: "I'll type the name.", Calls: []llmtest.Call{
						{Name: "computer", Input: fmt.Sprintf(`{"action": "left_click", "coordinate": [%s, %s]}`, nx, ny)},
						{Name: "computer", Input: `{"action": "type", "text": "Ada"}`},
					}},
					{Calls: []llmtest.Call{{Name: "computer", Input: fmt.Sprintf(`{"action": "left_click", "coordinate": [%s, %s]}`, sx, sy)}}},
					done,
				}
			}},
		{name: "anthropic-computer 4.7", model: "claude-opus-4-7", flags: []string{"--dialect", "anthropic-computer"},
			note: "(provider anthropic (the dialect's)), dialect anthropic-computer", wire: llmtest.Anthropic, image: same, point: pixels,
			turns: func(nx, ny, sx, sy string) []llmtest.Turn {
				return []llmtest.Turn{
					{Calls: []llmtest.Call{
						{Name: "computer", Input: fmt.Sprintf(`{"action": "triple_click", "coordinate": [%s, %s]}`, nx, ny)},
						{Name: "computer", Input: `{"action": "type", "text": "Ada"}`},
						{Name: "computer", Input: fmt.Sprintf(`{"action": "left_click", "coordinate": [%s, %s]}`, sx, sy)},
					}},
					done,
				}
			}},
		{name: "gemini-computer", model: "gemini-3.5-flash", flags: []string{"--dialect", "gemini-computer"},
			note: "(provider gemini (the dialect's)), dialect gemini-computer", wire: llmtest.Gemini,
			image: map[image.Point]image.Point{fullHD: {1366, 768}, qhd: {1366, 768}, wxga: wxga}, point: grid(1000),
			turns: func(nx, ny, sx, sy string) []llmtest.Turn {
				return []llmtest.Turn{
					{Calls: []llmtest.Call{
						{Name: "click", Input: fmt.Sprintf(`{"x": %s, "y": %s, "intent": "Focus the name field"}`, nx, ny)},
						{Name: "type", Input: `{"text": "Ada", "press_enter": false, "intent": "Type the name"}`},
						{Name: "click", Input: fmt.Sprintf(`{"x": %s, "y": %s, "intent": "Save the form"}`, sx, sy)},
					}},
					done,
				}
			}},
	}
}

// TestVendorToolsEndToEnd runs `deskpilot run` against a fake server
// speaking each vendor's wire format (Responses SSE, Messages SSE with
// tool_use, streamGenerateContent), on private displays of 1920x1080,
// 2560x1440 and 1366x768. The model's actions — several in one call or one
// reply where the vendor batches them — click the form's name field, type
// "Ada" and click Save, at points the form app itself reports, written in
// the vendor's space for the screenshot it was sent. The form's saved file
// shows they landed in order; every request's screenshot is exactly the
// size the vendor takes without rescaling; each call is answered (call id,
// continuation by previous_response_id) and the run ends with the model's
// reply as the answer.
func TestVendorToolsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts X displays")
	}
	for _, size := range []image.Point{fullHD, qhd, wxga} {
		t.Run(size.String(), func(t *testing.T) {
			d, form := privateDisplay(t, size)
			for _, f := range vendorFamilies() {
				t.Run(f.name, func(t *testing.T) { runVendorFamily(t, d, form, size, f) })
			}
		})
	}
}

func widgetCentre(t *testing.T, form *testapps.Form, name string) (float64, float64) {
	t.Helper()
	r, err := form.Widget(name)
	if err != nil {
		t.Fatal(err)
	}
	return float64(r.Min.X+r.Max.X) / 2, float64(r.Min.Y+r.Max.Y) / 2
}

func clearForm(t *testing.T, form *testapps.Form) {
	t.Helper()
	if err := os.Remove(form.Out); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
}

func runVendorFamily(t *testing.T, d *xdisplay.Display, form *testapps.Form, size image.Point, f vendorFamily) {
	traces := isolate(t)
	clearForm(t, form)
	want := f.image[size]
	ncx, ncy := widgetCentre(t, form, "name")
	scx, scy := widgetCentre(t, form, "save")
	nx, ny := f.point(ncx, ncy, size, want)
	sx, sy := f.point(scx, scy, size, want)
	turns := f.turns(nx, ny, sx, sy)
	srv := llmtest.NewVendor(t, f.wire, turns...)
	t.Setenv("DESKPILOT_TEST_KEY", "sk-vendor-test-key")
	args := append([]string{"run", "--base-url", srv.URL, "--model", f.model, "--api-key-env", "DESKPILOT_TEST_KEY",
		"--x-display", d.Name, "--trace-dir", traces, "--json"}, f.flags...)
	out, code := cli(t, "", append(args, "Type Ada as the name and save the form.")...)
	if code != exitAnswered {
		t.Fatalf("exit %d, want 0; output:\n%s", code, out)
	}
	if !strings.Contains(out, f.note) {
		t.Errorf("the terminal does not say %q:\n%s", f.note, out)
	}
	if name, _, err := form.Saved(); err != nil || !strings.HasSuffix(name, "Ada") {
		t.Errorf("saved name %q, %v: the actions did not land in order\noutput:\n%s", name, err, out)
	}
	reqs := srv.Requests()
	if len(reqs) != len(turns) {
		t.Fatalf("%d model calls, want %d", len(reqs), len(turns))
	}
	for i, req := range reqs {
		if len(req.Images) == 0 {
			t.Errorf("request %d has no screenshot", i)
		}
		for _, img := range req.Images {
			if img != want {
				t.Errorf("request %d sent a %v screenshot, want exactly %v", i, img, want)
			}
		}
		if strings.Contains(string(req.Body), "sk-vendor-test-key") {
			t.Errorf("request %d carries the API key in its body", i)
		}
	}
	checkContinuation(t, f.wire, reqs)
	res := jsonResult(t, out)
	if res.Outcome != "answered" || !strings.Contains(res.Answer, "saved with the name Ada") {
		t.Errorf("result %+v", res)
	}
}

// checkContinuation checks how each request after the first answers the
// previous reply.
func checkContinuation(t *testing.T, wire llmtest.Wire, reqs []llmtest.VendorRequest) {
	t.Helper()
	for i := 1; i < len(reqs); i++ {
		body := string(reqs[i].Body)
		switch wire {
		case llmtest.Responses:
			if prev := fmt.Sprintf("resp_%d", i); reqs[i].JSON["previous_response_id"] != prev || reqs[i].JSON["truncation"] != "auto" {
				t.Errorf("request %d: previous_response_id %v, truncation %v; want %s, auto", i, reqs[i].JSON["previous_response_id"], reqs[i].JSON["truncation"], prev)
			}
			if !strings.Contains(body, `"type":"computer_call_output","call_id":"call_1"`) {
				t.Errorf("request %d does not answer call_1: %.400s", i, body)
			}
		case llmtest.Anthropic:
			if !strings.Contains(body, `"tool_use_id":"toolu_1"`) || strings.Count(body, `"cache_control"`) != 2 {
				t.Errorf("request %d: tool_result or cache breakpoints missing: %.600s", i, body)
			}
		case llmtest.Gemini:
			if !strings.Contains(body, `"functionResponse"`) || !strings.Contains(body, `"name":"click"`) {
				t.Errorf("request %d does not answer the function calls: %.600s", i, body)
			}
		}
	}
}

// TestVendorSafetyChecks: a batch flagged by the vendor's safety service
// goes to the person. Approved (--yes), it runs and the check is
// acknowledged in the next request; refused (no person), nothing is
// clicked and the model is told; Gemini's "blocked" refuses it outright.
func TestVendorSafetyChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("starts X displays")
	}
	d, form := privateDisplay(t, wxga)
	cx, cy := widgetCentre(t, form, "save")
	sx, sy := pixels(cx, cy, wxga, wxga)
	gx, gy := grid(1000)(cx, cy, wxga, wxga)
	openaiCall := llmtest.Call{Input: fmt.Sprintf(`{"actions": [{"type": "click", "button": "left", "x": %s, "y": %s}]}`, sx, sy),
		Checks: []llmtest.Check{{ID: "cu_sc_67cb", Code: "malicious_instructions",
			Message: "We've detected instructions that may cause your application to perform malicious or unauthorized actions. Please acknowledge this warning if you'd like to proceed."}}}
	geminiCall := func(decision string) llmtest.Call {
		return llmtest.Call{Name: "click", Input: fmt.Sprintf(`{"x": %s, "y": %s, "safety_decision": {"explanation": "I have encountered a CAPTCHA challenge that requires interaction.", "decision": %q}}`, gx, gy, decision)}
	}
	cases := []struct {
		name, model, dialect string
		wire                 llmtest.Wire
		call                 llmtest.Call
		yes, saved           bool
		next                 string // what the second request carries
	}{
		{"openai allowed", "gpt-5.4", "openai-computer", llmtest.Responses, openaiCall, true, true, `"acknowledged_safety_checks":[{"id":"cu_sc_67cb"`},
		{"openai refused", "gpt-5.4", "openai-computer", llmtest.Responses, openaiCall, false, false, "no one was asked"},
		{"gemini allowed", "gemini-3.5-flash", "gemini-computer", llmtest.Gemini, geminiCall("require_confirmation"), true, true, `"safety_acknowledgement":"true"`},
		{"gemini refused", "gemini-3.5-flash", "gemini-computer", llmtest.Gemini, geminiCall("require_confirmation"), false, false, "no one was asked"},
		{"gemini blocked", "gemini-3.5-flash", "gemini-computer", llmtest.Gemini, geminiCall("blocked"), true, false, "blocked by the model provider"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			traces := isolate(t)
			clearForm(t, form)
			srv := llmtest.NewVendor(t, c.wire, llmtest.Turn{Calls: []llmtest.Call{c.call}}, llmtest.Turn{Text: "stopped here"})
			t.Setenv("DESKPILOT_TEST_KEY", "k")
			args := []string{"run", "--base-url", srv.URL, "--model", c.model, "--dialect", c.dialect, "--api-key-env", "DESKPILOT_TEST_KEY",
				"--x-display", d.Name, "--trace-dir", traces, "--json"}
			if c.yes {
				args = append(args, "--yes")
			}
			out, code := cli(t, "", append(args, "Save the form.")...)
			if code != exitAnswered {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			_, err := os.Stat(form.Out)
			if c.saved {
				if _, _, err := form.Saved(); err != nil {
					t.Errorf("the approved click did not land: %v", err)
				}
			} else if err == nil {
				t.Errorf("the refused click landed")
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), c.next) {
				t.Errorf("the second request does not carry %q: %.800s", c.next, string(reqs[len(reqs)-1].Body))
			}
		})
	}
}

// TestVendorToolsHostileReplies: an unknown action and a point off the
// screen, on each vendor's wire, are errors the model reads in its next
// request; nothing is clicked.
func TestVendorToolsHostileReplies(t *testing.T) {
	if testing.Short() {
		t.Skip("starts X displays")
	}
	d, form := privateDisplay(t, wxga)
	cases := []struct {
		name, model, dialect string
		wire                 llmtest.Wire
		unknown, outside     llmtest.Call
	}{
		{"openai", "gpt-5.4", "openai-computer", llmtest.Responses,
			llmtest.Call{Input: `{"actions": [{"type": "teleport", "x": 1, "y": 1}]}`},
			llmtest.Call{Input: `{"actions": [{"type": "click", "x": 99999, "y": 10}]}`}},
		{"anthropic", "claude-sonnet-4-5", "anthropic-computer", llmtest.Anthropic,
			llmtest.Call{Name: "computer", Input: `{"action": "teleport"}`},
			llmtest.Call{Name: "computer", Input: `{"action": "left_click", "coordinate": [5000, 10]}`}},
		{"gemini", "gemini-3.5-flash", "gemini-computer", llmtest.Gemini,
			llmtest.Call{Name: "teleport", Input: `{"x": 1, "y": 1}`},
			llmtest.Call{Name: "click", Input: `{"x": 1000, "y": 10}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			traces := isolate(t)
			clearForm(t, form)
			srv := llmtest.NewVendor(t, c.wire, llmtest.Turn{Calls: []llmtest.Call{c.unknown}},
				llmtest.Turn{Calls: []llmtest.Call{c.outside}}, llmtest.Turn{Text: "giving up"})
			t.Setenv("DESKPILOT_TEST_KEY", "k")
			out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", c.model, "--dialect", c.dialect, "--api-key-env", "DESKPILOT_TEST_KEY",
				"--x-display", d.Name, "--trace-dir", traces, "--json", "Save the form.")
			if code != exitAnswered {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			if _, err := os.Stat(form.Out); err == nil {
				t.Error("a hostile reply clicked Save")
			}
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want 3", len(reqs))
			}
			if b := string(reqs[1].Body); !strings.Contains(b, "unknown") {
				t.Errorf("the model was not told of the unknown action: %.600s", b)
			}
			if b := string(reqs[2].Body); !strings.Contains(b, "outside") {
				t.Errorf("the model was not told the point is off the screen: %.600s", b)
			}
		})
	}
}
