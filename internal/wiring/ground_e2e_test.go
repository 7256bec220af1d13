package wiring

import (
	"deskpilot/vision/xdisplay"
	"fmt"
	"image"
	"regexp"
	"strings"
	"testing"

	"deskpilot/a11y"
	"deskpilot/agent"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/internal/config"
	"deskpilot/internal/testapps"
	"deskpilot/vision"
	"deskpilot/vision/ocr"
)

// A scripted model that never computes a coordinate — it names controls with
// find_text, click_text, find_elements, click_element and click_mark —
// completes tasks in real apps: an Xaw xmessage (no accessibility: OCR), a Tk
// form (no AT-SPI on Linux: OCR) and GTK 3 zenity dialogs (the accessibility
// tree), on displays of two sizes in both coordinate modes. What the app
// printed or saved proves the right control was clicked.
func TestGroundedTasks(t *testing.T) {
	reader := newOCR(t)
	for _, size := range []image.Point{{1920, 1080}, {1366, 768}} {
		t.Run(fmt.Sprintf("%dx%d", size.X, size.Y), func(t *testing.T) {
			k := startDesk(t, size, true)
			for _, mode := range []string{"pixels", "norm1000"} {
				t.Run(mode, func(t *testing.T) {
					t.Run("xmessage find_text", func(t *testing.T) { xmessageFindText(t, k, mode, reader) })
					t.Run("xmessage click_mark", func(t *testing.T) { xmessageMarks(t, k, mode, reader) })
					t.Run("tk click_text", func(t *testing.T) { tkForm(t, k, mode, reader) })
					t.Run("zenity click_element", func(t *testing.T) { zenityEntry(t, k, mode, reader) })
					t.Run("zenity find_text", func(t *testing.T) { zenityFindText(t, k, mode, reader) })
					t.Run("zenity click_mark", func(t *testing.T) { zenityMarks(t, k, mode, reader) })
				})
			}
		})
	}
}

// xmessageFindText: find_text's x and y, passed to click, hit an Xaw button;
// the button comes first though the label above it reads the same word, and
// each match says which it is (Xaw has no tree: the button's shape tells).
func xmessageFindText(t *testing.T, k *desk, mode string, reader *ocr.Reader) {
	app := k.start(t, "xmessage", "-buttons", "Alpha,Bravo,Charlie", "-print", "Pick Charlie")
	k.window(t, app, "xmessage")
	fin, srv := k.run(t, config.Settings{CoordMode: mode}, reader, "Press Charlie",
		code(`ms = find_text("charlie")
print(len(ms), ms[0].text, ms[0].score, [m.kind for m in ms])
click(ms[0].x, ms[0].y)`),
		code(`final_answer("pressed")`))
	if fin.Outcome != agent.Answered {
		t.Fatalf("run %+v; observation:\n%s", fin, lastText(t, srv, len(srv.Requests())-1))
	}
	if code, out := exited(t, app); code != 103 || out != "Charlie" {
		t.Errorf("xmessage exited %d printing %q, want 103 (its third button) and Charlie", code, out)
	}
	if obs := lastText(t, srv, 1); !strings.Contains(obs, `2 Charlie 1.0 ["button", "text"]`) ||
		!strings.Contains(obs, `find_text("charlie"): 2 found: "Charlie" (button) at (`) {
		t.Errorf("observation:\n%s", obs)
	}
}

// zenityFindText: on a GTK dialog the tree tells the button from the label
// that reads the same; click_text clicks the button.
func zenityFindText(t *testing.T, k *desk, mode string, reader *ocr.Reader) {
	app := k.start(t, "zenity", "--question", "--title", "Kinds test", "--text", "Pick Charlie",
		"--ok-label", "Charlie", "--cancel-label", "Alpha")
	k.element(t, app, a11y.Query{Name: "Charlie", Exact: true, Role: "push button"})
	fin, srv := k.run(t, config.Settings{CoordMode: mode}, reader, "Press Charlie",
		code(`print([m.kind for m in find_text("charlie")])
click_text("charlie")`),
		code(`final_answer("pressed")`))
	if fin.Outcome != agent.Answered {
		t.Fatalf("run %+v; observation:\n%s", fin, lastText(t, srv, len(srv.Requests())-1))
	}
	if code, _ := exited(t, app); code != 0 {
		t.Errorf("zenity exited %d, want 0 (its OK button, labelled Charlie)", code)
	}
	if obs := lastText(t, srv, 1); !strings.Contains(obs, `["button", "text"]`) {
		t.Errorf("observation:\n%s", obs)
	}
}

// markOf returns the number of the mark listed as `[n] role "name"` in text,
// or "" when there is none.
func markOf(text, role, name string) string {
	m := regexp.MustCompile(`\[(\d+)\] ` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"`).FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return m[1]
}

// clickMarkReply clicks the mark listed for role and name in the newest
// observation, or answers that there is none.
func clickMarkReply(role, name string) llmtest.Reply {
	return llmtest.Reply{Func: func(r llmtest.Request) string {
		n := markOf(r.Last("user").Text(), role, name)
		if n == "" {
			return "Thought: no mark.\n```python\nfinal_answer(\"no mark for " + name + "\")\n```\n"
		}
		return "Thought: it is mark " + n + ".\n```python\nclick_mark(" + n + ")\n```\n"
	}}
}

// xmessageMarks: an app without accessibility gets marks on the words read.
func xmessageMarks(t *testing.T, k *desk, mode string, reader *ocr.Reader) {
	app := k.start(t, "xmessage", "-buttons", "Alpha,Bravo,Charlie", "-print", "Pick a name")
	k.window(t, app, "xmessage")
	fin, srv := k.run(t, config.Settings{CoordMode: mode, Marks: true}, reader, "Press Bravo",
		clickMarkReply("word", "Bravo"), code(`final_answer("pressed")`))
	if fin.Outcome != agent.Answered || fin.Answer != "pressed" {
		t.Fatalf("run %+v; first observation:\n%s", fin, lastText(t, srv, 0))
	}
	if code, out := exited(t, app); code != 102 || out != "Bravo" {
		t.Errorf("xmessage exited %d printing %q, want 102 (its second button) and Bravo", code, out)
	}
}

// tkForm: click_text on a Tk form's label and button; find_text right after
// the click reads the app's answer (the status label changed); find_text of
// text that is not there says what is closest; the tree has nothing for Tk.
func tkForm(t *testing.T, k *desk, mode string, reader *ocr.Reader) {
	form := testapps.StartForm(t, k.d)
	fin, srv := k.run(t, config.Settings{CoordMode: mode}, reader, "Save the name Ada",
		code(`print(len(find_elements()))
print(find_text("Submit"))`),
		code(`click_text("Name")
press("tab")
type_text("Ada")
click_text("Save")
print("after save", len(find_text("not saved", exact=True)), len(find_text("saved", exact=True)))`),
		code(`final_answer("saved")`))
	if fin.Outcome != agent.Answered {
		t.Fatalf("run %+v; observation:\n%s", fin, lastText(t, srv, len(srv.Requests())-1))
	}
	if name, _, err := form.Saved(); err != nil || name != "Ada" {
		t.Errorf("the form saved name %q (%v), want Ada", name, err)
	}
	if obs := lastText(t, srv, 2); !strings.Contains(obs, "Printed output:\nafter save 0 1\n") {
		t.Errorf("find_text after the click did not read the label it changed:\n%s", obs)
	}
	obs := lastText(t, srv, 1)
	for _, want := range []string{
		"Printed output:\n0\n[]\n",
		`find_elements(): 0 found; no application on this display exposes accessible elements`,
		`find_text("Submit"): no match; closest text read: `,
	} {
		if !strings.Contains(obs, want) {
			t.Errorf("observation lacks %q:\n%s", want, obs)
		}
	}
}

// zenityEntry: click_element focuses a GTK field before the keys are typed.
func zenityEntry(t *testing.T, k *desk, mode string, reader *ocr.Reader) {
	app := k.start(t, "zenity", "--entry", "--title", "Entry test", "--text", "Your name")
	k.element(t, app, a11y.Query{Name: "OK", Exact: true, Role: "push button"})
	fin, srv := k.run(t, config.Settings{CoordMode: mode}, reader, "Enter Ada Lovelace",
		code(`print(sorted([b.name for b in find_elements(role="button")]))
click_element("your name", role="textbox")
type_text("Ada Lovelace")
click_element("OK", role="button")`),
		code(`final_answer("entered")`))
	if fin.Outcome != agent.Answered {
		t.Fatalf("run %+v; observation:\n%s", fin, lastText(t, srv, len(srv.Requests())-1))
	}
	if code, out := exited(t, app); code != 0 || out != "Ada Lovelace" {
		t.Errorf("zenity exited %d printing %q, want Ada Lovelace", code, out)
	}
	if obs := lastText(t, srv, 1); !strings.Contains(obs, `["Cancel", "OK"]`) {
		t.Errorf("observation:\n%s", obs)
	}
}

// zenityMarks: marks from the tree, drawn on the image the model got, with
// the a11y and ocr layers in the observation.
func zenityMarks(t *testing.T, k *desk, mode string, reader *ocr.Reader) {
	app := k.start(t, "zenity", "--question", "--title", "Marks test", "--text", "Proceed with the plan?")
	yes := k.element(t, app, a11y.Query{Name: "Yes", Exact: true, Role: "push button"})
	fin, srv := k.run(t, config.Settings{CoordMode: mode, Marks: true, Observe: []string{"a11y", "ocr"}}, reader,
		"Say yes", clickMarkReply("push button", "Yes"), code(`final_answer("yes")`))
	if fin.Outcome != agent.Answered || fin.Answer != "yes" {
		t.Fatalf("run %+v; first observation:\n%s", fin, lastText(t, srv, 0))
	}
	if code, _ := exited(t, app); code != 0 {
		t.Errorf("zenity exited %d, want 0 (Yes)", code)
	}
	first := lastText(t, srv, 0)
	for _, want := range []string{"Marks on the screenshot", `push button "No"`, "Accessible elements", "push button\tYes\t",
		"Text on the screen", "Proceed with the plan?"} {
		if !strings.Contains(first, want) {
			t.Errorf("first observation lacks %q:\n%s", want, first)
		}
	}
	// The Yes button's box is drawn on the screenshot the model got: its top
	// edge is one saturated colour.
	img := screenshot(t, srv, 0)
	m := vision.NewMapper(image.Rectangle{Max: k.size}, vision.DefaultMaxSide, vision.CoordMode(mode))
	box := vision.ImageRect(m, yes.Bounds)
	if !framed(img, box) {
		t.Errorf("no mark frame along the top of %v (Yes at %v on the screen)", box, yes.Bounds)
	}
}

// framed reports whether most of the top row of box on img is one saturated
// colour: a set-of-marks frame, not a grey GTK button.
func framed(img *image.RGBA, box image.Rectangle) bool {
	counts := map[[3]uint8]int{}
	for x := box.Min.X; x < box.Max.X; x++ {
		c := img.RGBAAt(x, box.Min.Y)
		if max(c.R, c.G, c.B)-min(c.R, c.G, c.B) >= 90 {
			counts[[3]uint8{c.R, c.G, c.B}]++
		}
	}
	for _, n := range counts {
		if 10*n >= 7*box.Dx() {
			return true
		}
	}
	return false
}

// Without an accessibility bus on the driven display (and the environment
// naming another display's), find_elements says the tree is unavailable and
// points to find_text.
func TestGroundTreeUnavailable(t *testing.T) {
	k := startDesk(t, image.Pt(1280, 800), false)
	fin, srv := k.run(t, config.Settings{}, newOCR(t), "List the buttons",
		code(`print(find_elements(role="button"))`), code(`final_answer("none")`))
	if fin.Outcome != agent.Answered {
		t.Fatalf("run %+v", fin)
	}
	obs := lastText(t, srv, 1)
	for _, want := range []string{"find_elements: accessibility tree unavailable: no accessibility bus runs for this display",
		"use find_text to locate controls by their visible text instead"} {
		if !strings.Contains(obs, want) {
			t.Errorf("observation lacks %q:\n%s", want, obs)
		}
	}
}

// A display whose cookie is not the process's $XAUTHORITY (an eval task's
// private display): find_elements reads its tree with the display's own
// authority file, as the screen and the input do.
func TestGroundTreeWithTheDisplaysAuthority(t *testing.T) {
	k := startDesk(t, image.Pt(1280, 800), true)
	k.start(t, "zenity", "--question", "--title", "Authority", "--text", "Read my tree?")
	other, err := xdisplay.Start(t.Context(), xdisplay.Options{NoWindowManager: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })
	t.Setenv("XAUTHORITY", other.XAuthority) // another display's cookie
	fin, srv := k.runWith(t, config.Settings{}, Options{OCR: newOCR(t), XAuthority: k.d.XAuthority}, "List the buttons",
		code(`wait(2)
print([b.name for b in find_elements(role="push button")])`), code(`final_answer("listed")`))
	if fin.Outcome != agent.Answered {
		t.Fatalf("run %+v", fin)
	}
	if obs := lastText(t, srv, 1); !strings.Contains(obs, `"Yes"`) {
		t.Errorf("the tree was not read with the display's authority:\n%s", obs)
	}
}
