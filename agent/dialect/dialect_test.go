package dialect

import (
	"image"
	"slices"
	"strings"
	"testing"

	"deskpilot/agent/script"
	"deskpilot/vision"
)

func TestNamesAndByName(t *testing.T) {
	want := []string{"code", "anthropic-computer", "doubao", "fara", "gemini-computer", "holo3", "openai-computer", "opencua",
		"pyautogui", "qwen2.5", "qwen3", "uitars-1.0", "uitars-1.5"}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	for _, n := range want {
		d, err := ByName(" " + strings.ToUpper(n) + " ")
		if err != nil || d.Name() != n {
			t.Errorf("ByName(%q) = %v, %v", n, d, err)
		}
	}
	if d, err := ByName(""); err != nil || d.Name() != Default {
		t.Errorf(`ByName("") = %v, %v`, d, err)
	}
	if _, err := ByName("uitars"); err == nil || !strings.Contains(err.Error(), "uitars-1.5") {
		t.Errorf("unknown dialect error = %v; want one listing the dialects", err)
	}
}

// The action space and output format are the interface the models were
// trained on: these lines must reach the model byte for byte.
func TestSystemPrompts(t *testing.T) {
	trained := map[string][]string{
		"uitars-1.5": {
			"## Output Format\n```\nThought: ...\nAction: ...\n```\n\n## Action Space\n\nclick(start_box='<|box_start|>(x1,y1)<|box_end|>')\nleft_double(start_box='<|box_start|>(x1,y1)<|box_end|>')\n",
			"hotkey(key='ctrl c') # Split keys with a space and use lowercase. Also, do not use more than 3 keys in one hotkey action.\n",
			`type(content='xxx') # Use escape characters \', \", and \n in content part to ensure we can parse the content in normal python string format. If you want to submit your input, use \n at the end of content.`,
			"wait() #Sleep for 5s and take a screenshot to check for any changes.\nfinished(content='xxx')",
			"## User Instruction\nopen the door",
		},
		"uitars-1.0": {
			"drag(start_box='<|box_start|>(x1,y1)<|box_end|>', end_box='<|box_start|>(x3,y3)<|box_end|>')\nhotkey(key='')\n",
			"call_user() # Submit the task and call the user when the task is unsolvable, or when you need the user's help.",
			"## User Instruction\nopen the door",
		},
		"doubao": {
			"click(point='<point>x1 y1</point>')\nleft_double(point='<point>x1 y1</point>')\n",
			"drag(start_point='<point>x1 y1</point>', end_point='<point>x2 y2</point>')",
			"scroll(point='<point>x1 y1</point>', direction='down or up or right or left') # Show more information on the `direction` side.",
		},
		"qwen2.5":   {"# Tools\n\nYou may call one or more functions to assist with the user query.", "The screen's resolution is 1932x1092."},
		"qwen3":     {"The screen's resolution is 999x999."},
		"pyautogui": {"```WAIT```", "```DONE```", "```FAIL```", "You are asked to complete the following task: open the door", "x from 0 (left edge) to 1365"},
		"code":      {"open the door"},
	}
	for name, want := range trained {
		t.Run(name, func(t *testing.T) {
			d, _ := ByName(name)
			sp := d.Space(fullHD, 0)
			m := vision.Mapper{Display: image.Rectangle{Max: fullHD}, Image: sp.Image, Mode: sp.Mode}
			s, err := d.SystemPrompt(Prompt{Task: "open the door", Coordinates: m.Contract(), Screen: fullHD, Image: sp.Image, Date: "today"})
			if err != nil {
				t.Fatal(err)
			}
			if name == "code" {
				h := HistorianOf(d)
				s += h.FirstTurn("open the door")
			}
			for _, w := range want {
				if !strings.Contains(s, w) {
					t.Errorf("prompt lacks %q:\n%s", w, s)
				}
			}
		})
	}
}

func TestHistory(t *testing.T) {
	clean := Outcome{Task: "t", Text: "Actions: clicked (1, 2). The screen changed."}
	broken := Outcome{Task: "t", Text: "...", Problems: []string{"click: point (2000, 5) is outside the screenshot"}, Output: "The person answered: blue"}
	cases := []struct {
		dialect            string
		layout             History
		first, okText, bad string
	}{
		{"code", History{}, "New task:\nt\n\nThis is the screen now:", clean.Text, "..."},
		{"uitars-1.5", History{System: "You are a helpful assistant.", PromptInUser: true, SeparateImage: true, KeepImages: 5, DropOldImages: true},
			"", "", "click: point (2000, 5) is outside the screenshot\n\nThe person answered: blue"},
		{"qwen3", History{ImageFirst: true, KeepImages: 5, DropOldImages: true},
			"Instruction: t\n\nLook at the screenshot and give the next move.", "", "click: point (2000, 5) is outside the screenshot\n\nThe person answered: blue"},
		{"pyautogui", History{KeepImages: 3}, "This is the screenshot now. What is the next step toward the task?",
			"This is the screenshot now. What is the next step toward the task?",
			"click: point (2000, 5) is outside the screenshot\n\nThe person answered: blue\n\nThis is the screenshot now. What is the next step toward the task?"},
	}
	for _, c := range cases {
		t.Run(c.dialect, func(t *testing.T) {
			d, _ := ByName(c.dialect)
			h := HistorianOf(d)
			if got := h.History(); got != c.layout {
				t.Errorf("History() = %+v, want %+v", got, c.layout)
			}
			if got := h.FirstTurn("t"); got != c.first {
				t.Errorf("FirstTurn = %q, want %q", got, c.first)
			}
			if got := h.Observation(clean); got != c.okText {
				t.Errorf("Observation(clean) = %q, want %q", got, c.okText)
			}
			if got := h.Observation(broken); got != c.bad {
				t.Errorf("Observation(broken) = %q, want %q", got, c.bad)
			}
		})
	}
	t.Run("OpenCUA repeats the task", func(t *testing.T) {
		d, _ := New("pyautogui", Options{PyAutoGUICoords: "smart"})
		h := HistorianOf(d)
		if got := h.Observation(Outcome{Task: "close it"}); !strings.HasPrefix(got, "# Task Instruction:\nclose it\n") || !h.History().ImageFirst {
			t.Errorf("Observation = %q, layout %+v", got, h.History())
		}
	})
}

func TestStop(t *testing.T) {
	for name, want := range map[string][]string{
		"code": {"\nObservation:"}, "uitars-1.5": nil, "doubao": nil, "qwen2.5": {"<tool_response>"}, "pyautogui": nil,
	} {
		d, _ := ByName(name)
		if got := d.Stop(); !slices.Equal(got, want) {
			t.Errorf("%s Stop() = %q, want %q", name, got, want)
		}
	}
}

// Every builtin a compiled program may call is in the agent's catalogue
// (print and fail are Starlark's own).
func TestCompiledBuiltinsAreInTheCatalogue(t *testing.T) {
	var names []string
	for _, b := range script.Builtins() {
		names = append(names, b.Name)
	}
	for _, b := range builtins() {
		if b != "print" && b != "fail" && !slices.Contains(names, b) {
			t.Errorf("compiled programs call %s, which the catalogue does not have", b)
		}
	}
}
