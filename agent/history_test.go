package agent_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"deskpilot/agent"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/internal/config"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// historyCase is one dialect's three replies: an action that works, one with
// a point outside its space, and its finish.
type historyCase struct {
	dialect, coords string
	replies         [3]string
}

func historyCases() []historyCase {
	tc := func(call string) string {
		return "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": " + call + "}\n</tool_call>"
	}
	uitars := [3]string{
		"Thought: I scroll the page.\nAction: scroll(start_box='(100,100)', direction='down')",
		"Thought: I click far right.\nAction: click(start_box='(5000,10)')",
		"Thought: Done.\nAction: finished(content='done')",
	}
	return []historyCase{
		{dialect: "code", replies: [3]string{
			"Thought: move.\n```python\nmove(10, 10)\n```", "Thought: click.\n```python\nclick(5000, 10)\n```",
			"Thought: done.\n```python\nfinal_answer(\"done\")\n```"}},
		{dialect: "uitars-1.5", replies: uitars},
		{dialect: "uitars-1.0", replies: uitars},
		{dialect: "doubao", replies: [3]string{
			"Thought: I scroll.\nAction: scroll(point='<point>100 100</point>', direction='down')",
			"Thought: I click.\nAction: click(point='<point>1200 10</point>')",
			"Thought: Done.\nAction: finished(content='done')"}},
		{dialect: "qwen2.5", replies: [3]string{
			tc(`{"action": "mouse_move", "coordinate": [10, 10]}`), tc(`{"action": "left_click", "coordinate": [5000, 10]}`),
			tc(`{"action": "terminate", "status": "success"}`)}},
		{dialect: "qwen3", replies: [3]string{
			"Action: Move the mouse.\n" + tc(`{"action": "mouse_move", "coordinate": [10, 10]}`),
			"Action: Click.\n" + tc(`{"action": "left_click", "coordinate": [1200, 10]}`),
			"Action: Done.\n" + tc(`{"action": "terminate", "status": "success"}`)}},
		{dialect: "pyautogui", coords: "pixels", replies: [3]string{
			"```python\npyautogui.moveTo(10, 10)\n```", "```python\npyautogui.click(5000, 10)\n```", "```DONE```"}},
		{dialect: "pyautogui", coords: "smart", replies: [3]string{
			"## Thought:\nMove.\n## Action:\nMove the mouse.\n## Code:\n```python\npyautogui.moveTo(x=10, y=10)\n```",
			"## Thought:\nClick.\n## Action:\nClick.\n## Code:\n```python\npyautogui.click(x=5000, y=10)\n```",
			"## Code:\n```code\ncomputer.terminate(status='success')\n```"}},
	}
}

// TestHistoryOfEachDialect is the regression test of how each dialect's
// conversation goes back to the model: the third request (after a step that
// worked and one whose point was outside the space) is summarised — roles,
// texts, image sizes — and compared with testdata/history/<dialect>.golden
// (go test -update rewrites them).
func TestHistoryOfEachDialect(t *testing.T) {
	for _, hc := range historyCases() {
		name := hc.dialect
		if hc.coords != "" {
			name += "-" + hc.coords
		}
		t.Run(name, func(t *testing.T) {
			var replies []llmtest.Reply
			for _, r := range hc.replies {
				replies = append(replies, llmtest.Reply{Text: r})
			}
			r := newRig(t, config.Settings{Dialect: hc.dialect, PyAutoGUICoords: hc.coords}, replies...)
			fin := r.run("Do the thing.")
			if fin.Outcome != agent.Answered {
				t.Fatalf("run ended %s (%s)", fin.Outcome, fin.Error)
			}
			reqs := r.srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want 3", len(reqs))
			}
			got := summarize(reqs[2])
			checkGolden(t, filepath.Join("history", name+".golden"), got)
			if !strings.Contains(got, "outside the screenshot") {
				t.Errorf("the model was not told its point was outside the space")
			}
		})
	}
}

// changed is the observation's line on whether the screen changed: the shared
// test display may change under a step (another test's window going away).
var changed = regexp.MustCompile(`Screen changed: [^\n]*`)

// summarize renders a request as its roles, texts and image sizes. Prompts
// are cut to their first line; whether the screen changed is left out.
func summarize(req llmtest.Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "stop: %q\n", req.Stop)
	for i, m := range req.Messages {
		fmt.Fprintf(&b, "%d %s:", i, m.Role)
		for _, p := range m.Parts {
			switch {
			case p.Type == "image_url":
				fmt.Fprintf(&b, " [image %dx%d]", p.Size.X, p.Size.Y)
			case strings.Count(p.Text, "\n") > 12:
				first, _, _ := strings.Cut(p.Text, "\n")
				fmt.Fprintf(&b, " %q…", first)
			default:
				fmt.Fprintf(&b, " %q", changed.ReplaceAllString(p.Text, "Screen changed: …"))
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// checkGolden compares got with testdata/name; -update rewrites the file.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("request differs from %s (run go test -update after checking):\n%s", path, got)
	}
}

// A reply a dialect cannot read gets that dialect's own format help, and an
// unknown action the list of its actions, in the next request.
func TestBadRepliesGetTheDialectsHelp(t *testing.T) {
	tests := []struct {
		dialect, bad, finish string
		want                 []string
	}{
		{"uitars-1.5", "I will click the Save button now.", "Action: finished(content='x')",
			[]string{"Your reply could not be read", "Action: click(start_box='(x,y)')"}},
		{"doubao", "Thought: open it.\nAction: launch_rocket(point='<point>1 2</point>')", "Action: finished(content='x')",
			[]string{"launch_rocket", "click, left_double, right_single, drag, hotkey"}},
		{"qwen3", "Action: click it.", "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"terminate\", \"status\": \"success\"}}\n</tool_call>",
			[]string{"no <tool_call> block", `"coordinate": [x, y] (0 to 999)`}},
		{"pyautogui", "```python\nimport os\nos.system('rm -rf /')\n```", "```DONE```",
			[]string{"only pyautogui and time can be imported", "```DONE```"}},
	}
	for _, tt := range tests {
		t.Run(tt.dialect, func(t *testing.T) {
			r := newRig(t, config.Settings{Dialect: tt.dialect}, llmtest.Reply{Text: tt.bad}, llmtest.Reply{Text: tt.finish})
			if fin := r.run("Do it."); fin.Outcome != agent.Answered {
				t.Fatalf("run ended %s (%s)", fin.Outcome, fin.Error)
			}
			text := r.srv.Requests()[1].Messages
			var all strings.Builder
			for _, m := range text {
				all.WriteString(m.Text())
			}
			for _, w := range tt.want {
				if !strings.Contains(all.String(), w) {
					t.Errorf("the second request lacks %q:\n%s", w, r.lastUser(1))
				}
			}
		})
	}
}
