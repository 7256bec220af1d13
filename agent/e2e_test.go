//go:build linux

package agent_test

import (
	"encoding/base64"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"deskpilot/agent"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/internal/config"
)

// TestFillFormEndToEnd: a scripted model fills in a real Tk form and saves it, using
// coordinates it computes from the widget layout and the size of the image it was
// sent. The test checks the file the app wrote and the trace, in both coordinate modes.
func TestFillFormEndToEnd(t *testing.T) {
	for _, mode := range []string{"pixels", "norm1000"} {
		t.Run(mode, func(t *testing.T) {
			form := startForm(t)
			name := "Grüße, 東京 ✓"
			notes := "line one\nline two: " + strings.Repeat("ab", 20)
			// A model takes its time: replies come after a realistic delay, so two
			// clicks in different fields never fall inside Tk's double-click interval
			// (Tk, unlike GTK and Qt, ignores the distance between the clicks).
			think := func() { time.Sleep(600 * time.Millisecond) }
			r := newRig(t, config.Settings{CoordMode: mode},
				llmtest.Reply{Func: func(req llmtest.Request) string {
					return fmt.Sprintf("Thought: click the name field and type.\n```python\nclick(%s)\ntype_text(%q)\n```",
						clickAt(t, form, "name", req, mode), name)
				}},
				llmtest.Reply{Func: func(req llmtest.Request) string {
					think()
					return fmt.Sprintf("Thought: now the notes.\n```python\nclick(%s)\ntype_text(%q)\n```",
						clickAt(t, form, "notes", req, mode), notes)
				}},
				llmtest.Reply{Func: func(req llmtest.Request) string {
					think()
					return fmt.Sprintf("Thought: save.\n```python\nclick(%s)\n```", clickAt(t, form, "save", req, mode))
				}},
				code(`final_answer("saved the form")`),
			)
			fin := r.run("Fill in the form with my name and notes, then save it.")
			if fin.Outcome != agent.Answered || fin.Answer != "saved the form" {
				t.Fatalf("run ended %s %q (error %q)", fin.Outcome, fin.Answer, fin.Error)
			}
			gotName, gotNotes, err := form.Saved()
			if err != nil {
				t.Fatal(err)
			}
			if gotName != name || gotNotes != notes {
				t.Errorf("form saved name %q notes %q; want %q, %q", gotName, gotNotes, name, notes)
			}
			reqs := r.srv.Requests()
			if len(reqs) != 4 {
				t.Fatalf("%d model calls, want 4", len(reqs))
			}
			if img := reqs[0].Images(); len(img) != 1 || img[0].Size.X != 1280 || img[0].Size.Y != 800 {
				t.Errorf("first request images = %+v, want one 1280x800 screenshot", img)
			}
			sys := reqs[0].Messages[0]
			if sys.Role != "system" || !strings.Contains(sys.Text(), "def click(") || !strings.Contains(sys.Text(), "1280x800") {
				t.Errorf("system prompt lacks the tool stubs or the image size:\n%s", sys.Text())
			}
			if mode == "norm1000" && !strings.Contains(sys.Text(), "1000") {
				t.Errorf("norm1000 system prompt does not explain the 0..1000 space")
			}
			tr := r.readTrace(fin)
			if tr.End.Outcome != "answered" || tr.End.Steps != 4 {
				t.Errorf("trace: outcome %q with %d steps, want answered with 4", tr.End.Outcome, tr.End.Steps)
			}
			step1, ok := tr.Step(1)
			if !ok || len(step1.Actions) != 2 || step1.Frame == "" || step1.ModelFrame == "" {
				t.Fatalf("trace step 1: %d actions, frame %q, model frame %q; want click + type_text on recorded frames",
					len(step1.Actions), step1.Frame, step1.ModelFrame)
			}
			// The model's view is stored as the very bytes it was sent.
			stored, err := os.ReadFile(filepath.Join(fin.TraceDir, step1.ModelFrame))
			if err != nil {
				t.Fatal(err)
			}
			if img := reqs[0].Images()[0]; img.ImageURL != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(stored) {
				t.Errorf("the model frame of step 1 (%d bytes) is not the image of the first request", len(stored))
			}
			click := step1.Actions[0]
			w, err := form.Widget("name")
			if err != nil {
				t.Fatal(err)
			}
			if click.Screen == nil || !image.Pt(click.Screen[0], click.Screen[1]).In(w) {
				t.Errorf("trace click at screen %v, not inside the name field %v", click.Screen, w)
			}
		})
	}
}
