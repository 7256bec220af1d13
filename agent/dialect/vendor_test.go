package dialect

import (
	"encoding/json"
	"errors"
	"image"
	"strings"
	"testing"

	"deskpilot/agent/convo"
)

// call is a tool call of a vendor reply.
func tcall(name, id, input string) convo.ToolCall {
	return convo.ToolCall{ID: id, Name: name, Input: json.RawMessage(input)}
}

// The vendors' documented replies, verbatim where the docs give them, read
// into programs over the builtins.
func TestVendorReplies(t *testing.T) {
	tests := []struct {
		name, dialect string
		res           convo.Response
		want          []string // lines the program holds, in order
		wantErr       string   // a FormatError reason holding this
		checks        int
	}{
		// OpenAI's computer use guide (the preview's single action).
		{name: "openai preview click", dialect: "openai-computer", res: convo.Response{Calls: []convo.ToolCall{tcall("computer", "call_zw3",
			`{"type": "computer_call", "id": "cu_67cc", "call_id": "call_zw3", "action": {"type": "click", "button": "left", "x": 156, "y": 50}, "pending_safety_checks": [], "status": "completed"}`)}},
			want: []string{"click(156, 50)"}},
		{name: "openai safety check", dialect: "openai-computer", res: convo.Response{Calls: []convo.ToolCall{{ID: "call_1", Name: "computer",
			Input:  json.RawMessage(`{"type": "computer_call", "call_id": "call_1", "action": {"type": "type", "text": "hello"}}`),
			Checks: []convo.SafetyCheck{{ID: "cu_sc_67cb", Code: "malicious_instructions", Message: "We've detected instructions that may cause your application to perform malicious or unauthorized actions. Please acknowledge this warning if you'd like to proceed."}}}}},
			want: []string{`type_text("hello")`}, checks: 1},
		{name: "openai GA batch", dialect: "openai-computer", res: convo.Response{Calls: []convo.ToolCall{tcall("computer", "call_2",
			`{"type": "computer_call", "call_id": "call_2", "actions": [{"type": "double_click", "x": 10, "y": 20}, {"type": "keypress", "keys": ["CTRL", "L"]}, {"type": "type", "text": "x"}, {"type": "scroll", "x": 5, "y": 6, "scroll_x": 0, "scroll_y": 150}, {"type": "drag", "path": [{"x": 1, "y": 2}, {"x": 3, "y": 4}, {"x": 7, "y": 8}]}, {"type": "move", "x": 9, "y": 9}, {"type": "click", "button": "right", "x": 1, "y": 1}, {"type": "click", "button": "wheel", "x": 2, "y": 2}, {"type": "wait"}, {"type": "screenshot"}]}`)}},
			want: []string{"double_click(10, 20)", `press("ctrl+l")`, `type_text("x")`, `scroll(5, 6, direction="down", amount=3)`,
				"drag(1, 2, 7, 8)", "move(9, 9)", "right_click(1, 1)", `click(2, 2, button="middle")`, "wait(2)"}},
		{name: "openai keys held", dialect: "openai-computer", res: convo.Response{Calls: []convo.ToolCall{tcall("computer", "c",
			`{"actions": [{"type": "click", "x": 1, "y": 1, "keys": ["SHIFT"]}, {"type": "click", "button": "left", "x": 5, "y": 5, "keys": ["CTRL", "SHIFT"]}, {"type": "scroll", "x": 5, "y": 6, "scroll_x": 0, "scroll_y": -100, "keys": ["CTRL"]}, {"type": "drag", "path": [{"x": 1, "y": 2}, {"x": 3, "y": 4}], "keys": ["ALT"]}, {"type": "double_click", "x": 7, "y": 8, "keys": ["META"]}]}`)}},
			want: []string{`click(1, 1, modifiers="shift")`, `click(5, 5, modifiers="ctrl+shift")`, `scroll(5, 6, direction="up", amount=2, modifiers="ctrl")`,
				`drag(1, 2, 3, 4, modifiers="alt")`, `double_click(7, 8, modifiers="super")`}},
		{name: "openai non-modifier held", dialect: "openai-computer", res: convo.Response{Calls: []convo.ToolCall{tcall("computer", "c",
			`{"actions": [{"type": "click", "x": 1, "y": 1, "keys": ["A"]}]}`)}}, wantErr: `"A" cannot be held during a mouse action`},
		{name: "openai keys on type", dialect: "openai-computer", res: convo.Response{Calls: []convo.ToolCall{tcall("computer", "c",
			`{"actions": [{"type": "type", "text": "x", "keys": ["SHIFT"]}]}`)}}, wantErr: "keys are held only during mouse actions"},
		{name: "openai unknown action", dialect: "openai-computer", res: convo.Response{Calls: []convo.ToolCall{tcall("computer", "c",
			`{"actions": [{"type": "teleport"}]}`)}}, wantErr: `unknown action "teleport"`},
		{name: "openai negative point", dialect: "openai-computer", res: convo.Response{Calls: []convo.ToolCall{tcall("computer", "c",
			`{"action": {"type": "click", "x": -5, "y": 1}}`)}}, wantErr: "outside the screenshot"},
		{name: "openai answer", dialect: "openai-computer", res: convo.Response{Text: "The price is 42."}, want: []string{`final_answer("The price is 42.")`}},
		// Anthropic's computer use tool reference.
		{name: "anthropic actions", dialect: "anthropic-computer", res: convo.Response{Text: "I'll look.", Calls: []convo.ToolCall{
			tcall("computer", "toolu_01A09q90qw90lq917835lq9", `{"action": "screenshot"}`),
			tcall("computer", "t2", `{"action": "left_click", "coordinate": [500, 300]}`),
			tcall("computer", "t3", `{"action": "type", "text": "Hello, world!"}`),
			tcall("computer", "t4", `{"action": "key", "text": "ctrl+s"}`),
			tcall("computer", "t5", `{"action": "scroll", "coordinate": [500, 300], "scroll_direction": "down", "scroll_amount": 3}`),
			tcall("computer", "t6", `{"action": "left_click_drag", "start_coordinate": [400, 300], "coordinate": [600, 500]}`),
			tcall("computer", "t7", `{"action": "triple_click", "coordinate": [500, 300]}`),
			tcall("computer", "t8", `{"action": "hold_key", "text": "shift", "duration": 1}`),
			tcall("computer", "t9", `{"action": "left_mouse_down"}`),
			tcall("computer", "t10", `{"action": "mouse_move", "coordinate": [100, 200]}`),
			tcall("computer", "t11", `{"action": "left_mouse_up"}`),
			tcall("computer", "t12", `{"action": "zoom", "region": [0, 0, 400, 300]}`),
			tcall("computer", "t13", `{"action": "cursor_position"}`),
			tcall("computer", "t14", `{"action": "wait", "duration": 2}`),
		}}, want: []string{"click(500, 300)", `type_text("Hello, world!")`, `press("ctrl+s")`, `scroll(500, 300, direction="down", amount=3)`,
			"drag(400, 300, 600, 500)", "double_click(500, 300)", `hold("shift", 1)`, "drag(500, 300, 100, 200)", "zoom(0, 0, 400, 300)", "cursor_position()", "wait(2)"}},
		{name: "anthropic unknown", dialect: "anthropic-computer", res: convo.Response{Calls: []convo.ToolCall{tcall("computer", "t", `{"action": "teleport"}`)}},
			wantErr: `unknown action "teleport"`},
		{name: "anthropic other tool", dialect: "anthropic-computer", res: convo.Response{Calls: []convo.ToolCall{tcall("bash", "t", `{"command": "rm -rf /"}`)}},
			wantErr: `unknown tool "bash"`},
		// left_mouse_down in one reply, left_mouse_up in a later one: the
		// button stays down in between (mouse_down, then moves drag).
		{name: "anthropic mouse down for the next reply", dialect: "anthropic-computer", res: convo.Response{Calls: []convo.ToolCall{
			tcall("computer", "t1", `{"action": "left_mouse_down", "coordinate": [10, 20]}`),
			tcall("computer", "t2", `{"action": "mouse_move", "coordinate": [30, 40]}`)}},
			want: []string{"mouse_down(10, 20)", "move(30, 40)"}},
		{name: "anthropic mouse up of an earlier reply", dialect: "anthropic-computer", res: convo.Response{Calls: []convo.ToolCall{
			tcall("computer", "t1", `{"action": "mouse_move", "coordinate": [50, 60]}`),
			tcall("computer", "t2", `{"action": "left_mouse_up"}`)}},
			want: []string{"move(50, 60)", "mouse_up(50, 60)"}},
		{name: "anthropic mouse down and up in place", dialect: "anthropic-computer", res: convo.Response{Calls: []convo.ToolCall{
			tcall("computer", "t1", `{"action": "left_mouse_down", "coordinate": [10, 20]}`),
			tcall("computer", "t2", `{"action": "left_mouse_up", "coordinate": [10, 20]}`)}},
			want: []string{"click(10, 20)"}},
		{name: "anthropic modifier click", dialect: "anthropic-computer", res: convo.Response{Calls: []convo.ToolCall{
			tcall("computer", "t1", `{"action": "left_click", "coordinate": [1, 2], "text": "shift"}`),
			tcall("computer", "t2", `{"action": "left_click", "coordinate": [3, 4], "text": "ctrl+shift"}`),
			tcall("computer", "t3", `{"action": "scroll", "coordinate": [5, 6], "scroll_direction": "up", "scroll_amount": 2, "text": "ctrl"}`),
			tcall("computer", "t4", `{"action": "triple_click", "coordinate": [7, 8], "text": "alt"}`)}},
			want: []string{`click(1, 2, modifiers="shift")`, `click(3, 4, modifiers="ctrl+shift")`, `scroll(5, 6, direction="up", amount=2, modifiers="ctrl")`,
				`double_click(7, 8, modifiers="alt")`, `click(7, 8, modifiers="alt")`}},
		{name: "anthropic non-modifier on a click", dialect: "anthropic-computer", res: convo.Response{Calls: []convo.ToolCall{tcall("computer", "t", `{"action": "left_click", "coordinate": [1, 2], "text": "a"}`)}},
			wantErr: `"a" cannot be held during a mouse action`},
		{name: "anthropic held modifier with the button for the next reply", dialect: "anthropic-computer", res: convo.Response{Calls: []convo.ToolCall{
			tcall("computer", "t", `{"action": "left_mouse_down", "coordinate": [1, 2], "text": "shift"}`)}},
			wantErr: "stays down for the next reply"},
		// Gemini's computer use guide (2.5 names and the desktop ones).
		{name: "gemini 2.5 type_text_at", dialect: "gemini-computer", res: convo.Response{Text: "I will type the search query into the search bar. The search bar is in the center of the page.",
			Calls: []convo.ToolCall{tcall("type_text_at", "", `{"x": 371, "y": 470, "text": "highly rated smart fridges with touchscreen, 2 doors, around 25 cu ft, priced below 4000 dollars on Google Shopping", "press_enter": true}`)}},
			want: []string{"click(371, 470)", `press("ctrl+a")`, `press("backspace")`, `type_text("highly rated smart fridges`, `press("enter")`}},
		{name: "gemini safety decision", dialect: "gemini-computer", res: convo.Response{Calls: []convo.ToolCall{tcall("click_at", "",
			`{"x": 60, "y": 100, "safety_decision": {"explanation": "I have encountered a CAPTCHA challenge that requires interaction. I need you to complete the challenge by clicking the 'I'm not a robot' checkbox and any subsequent verification steps.", "decision": "require_confirmation"}}`)}},
			want: []string{"click(60, 100)"}, checks: 1},
		{name: "gemini 2.5 others", dialect: "gemini-computer", res: convo.Response{Calls: []convo.ToolCall{
			tcall("key_combination", "", `{"keys": "Control+A"}`),
			tcall("drag_and_drop", "", `{"y": 100, "destination_y": 500, "destination_x": 500, "x": 100}`),
			tcall("scroll_at", "", `{"y": 500, "x": 500, "direction": "down"}`),
			tcall("hover_at", "", `{"y": 150, "x": 250}`),
			tcall("wait_5_seconds", "", `{}`),
		}}, want: []string{`press("ctrl+a")`, "drag(100, 100, 500, 500)", `scroll(500, 500, direction="down", amount=16)`, "move(250, 150)", "wait(5)"}},
		{name: "gemini desktop", dialect: "gemini-computer", res: convo.Response{Calls: []convo.ToolCall{
			tcall("double_click", "", `{"y": 10, "x": 20, "intent": "open the file"}`),
			tcall("hotkey", "", `{"keys": ["ctrl", "s"], "intent": "save"}`),
			tcall("scroll", "", `{"y": 500, "x": 500, "direction": "up", "magnitude_in_pixels": 300, "intent": "see the top"}`),
			tcall("mouse_down", "", `{"y": 1, "x": 2}`), tcall("mouse_up", "", `{"y": 3, "x": 4}`),
			tcall("press_key", "", `{"key": "enter"}`),
		}}, want: []string{"double_click(20, 10)", `press("ctrl+s")`, `scroll(500, 500, direction="up", amount=6)`, "drag(2, 1, 4, 3)", `press("enter")`}},
		{name: "gemini off the grid", dialect: "gemini-computer", res: convo.Response{Calls: []convo.ToolCall{tcall("click", "", `{"x": 1000, "y": 1}`)}},
			wantErr: "x and y run from 0 to 999"},
		{name: "gemini browser function", dialect: "gemini-computer", res: convo.Response{Calls: []convo.ToolCall{tcall("navigate", "", `{"url": "https://www.wikipedia.org"}`)}},
			wantErr: "navigate is a browser function"},
		// Holo3's agent loop docs, verbatim, and its native tool_calls.
		{name: "holo3 step", dialect: "holo3", res: convo.Response{Text: `{
  "note": "Submit succeeded; receipt URL is /orders/8421.",
  "thought": "Recording the receipt URL before navigating away.",
  "tool_call": {
    "tool_name": "click",
    "element": "Continue button at the bottom right",
    "x": 932,
    "y": 880
  }
}`, Reasoning: "I should click Continue."}, want: []string{"click(932, 880)"}},
		{name: "holo3 native tool_calls", dialect: "holo3", res: convo.Response{Calls: []convo.ToolCall{tcall("write", "call_9", `{"text": "hello"}`)}},
			want: []string{`type_text("hello")`}},
		{name: "holo3 answer", dialect: "holo3", res: convo.Response{Text: "```json\n{\"note\": null, \"thought\": \"done\", \"tool_call\": {\"tool_name\": \"answer\", \"text\": \"42\"}}\n```"},
			want: []string{`final_answer("42")`}},
		{name: "holo3 unknown tool", dialect: "holo3", res: convo.Response{Text: `{"note": null, "thought": "x", "tool_call": {"tool_name": "teleport"}}`},
			wantErr: `unknown tool "teleport"`},
		{name: "holo3 not json", dialect: "holo3", res: convo.Response{Text: "I'll click the button."}, wantErr: "not one JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := New(tt.dialect, Options{Model: "claude-opus-4-5"})
			if err != nil {
				t.Fatal(err)
			}
			r, err := d.(ToolDialect).ParseResponse(tt.res)
			if tt.wantErr != "" {
				var fe *FormatError
				if !errors.As(err, &fe) || !strings.Contains(fe.Reason, tt.wantErr) || fe.Help == "" {
					t.Fatalf("err = %v, want a FormatError with %q", err, tt.wantErr)
				}
				if len(r.Calls) != len(tt.res.Calls) {
					t.Errorf("the failed reply lost its calls: %d of %d", len(r.Calls), len(tt.res.Calls))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			at := 0
			for _, w := range tt.want {
				i := strings.Index(r.Code[at:], w)
				if i < 0 {
					t.Fatalf("program lacks %q after offset %d:\n%s", w, at, r.Code)
				}
				at += i + len(w)
			}
			if len(r.Checks) != tt.checks {
				t.Errorf("checks = %v, want %d", r.Checks, tt.checks)
			}
			if err := compiledOK(r.Code); err != nil {
				t.Errorf("%v\n%s", err, r.Code)
			}
		})
	}
}

// Each vendor's screenshot is the largest it takes without rescaling.
func TestVendorSpaces(t *testing.T) {
	for _, tt := range []struct {
		dialect, model string
		display, want  image.Point
	}{
		{"anthropic-computer", "claude-sonnet-4-5", image.Pt(1920, 1080), image.Pt(1429, 804)},
		{"anthropic-computer", "claude-sonnet-4-5", image.Pt(1366, 768), image.Pt(1366, 768)},
		{"anthropic-computer", "claude-sonnet-4-6", image.Pt(1568, 1568), image.Pt(1072, 1072)},
		{"anthropic-computer", "claude-opus-4-7", image.Pt(2560, 1440), image.Pt(2560, 1440)},
		{"anthropic-computer", "claude-opus-4-7", image.Pt(3840, 2160), image.Pt(2576, 1449)},
		{"openai-computer", "gpt-5.4", image.Pt(2560, 1440), image.Pt(2560, 1440)},
		{"openai-computer", "gpt-5.4", image.Pt(5120, 2880), image.Pt(4266, 2400)},
	} {
		d, _ := New(tt.dialect, Options{Model: tt.model})
		got := d.Space(tt.display, 1366).Image
		if got != tt.want {
			t.Errorf("%s %s on %v: %v, want %v", tt.dialect, tt.model, tt.display, got, tt.want)
		}
		if tt.dialect == "anthropic-computer" {
			long, px := 1568, 1_150_000
			if strings.Contains(tt.model, "4-7") {
				long, px = 2576, 3_750_000
			}
			if max(got.X, got.Y) > long || got.X*got.Y > px {
				t.Errorf("%v passes the limits %d px, %d pixels", got, long, px)
			}
		}
	}
	d, _ := New("anthropic-computer", Options{Model: "claude-sonnet-4-5"})
	var r convo.Request
	d.(ToolDialect).Prepare(&r, Space{Image: image.Pt(1429, 804)}, true)
	if r.Computer == nil || r.Computer.Type != "computer_20250124" || r.Computer.Display != image.Pt(1429, 804) || r.Computer.EnableZoom {
		t.Errorf("sonnet 4.5 tool %+v", r.Computer)
	}
	d, _ = New("anthropic-computer", Options{Model: "claude-opus-4-5-20251101"})
	d.(ToolDialect).Prepare(&r, Space{Image: image.Pt(1, 1)}, true)
	if r.Computer.Type != "computer_20251124" || !r.Computer.EnableZoom {
		t.Errorf("opus 4.5 tool %+v", r.Computer)
	}
	h, _ := New("holo3", Options{})
	var hr convo.Request
	h.(ToolDialect).Prepare(&hr, Space{}, true)
	if hr.Schema == nil || !json.Valid(hr.Schema.Schema) {
		t.Fatalf("holo3 schema %+v", hr.Schema)
	}
	var plan convo.Request
	h.(ToolDialect).Prepare(&plan, Space{}, false)
	if plan.Schema != nil {
		t.Error("a plan call got the step schema")
	}
}

// Results answer every call, the screenshot with the last; approved safety
// checks are acknowledged on their call; a refusal is an error result.
func TestVendorResults(t *testing.T) {
	shot := convo.Part{Image: []byte{1}, ImageMIME: "image/png"}
	check := convo.SafetyCheck{ID: "sc", Code: "c", Message: "m"}
	reply := Reply{Calls: []convo.ToolCall{{ID: "a", Name: "computer"}, {ID: "b", Name: "computer", Checks: []convo.SafetyCheck{check}}}}
	parts := OpenAIComputer{}.Results(reply, Outcome{}, []convo.SafetyCheck{check}, []convo.Part{shot})
	if len(parts) != 4 || parts[0].Result.CallID != "a" || parts[2].Result.CallID != "b" || !parts[3].IsImage() ||
		len(parts[2].Result.Acknowledged) != 1 || len(parts[0].Result.Acknowledged) != 0 {
		t.Errorf("results %+v", parts)
	}
	reply.Refused = "blocked"
	parts = GeminiComputer{}.Results(reply, Outcome{}, nil, []convo.Part{shot})
	if !parts[2].Result.Error || !strings.Contains(parts[3].Text, "blocked") {
		t.Errorf("refused results %+v", parts)
	}
}

var vendorSeeds = []string{
	`{"action": {"type": "click", "x": 1, "y": 2}}`, `{"actions": [{"type": "type", "text": "\")\nlaunch(\"x\")"}]}`,
	`{"action": "left_click", "coordinate": [1, 2]}`, `{"action": "key", "text": "ctrl+alt+del"}`,
	`{"x": 999, "y": 0, "safety_decision": {"decision": "blocked"}}`, `{"actions": [{"type": "scroll", "x": 1, "y": 1, "scroll_y": 1e308}]}`,
	`{"action": "zoom", "region": [5, 5, 1, 1]}`, `[1, 2]`, `"text"`, `{`, `{"action": "left_mouse_up"}`,
}

// fuzzTool checks a ToolDialect on any call input: no panic; an error is a
// FormatError keeping the call; else the program reaches only builtins.
func fuzzTool(f *testing.F, name, fn string) {
	for _, s := range vendorSeeds {
		f.Add(s, "a text")
	}
	f.Fuzz(func(t *testing.T, input, text string) {
		d, err := New(name, Options{Model: "claude-opus-4-7"})
		if err != nil {
			t.Fatal(err)
		}
		res := convo.Response{Text: text, Calls: []convo.ToolCall{{ID: "1", Name: fn, Input: json.RawMessage(input)}}}
		if fn == "" {
			var m map[string]any
			if json.Unmarshal([]byte(input), &m) == nil {
				if n, ok := m["tool_name"].(string); ok {
					res.Calls[0].Name = n
				}
			}
		}
		r, err := d.(ToolDialect).ParseResponse(res)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Help == "" || r.Code != "" || len(r.Calls) != 1 {
				t.Fatalf("ParseResponse(%q) = %+v, %v", input, r, err)
			}
			return
		}
		if r.Code != "" {
			if err := compiledOK(r.Code); err != nil {
				t.Fatalf("ParseResponse(%q): %v\n%s", input, err, r.Code)
			}
		}
	})
}

func FuzzParseOpenAIComputer(f *testing.F)    { fuzzTool(f, "openai-computer", "computer") }
func FuzzParseAnthropicComputer(f *testing.F) { fuzzTool(f, "anthropic-computer", "computer") }
func FuzzParseGeminiComputer(f *testing.F)    { fuzzTool(f, "gemini-computer", "click") }
func FuzzParseHolo3Calls(f *testing.F)        { fuzzTool(f, "holo3", "click") }

var holoSeeds = []string{
	`{"note": null, "thought": "t", "tool_call": {"tool_name": "click", "x": 1, "y": 2}}`,
	`{"note": "n", "thought": "t", "tool_call": {"tool_name": "write", "text": "\")\nlaunch(\"x\")"}}`,
	"```json\n{\"note\": null, \"thought\": \"\", \"tool_call\": {\"tool_name\": \"answer\", \"text\": \"x\"}}\n```",
	`{"note": null}`, `{`, `[]`,
}

func FuzzParseHolo3(f *testing.F) { fuzzParse(f, "holo3", holoSeeds, compiledOK) }

var faraSeeds = []string{
	"I will click.\n<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [100, 200]}}\n</tool_call>",
	"<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"type\", \"text\": \"x\", \"coordinate\": [1, 2], \"press_enter\": false}}\n</tool_call>",
	"<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"visit_url\", \"url\": \"https://bing.com\"}}\n</tool_call>",
	"<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"pause_and_memorize_fact\", \"fact\": \"\\\")\\nlaunch(\\\"x\\\")\"}}\n</tool_call>",
	"<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"terminate\", \"status\": \"success\"}}\n</tool_call>",
}

func FuzzParseFara(f *testing.F)    { fuzzParse(f, "fara", faraSeeds, compiledOK) }
func FuzzParseOpenCUA(f *testing.F) { fuzzParse(f, "opencua", pyautoguiSeeds, pyautoguiOK) }
