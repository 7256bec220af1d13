package dialect

import (
	"encoding/json"
	"errors"
	"image"
	"slices"
	"strings"
	"testing"
)

func toolCall(args string) string {
	return "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": " + args + "}\n</tool_call>"
}

func TestQwenParse(t *testing.T) {
	here := lines("here = cursor_position()", "if here == None:", `    fail("the mouse pointer is not on this screen; give the action a point")`)
	cases := []struct {
		name, dialect, reply string
		thought, code        string
	}{
		// OSWorld's qwen25vl_agent: [960, 540] -> pyautogui.click(954, 534) on 1920x1080.
		{"left_click", "qwen2.5", toolCall(`{"action": "left_click", "coordinate": [960, 540]}`), "", `click(960, 540)`},
		// Qwen3-VL cookbook output, computer_use form.
		{"qwen3 thought, action line and call", "qwen3",
			"Thought: The search bar is at the top.\nAction: \"I tapped on the search bar to begin searching for Musk.\"\n" +
				toolCall(`{"action": "left_click", "coordinate": [447, 81]}`),
			"The search bar is at the top.\nAction: \"I tapped on the search bar to begin searching for Musk.\"", `click(447, 81)`},
		// Jedi's grounder output: one line, no newlines inside the tags.
		{"compact tags", "qwen2.5", `<tool_call>{"name":"computer_use","arguments":{"action":"left_click","coordinate":[12,34]}}</tool_call>`, "", `click(12, 34)`},
		{"bare JSON line", "qwen2.5", "Clicking OK.\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"double_click\", \"coordinate\": [5, 6]}}", "Clicking OK.", `double_click(5, 6)`},
		{"arguments as a JSON string", "qwen3", toolCall(`"{\"action\": \"right_click\", \"coordinate\": [7, 8]}"`), "", `right_click(7, 8)`},
		{"key list", "qwen2.5", toolCall(`{"action": "key", "keys": ["ctrl", "c"]}`), "", `press("ctrl+c")`},
		{"xdotool key names", "qwen2.5", toolCall(`{"action": "key", "keys": ["Return"]}`), "", `press("enter")`},
		{"key combo in one string", "qwen3", toolCall(`{"action": "key", "keys": ["ctrl+shift+t"]}`), "", `press("ctrl+shift+t")`},
		{"modifiers after the key", "qwen3", toolCall(`{"action": "key", "keys": ["Page_Down", "shift"]}`), "", `press("shift+pagedown")`},
		{"type with quotes and newline", "qwen2.5", toolCall(`{"action": "type", "text": "He said \"hi\"\n"}`), "", `type_text("He said \"hi\"\n")`},
		{"move then click there", "qwen2.5", toolCall(`{"action": "mouse_move", "coordinate": [100, 200]}`) + "\n" + toolCall(`{"action": "left_click"}`),
			"", lines(`move(100, 200)`, `click(100, 200)`)},
		{"move then drag from there", "qwen2.5", toolCall(`{"action": "mouse_move", "coordinate": [1, 2]}`) + toolCall(`{"action": "left_click_drag", "coordinate": [3, 4]}`),
			"", lines(`move(1, 2)`, `drag(1, 2, 3, 4)`)},
		{"drag from the cursor", "qwen3", toolCall(`{"action": "left_click_drag", "coordinate": [3, 4]}`), "", lines(here, `drag(here[0], here[1], 3, 4)`)},
		{"click without a coordinate", "qwen2.5", toolCall(`{"action": "left_click"}`), "", lines(here, `click(here[0], here[1])`)},
		{"middle and triple", "qwen3", toolCall(`{"action": "middle_click", "coordinate": [1, 1]}`) + toolCall(`{"action": "triple_click", "coordinate": [2, 2]}`),
			"", lines(`click(1, 1, button="middle")`, `double_click(2, 2)`, `click(2, 2)`)},
		{"scroll down 500 pixels", "qwen2.5", toolCall(`{"action": "scroll", "pixels": -500, "coordinate": [10, 10]}`), "", `scroll(10, 10, direction="down", amount=10)`},
		{"scroll up a little is one click", "qwen2.5", toolCall(`{"action": "scroll", "pixels": 5, "coordinate": [10, 10]}`), "", `scroll(10, 10, direction="up", amount=1)`},
		{"hscroll right", "qwen3", toolCall(`{"action": "hscroll", "pixels": 120, "coordinate": [10, 10]}`), "", `scroll(10, 10, direction="right", amount=2)`},
		{"wait", "qwen2.5", toolCall(`{"action": "wait", "time": 2}`), "", `wait(2)`},
		{"terminate success without a thought gives no answer", "qwen2.5", toolCall(`{"action": "terminate", "status": "success"}`), "", `final_answer("")`},
		{"terminate success", "qwen2.5", "The form is sent.\n" + toolCall(`{"action": "terminate", "status": "success"}`), "The form is sent.", `final_answer("The form is sent.")`},
		{"terminate failure", "qwen3", "Action: No such file.\n" + toolCall(`{"action": "terminate", "status": "failure"}`), "", `final_answer("The task could not be done. Action: No such file.")`},
		{"answer", "qwen3", toolCall(`{"action": "answer", "text": "42"}`) + toolCall(`{"action": "terminate", "status": "success"}`), "", `final_answer("42")`},
		{"think tags", "qwen3", "<think>\nI should click.\n</think>\n\n" + toolCall(`{"action": "left_click", "coordinate": [1, 2]}`), "I should click.", `click(1, 2)`},
		{"box coordinate", "qwen2.5", toolCall(`{"action": "left_click", "coordinate": [10, 20, 30, 41]}`), "", `click(20, 30.5)`},
		{"string coordinate", "qwen2.5", toolCall(`{"action": "left_click", "coordinate": "(10, 20)"}`), "", `click(10, 20)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, _ := ByName(c.dialect)
			r, err := d.Parse(c.reply)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if r.Code != c.code {
				t.Errorf("Code =\n%s\nwant\n%s", r.Code, c.code)
			}
			if c.thought != "" && r.Thought != c.thought {
				t.Errorf("Thought = %q, want %q", r.Thought, c.thought)
			}
			checkCompiled(t, r.Code)
		})
	}
}

func TestQwenRun(t *testing.T) {
	cases := []struct {
		name, dialect string
		display       image.Point
		reply         string
		want          []string
	}{
		// OSWorld qwen25vl_agent: [960, 540] on 1920x1080 (image 1932x1092) -> (954, 534).
		{"qwen2.5 OSWorld example", "qwen2.5", fullHD, toolCall(`{"action": "left_click", "coordinate": [960, 540]}`), []string{"click 954,534 left x1"}},
		// Qwen3-VL cookbook: [447, 81] on 1440x3120 -> round(x/999*W) = (644, 253).
		{"qwen3 cookbook example", "qwen3", image.Pt(1440, 3120), toolCall(`{"action": "left_click", "coordinate": [447, 81]}`), []string{"click 644,253 left x1"}},
		{"qwen3 far corner", "qwen3", wxga, toolCall(`{"action": "double_click", "coordinate": [999, 999]}`), []string{"click 1365,767 left x2"}},
		{"qwen2.5 on 1366x768", "qwen2.5", wxga, toolCall(`{"action": "right_click", "coordinate": [1371, 755]}`), []string{"click 1365,766 right x1"}},
		{"type, key, scroll", "qwen2.5", fullHD,
			toolCall(`{"action": "type", "text": "hello"}`) + toolCall(`{"action": "key", "keys": ["ctrl", "a"]}`) + toolCall(`{"action": "scroll", "pixels": -100, "coordinate": [966, 546]}`),
			[]string{`type "hello"`, "press ctrl+a", "scroll 960,540 down 2"}},
		{"click at the cursor", "qwen2.5", fullHD, toolCall(`{"action": "left_click"}`), []string{"click 10,20 left x1"}},
		{"triple click", "qwen3", fullHD, toolCall(`{"action": "triple_click", "coordinate": [499.5, 499.5]}`), []string{"click 960,540 left x2", "click 960,540 left x1"}},
		{"answer ends the run", "qwen3", fullHD, toolCall(`{"action": "answer", "text": "Paris"}`), []string{"final Paris"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, _ := ByName(c.dialect)
			got, res := run(t, d, c.display, c.reply)
			if res.Err != nil {
				t.Fatalf("run: %v", res.Err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("input = %q, want %q", got, c.want)
			}
		})
	}
	t.Run("qwen3 at 1000 is outside 0..999", func(t *testing.T) {
		d, _ := ByName("qwen3")
		got, res := run(t, d, fullHD, toolCall(`{"action": "left_click", "coordinate": [1000, 5]}`))
		if res.Err == nil || !strings.Contains(res.Err.Msg, "0..999") || len(got) != 0 {
			t.Errorf("input %q, error %v", got, res.Err)
		}
	})
}

func TestQwenFormatErrors(t *testing.T) {
	cases := []struct{ name, dialect, reply, reason, help string }{
		{"no tool call", "qwen2.5", "I will click the button.", "no <tool_call>", `"action": "left_click"`},
		// Qwen2.5-VL mobile_agent.ipynb's output is the mobile tool, not computer_use.
		{"mobile tool", "qwen2.5", "<tool_call>\n{\"name\": \"mobile_use\", \"arguments\": {\"action\": \"click\", \"coordinate\": [935, 406]}}\n</tool_call>", "mobile_use", "computer_use"},
		{"bad JSON", "qwen3", "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\"\n</tool_call>", "not a JSON object", "(0 to 999)"},
		{"cut off", "qwen3", "<tool_call>\n{\"name\": \"computer_use\", \"argu", "not a JSON object", "tool call"},
		{"unknown action lists them", "qwen2.5", toolCall(`{"action": "open_app", "text": "x"}`), "open_app", "left_click_drag"},
		{"no action", "qwen2.5", toolCall(`{"coordinate": [1, 2]}`), "no action", "Actions:"},
		{"mouse_move without point", "qwen2.5", toolCall(`{"action": "mouse_move"}`), "needs a coordinate", ""},
		{"scroll too far", "qwen2.5", toolCall(`{"action": "scroll", "pixels": -100000}`), "too far", ""},
		{"words as a coordinate", "qwen2.5", toolCall(`{"action": "left_click", "coordinate": ["x", "y"]}`), "not numbers", ""},
		{"unknown key", "qwen2.5", toolCall(`{"action": "key", "keys": ["hyper"]}`), "hyper", ""},
		{"bad status", "qwen2.5", toolCall(`{"action": "terminate", "status": "maybe"}`), "maybe", ""},
		{"answer-like gets the terminate hint", "qwen2.5", "The answer is 4.", "no <tool_call>", `"terminate"`},
		{"text after the object", "qwen2.5", "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"wait\"}} launch()\n</tool_call>", "text after", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, _ := ByName(c.dialect)
			r, err := d.Parse(c.reply)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse = %+v, %v; want a *FormatError", r, err)
			}
			if r.Code != "" || !strings.Contains(fe.Reason, c.reason) || !strings.Contains(fe.Help, c.help) {
				t.Errorf("code %q, FormatError{%q}\nhelp:\n%s\nwant reason ~%q, help ~%q", r.Code, fe.Reason, fe.Help, c.reason, c.help)
			}
		})
	}
}

func TestQwenSystemPrompt(t *testing.T) {
	for _, c := range []struct {
		dialect, resolution string
		actions             []string
	}{
		{"qwen2.5", "The screen's resolution is 1932x1092.", []string{`"left_click_drag"`, `"terminate"`}},
		{"qwen3", "The screen's resolution is 999x999.", []string{`"triple_click"`, `"hscroll"`, `"answer"`, "# Response format"}},
	} {
		t.Run(c.dialect, func(t *testing.T) {
			d, _ := ByName(c.dialect)
			sp := d.Space(fullHD, 0)
			s, err := d.SystemPrompt(Prompt{Task: "t", Image: sp.Image})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range append(c.actions, c.resolution, "<tools>\n{\"type\": \"function\", \"function\": {\"name_for_human\": \"computer_use\"", "<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>") {
				if !strings.Contains(s, w) {
					t.Errorf("system prompt lacks %q:\n%s", w, s)
				}
			}
			// The tool line is JSON the model can read back.
			line := s[strings.Index(s, "<tools>\n")+8 : strings.Index(s, "\n</tools>")]
			var v map[string]any
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Errorf("tool declaration is not JSON: %v", err)
			}
		})
	}
}
