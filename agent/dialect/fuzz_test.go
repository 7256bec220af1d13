package dialect

import (
	"errors"
	"testing"
)

var uitarsSeeds = []string{
	"Thought: xxx\nAction: click(start_box='(197,525)')",
	"Action: click(start_box='<|box_start|>(235,512)<|box_end|>')",
	"Reflection: r\nAction_Summary: s\nAction: left_double(start_box='21, 246, 21, 246')",
	"Thought: t\nAction: type(content='doubao.com\n')",
	`Action: type(content='It\'s a \"test\"\n')`,
	"Action: type(content='It's fine')",
	"Action: hotkey(key='ctrl v')",
	"Action: scroll(direction='left')",
	"Action: drag(start_box='(1,2)', end_box='(3,4)')",
	"Action: click(point='<point>200 300</point>')\n\nAction: type(content='x')",
	"Action: press(key='ctrl')\n\nhotkey(key='c')\n\nrelease(key='ctrl')",
	"Action: finished(content='''a\nb''')",
	"Action: call_user()",
	"Action：click(start_box='[1, 2, 3, 4]')",
	"Action: type(content='",
	"Action: click(start_box=(1,2))",
	"Action: click(start_box='<bbox>637 964 637 964</bbox>')",
}

var qwenSeeds = []string{
	toolCall(`{"action": "left_click", "coordinate": [960, 540]}`),
	"Thought: t\nAction: \"a\"\n" + toolCall(`{"action": "key", "keys": ["ctrl", "c"]}`),
	`<tool_call>{"name":"computer_use","arguments":{"action":"type","text":"\")\nlaunch(\"x\")"}}</tool_call>`,
	toolCall(`{"action": "scroll", "pixels": -500}`) + toolCall(`{"action": "terminate", "status": "success"}`),
	toolCall(`"{\"action\": \"left_click_drag\", \"coordinate\": [1, 2]}"`),
	`{"name": "computer_use", "arguments": {"action": "answer", "text": "x"}}`,
	"<tool_call>\n{\"name\": \"computer_use\", \"argu",
	toolCall(`{"action": "left_click", "coordinate": [1e308, -1e308]}`),
}

var pyautoguiSeeds = []string{
	"```python\nimport pyautogui\npyautogui.click(960, 540)\n```",
	"WAIT", "```DONE```", "```\nFAIL\n```",
	"```code\ncomputer.terminate(status='success')\n```",
	"Click.\nassistantos\npyautogui.click(x=0.31, y=0.57)",
	"```python\nimport os\n```",
	"```python\nfor i in range(3):\n    pyautogui.press('down')\nDONE\n```",
	"```python\nlaunch('x')\n```",
	"```python\ndef f():\n    return click\n```",
}

// fuzzParse checks a parser on any input: no panic; an error is a
// *FormatError with no code; otherwise the code is a Starlark program that
// reaches nothing outside the dialect's action set.
func fuzzParse(f *testing.F, name string, seeds []string, ok func(code string) error) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		d, err := ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := d.Parse(reply)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Help == "" {
				t.Fatalf("Parse(%q) error %v is not a *FormatError with help", reply, err)
			}
			if r.Code != "" {
				t.Fatalf("Parse(%q) failed but returned code %q", reply, r.Code)
			}
			return
		}
		if r.Code == "" {
			t.Fatalf("Parse(%q) returned no code and no error", reply)
		}
		if err := ok(r.Code); err != nil {
			t.Fatalf("Parse(%q): %v\nprogram:\n%s", reply, err, r.Code)
		}
	})
}

func FuzzParseUITARS15(f *testing.F) { fuzzParse(f, "uitars-1.5", uitarsSeeds, compiledOK) }
func FuzzParseUITARS10(f *testing.F) { fuzzParse(f, "uitars-1.0", uitarsSeeds, compiledOK) }
func FuzzParseDoubao(f *testing.F)   { fuzzParse(f, "doubao", uitarsSeeds, compiledOK) }
func FuzzParseQwen25(f *testing.F)   { fuzzParse(f, "qwen2.5", qwenSeeds, compiledOK) }
func FuzzParseQwen3(f *testing.F)    { fuzzParse(f, "qwen3", qwenSeeds, compiledOK) }
func FuzzParsePyAutoGUI(f *testing.F) {
	fuzzParse(f, "pyautogui", pyautoguiSeeds, pyautoguiOK)
}

func FuzzReadPoint(f *testing.F) {
	for _, s := range []string{"(12,34)", "[0.73, 0.21]", `{"action": "click_absolute", "x": 947, "y": 338}`,
		"click(x=10, y=20)", "<point>1 2</point>", "[1748,415,1769,430]", "[-1,-1]", "no point", "((((", "[1e999, 2]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		p, err := readPoint(reply)
		if err != nil {
			if !errors.Is(err, ErrNoPoint) {
				t.Fatalf("readPoint(%q) error %v is not ErrNoPoint", reply, err)
			}
			return
		}
		if p.X != p.X || p.Y != p.Y {
			t.Fatalf("readPoint(%q) = %v, NaN", reply, p)
		}
	})
}
