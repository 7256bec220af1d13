package dialect

import (
	"errors"
	"fmt"
	"image"
	"slices"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"deskpilot/actions"
	"deskpilot/agent/script"
	"deskpilot/vision"
)

func TestPyAutoGUIParse(t *testing.T) {
	cases := []struct {
		name, reply, thought, code string
	}{
		{"OSWorld block with imports", "The button is at the bottom.\n```python\nimport pyautogui\nimport time\npyautogui.click(960, 540)\ntime.sleep(0.5)\npyautogui.write('hello')\n```",
			"The button is at the bottom.", "pyautogui.click(960, 540)\ntime.sleep(0.5)\npyautogui.write('hello')"},
		{"statements on one line", "```python\nimport pyautogui, time\npyautogui.click(100, 200); time.sleep(0.5); pyautogui.press('enter')\n```",
			"", "pyautogui.click(100, 200); time.sleep(0.5); pyautogui.press('enter')"},
		{"WAIT alone", "WAIT", "", "wait(5)"},
		{"DONE in a fence", "The file is saved.\n```DONE```", "The file is saved.", `final_answer("The file is saved.")`},
		{"FAIL in a fence", "There is no such file.\n```\nFAIL\n```", "There is no such file.", `final_answer("The task could not be done. There is no such file.")`},
		{"code then DONE", "```python\npyautogui.hotkey('ctrl', 's')\nDONE\n```", "", "pyautogui.hotkey('ctrl', 's')\nfinal_answer(\"\")"}, // no placeholder answer
		// OpenCUA's L2 response template.
		{"OpenCUA L2", "## Thought:\nI need to open the File menu.\n## Action:\nClick the File menu.\n## Code:\n```python\npyautogui.click(x=960, y=324)\n```",
			"## Thought:\nI need to open the File menu.\n## Action:\nClick the File menu.", "pyautogui.click(x=960, y=324)"},
		{"OpenCUA terminate in a code fence", "```code\ncomputer.terminate(status='success')\n```", "", "computer.terminate(status='success')"},
		// Aguvis decodes its recipient tokens into "assistantos".
		{"Aguvis unfenced", "Click the search box.\nassistantos\npyautogui.click(x=0.31, y=0.57)", "Click the search box.", "pyautogui.click(x=0.31, y=0.57)"},
		{"a loop", "```python\nfor i in range(3):\n    pyautogui.press('down')\n```", "", "for i in range(3):\n    pyautogui.press('down')"},
		{"settings are accepted", "```python\npyautogui.FAILSAFE = False\npyautogui.click(1, 2)\n```", "", "pyautogui.FAILSAFE = False\npyautogui.click(1, 2)"},
		{"shell block is not run", "```bash\nrm -rf /\n```\n```python\npyautogui.click(1, 2)\n```", "", "pyautogui.click(1, 2)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := PyAutoGUI{}.Parse(c.reply)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if r.Code != c.code {
				t.Errorf("Code =\n%s\nwant\n%s", r.Code, c.code)
			}
			if c.thought != "" && r.Thought != c.thought {
				t.Errorf("Thought = %q, want %q", r.Thought, c.thought)
			}
			if err := pyautoguiOK(r.Code); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestPyAutoGUIFormatErrors(t *testing.T) {
	cases := []struct{ name, reply, reason string }{
		{"no code", "I will click the button.", "no code block"},
		{"other import", "```python\nimport os\nos.system('rm -rf /')\n```", `imports "import os"`},
		{"from import", "```python\nfrom subprocess import run\n```", "only pyautogui and time"},
		{"f-string", "```python\nx = 3\npyautogui.write(f'{x}')\n```", "not valid here"},
		{"try/except", "```python\ntry:\n    pyautogui.click(1, 2)\nexcept:\n    pass\n```", "not valid here"},
		{"deskpilot builtin called directly", "```python\nlaunch('xterm')\n```", "undefined: launch"},
		{"final_answer called directly", "```python\nfinal_answer('x')\n```", "undefined: final_answer"},
		{"empty block", "```python\n\n```", "no code block"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := PyAutoGUI{}.Parse(c.reply)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse = %+v, %v; want a *FormatError", r, err)
			}
			if r.Code != "" || !strings.Contains(fe.Reason, c.reason) || !strings.Contains(fe.Help, "```DONE```") {
				t.Errorf("code %q, reason %q, help:\n%s", r.Code, fe.Reason, fe.Help)
			}
		})
	}
}

// pyautoguiOK checks that code reaches nothing but the modules, Starlark's
// built-ins, its own names, and final_answer or wait in its last line.
func pyautoguiOK(code string) error {
	body, last := code, ""
	if i := strings.LastIndex(code, "\n"); i >= 0 {
		body, last = code[:i], code[i+1:]
	} else if strings.HasPrefix(code, "final_answer(") || strings.HasPrefix(code, "wait(") {
		body, last = "", code
	}
	if strings.HasPrefix(last, "final_answer(") || strings.HasPrefix(last, "wait(") {
		if err := compiledOK(last); err != nil {
			return err
		}
	} else if last != "" {
		body = code
	}
	if strings.TrimSpace(body) == "" {
		return nil
	}
	return checkPython(body)
}

// call is one builtin call a module made.
type call struct {
	name   string
	args   []string
	kwargs []string
}

func (c call) String() string {
	return c.name + "(" + strings.Join(append(slices.Clone(c.args), c.kwargs...), ", ") + ")"
}

// recCaller records the modules' builtin calls and checks each against the
// real builtin's parameters (script.Desktop).
type recCaller struct {
	t      *testing.T
	calls  []string
	params map[string][]string
	cursor starlark.Value
}

func newRecCaller(t *testing.T) *recCaller {
	r := &recCaller{t: t, params: map[string][]string{}, cursor: starlark.Tuple{starlark.MakeInt(10), starlark.MakeInt(20)}}
	m := vision.Mapper{Display: image.Rect(0, 0, 1920, 1080)}
	for _, tool := range script.Desktop(script.DesktopDeps{Mapper: m}) {
		for _, p := range tool.Params {
			r.params[tool.Name] = append(r.params[tool.Name], p.Name)
		}
		if tool.Params == nil {
			r.params[tool.Name] = []string{}
		}
	}
	r.params["final_answer"] = []string{"answer"}
	return r
}

func (r *recCaller) call(_ *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	params, ok := r.params[name]
	if !ok {
		r.t.Errorf("module called %s, which is not a builtin", name)
	}
	if len(args) > len(params) {
		r.t.Errorf("module called %s with %d positional arguments; it takes %v", name, len(args), params)
	}
	c := call{name: name}
	for _, a := range args {
		c.args = append(c.args, a.String())
	}
	for _, kv := range kwargs {
		k, _ := starlark.AsString(kv[0])
		if !slices.Contains(params, k) {
			r.t.Errorf("module called %s with keyword %s; it takes %v", name, k, params)
		}
		c.kwargs = append(c.kwargs, k+"="+kv[1].String())
	}
	r.calls = append(r.calls, c.String())
	switch name {
	case "cursor_position":
		return r.cursor, nil
	case "screen_size":
		return starlark.Tuple{starlark.MakeInt(1366), starlark.MakeInt(768)}, nil
	case "final_answer":
		return nil, errors.New("final answer given")
	}
	return starlark.None, nil
}

// runModules parses a reply and runs its code with the modules, on one
// thread per block.
func runModules(t *testing.T, rc *recCaller, reply string) error {
	t.Helper()
	g := PyAutoGUI{}
	r, err := g.Parse(reply)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	globals := g.Modules(rc.call)
	for _, b := range []string{"final_answer", "wait"} {
		globals[b] = starlark.NewBuiltin(b, func(th *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			return rc.call(th, fn.Name(), args, kwargs)
		})
	}
	_, err = starlark.ExecFileOptions(pyFileOptions(), &starlark.Thread{}, "reply.py", r.Code, globals)
	return err
}

func TestPyAutoGUIModules(t *testing.T) {
	fence := func(code string) string { return "```python\n" + code + "\n```" }
	cases := []struct {
		name, reply string
		want        []string
	}{
		{"click", fence("pyautogui.click(960, 540)"), []string{"click(960, 540)"}},
		{"click keywords and a tuple", fence("pyautogui.click(x=1.5, y=2)\npyautogui.click((3, 4))"), []string{"click(1.5, 2)", "click(3, 4)"}},
		{"click at the cursor", fence("pyautogui.click()"), []string{"cursor_position()", "click(10, 20)"}},
		{"right button, two clicks", fence("pyautogui.click(5, 6, clicks=2, button='right')"),
			[]string{`click(5, 6, button="right")`, `click(5, 6, button="right")`}},
		{"double, triple, right, middle", fence("pyautogui.doubleClick(1, 1)\npyautogui.tripleClick(2, 2)\npyautogui.rightClick(3, 3)\npyautogui.middleClick(4, 4)"),
			[]string{"double_click(1, 1)", "double_click(2, 2)", "click(2, 2)", "right_click(3, 3)", `click(4, 4, button="middle")`}},
		{"computer.triple_click", fence("computer.triple_click(7, 8)"), []string{"double_click(7, 8)", "click(7, 8)"}},
		{"moveTo then dragTo", fence("pyautogui.moveTo(100, 100)\npyautogui.dragTo(300, 400, duration=1.0)"),
			[]string{"move(100, 100)", "cursor_position()", "drag(10, 20, 300, 400)"}},
		{"mouseDown, moveTo, mouseUp holds the button", fence("pyautogui.mouseDown(1, 2)\npyautogui.moveTo(3, 4)\npyautogui.mouseUp(5, 6)"),
			[]string{"mouse_down(1, 2)", "move(3, 4)", "mouse_up(5, 6)"}},
		{"mouseDown at the cursor", fence("pyautogui.mouseDown()\npyautogui.mouseUp()"),
			[]string{"cursor_position()", "mouse_down(10, 20)", "cursor_position()", "mouse_up(10, 20)"}},
		{"mouseDown with ctrl held drags with it", fence("pyautogui.keyDown('ctrl')\npyautogui.mouseDown(1, 2)\npyautogui.mouseUp(5, 6)"),
			[]string{"move(1, 2)", `drag(1, 2, 5, 6, modifiers="ctrl")`}},
		{"scroll down at the cursor", fence("pyautogui.scroll(-5)"), []string{"cursor_position()", `scroll(10, 20, direction="down", amount=5)`}},
		{"big scroll in chunks", fence("pyautogui.scroll(120, x=1, y=2)"),
			[]string{`scroll(1, 2, direction="up", amount=50)`, `scroll(1, 2, direction="up", amount=50)`, `scroll(1, 2, direction="up", amount=20)`}},
		{"hscroll", fence("pyautogui.hscroll(-3, 1, 2)"), []string{`scroll(1, 2, direction="left", amount=3)`}},
		{"write and typewrite", fence("pyautogui.write('Grüße \"x\"\\n')\npyautogui.typewrite(['a', 'enter'])"),
			[]string{`type_text("Grüße \"x\"\n")`, `press("a")`, `press("enter")`}},
		{"press list and presses", fence("pyautogui.press(['down', 'pgdn'], presses=2)"),
			[]string{`press("down")`, `press("pagedown")`, `press("down")`, `press("pagedown")`}},
		{"hotkey", fence("pyautogui.hotkey('ctrlleft', 'shift', 't')\npyautogui.hotkey(['win', 'd'])"),
			[]string{`press("ctrl+shift+t")`, `press("super+d")`}},
		{"keyDown combines", fence("pyautogui.keyDown('ctrl')\npyautogui.press('a')\npyautogui.keyUp('ctrl')"), []string{`press("ctrl+a")`}},
		{"keyDown, sleep, keyUp holds", fence("pyautogui.keyDown('shift')\ntime.sleep(2)\npyautogui.keyUp('shift')"), []string{`hold("shift", 2)`}},
		{"keyDown shift, click, keyUp is a shift-click", fence("pyautogui.keyDown('shift')\npyautogui.click(1, 2)\npyautogui.keyUp('shift')"), []string{`click(1, 2, modifiers="shift")`}},
		{"keyDown ctrl, scroll is a ctrl-scroll", fence("pyautogui.keyDown('ctrlleft')\npyautogui.scroll(-2, x=3, y=4)\npyautogui.keyUp('ctrlleft')"), []string{`scroll(3, 4, direction="down", amount=2, modifiers="ctrl")`}},
		{"keyDown and up alone taps", fence("pyautogui.keyDown('esc')\npyautogui.keyUp('esc')"), []string{`press("escape")`}},
		{"sleep", fence("time.sleep(0.5)\npyautogui.sleep(1)"), []string{"wait(0.5)", "wait(1)"}},
		{"terminate", "```code\ncomputer.terminate(status='success', answer='42')\n```", []string{`final_answer("42")`}},
		{"terminate failure", "```code\ncomputer.terminate(status='failure')\n```", []string{`final_answer("The task could not be done.")`}},
		{"terminate without an answer gives none", "```code\ncomputer.terminate(status='success')\n```", []string{`final_answer("")`}},
		{"computer.wait", fence("computer.wait()"), []string{"wait(5)"}},
		{"position and size", fence("x, y = pyautogui.position()\nw, h = pyautogui.size()\npyautogui.click(w // 2, h // 2)"),
			[]string{"cursor_position()", "screen_size()", "click(683, 384)"}},
		{"DONE", "Saved.\n```DONE```", []string{`final_answer("Saved.")`}},
		{"WAIT", "```WAIT```", []string{"wait(5)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rc := newRecCaller(t)
			err := runModules(t, rc, c.reply)
			if err != nil && !strings.Contains(err.Error(), "final answer given") {
				t.Fatalf("run: %v", err)
			}
			if !slices.Equal(rc.calls, c.want) {
				t.Errorf("builtin calls = %q, want %q", rc.calls, c.want)
			}
		})
	}
}

func TestPyAutoGUIModuleErrors(t *testing.T) {
	fence := func(code string) string { return "```python\n" + code + "\n```" }
	cases := []struct{ name, reply, want string }{
		{"unknown function lists them", fence("pyautogui.locateCenterOnScreen('x.png')"), "hotkey"},
		{"click while a plain key is held", fence("pyautogui.keyDown('a')\npyautogui.click(1, 2)"), "only ctrl, alt, shift and super can be held"},
		{"unknown key", fence("pyautogui.press('hyperkey')"), "hyperkey"},
		{"unknown button", fence("pyautogui.click(1, 2, button='fourth')"), "fourth"},
		{"four clicks", fence("pyautogui.click(1, 2, clicks=4)"), "0 to 3"},
		{"words for a point", fence("pyautogui.click('OK', 'button')"), "must be numbers"},
		{"scroll too far", fence("pyautogui.scroll(-100000)"), "too far"},
		{"too many presses", fence("pyautogui.press('a', presses=1000)"), "presses must be"},
		{"cursor off screen", fence("pyautogui.click()"), "not on this screen"},
		{"setting another field", fence("time.zone = 3"), "cannot set time.zone"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rc := newRecCaller(t)
			if c.name == "cursor off screen" {
				rc.cursor = starlark.None
			}
			err := runModules(t, rc, c.reply)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q (calls %q)", err, c.want, rc.calls)
			}
		})
	}
}

func TestPyAutoGUIStateIsPerThread(t *testing.T) {
	rc := newRecCaller(t)
	mods := PyAutoGUI{}.Modules(rc.call)
	exec := func(code string) {
		if _, err := starlark.ExecFileOptions(pyFileOptions(), &starlark.Thread{}, "b.py", code, mods); err != nil {
			t.Fatal(err)
		}
	}
	exec("pyautogui.keyDown('ctrl')\npyautogui.mouseDown(1, 2)")
	// A new block: no key held, no remembered mouseDown; mouseUp releases
	// whatever the desktop holds (mouse_up says when nothing is down).
	exec("pyautogui.press('a')\npyautogui.mouseUp(5, 5)")
	want := []string{"move(1, 2)", `press("a")`, "mouse_up(5, 5)"}
	if !slices.Equal(rc.calls, want) {
		t.Errorf("calls = %q, want %q", rc.calls, want)
	}
}

func TestPyAutoGUISpacesInPrompt(t *testing.T) {
	for _, coords := range []string{"", "smart", "unit"} {
		t.Run(fmt.Sprintf("coords %q", coords), func(t *testing.T) {
			d, err := New("pyautogui", Options{PyAutoGUICoords: coords})
			if err != nil {
				t.Fatal(err)
			}
			sp := d.Space(fullHD, 0)
			m := vision.Mapper{Display: image.Rect(0, 0, 1920, 1080), Image: sp.Image, Mode: sp.Mode}
			s, err := d.SystemPrompt(Prompt{Task: "open the door", Coordinates: m.Contract(), Image: sp.Image})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"": "You are asked to complete the following task: open the door", "unit": "fraction 0..1", "smart": "computer.terminate"}[coords]
			if !strings.Contains(s, want) {
				t.Errorf("prompt lacks %q:\n%s", want, s)
			}
		})
	}
	if _, err := New("pyautogui", Options{PyAutoGUICoords: "percent"}); err == nil || !strings.Contains(err.Error(), "smart") {
		t.Errorf("bad pyautogui_coords: %v", err)
	}
}

// On a desktop that cannot keep a button down (the robotgo backend), a
// mouseDown remembered in one program and released in a later one is a
// clear error for the model, not a drag that silently never happened.
func TestPyAutoGUIMouseDownThatCannotHold(t *testing.T) {
	rc := newRecCaller(t)
	noHold := func(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		v, err := rc.call(th, name, args, kwargs)
		if name == "mouse_down" || name == "mouse_up" {
			return nil, fmt.Errorf("%s: %w; use drag(x1, y1, x2, y2) to drag within one block", name, actions.ErrCannotHold)
		}
		return v, err
	}
	mods := PyAutoGUI{}.Modules(noHold)
	exec := func(code string) error {
		_, err := starlark.ExecFileOptions(pyFileOptions(), &starlark.Thread{}, "b.py", code, mods)
		return err
	}
	if err := exec("pyautogui.mouseDown(1, 2)"); err != nil {
		t.Fatal(err)
	}
	err := exec("pyautogui.mouseUp(5, 6)")
	if err == nil || !strings.Contains(err.Error(), "mouseDown(1, 2) of an earlier reply pressed nothing") ||
		!strings.Contains(err.Error(), actions.ErrCannotHold.Error()) {
		t.Errorf("mouseUp after a lost mouseDown: %v", err)
	}
	// Said once; a mouseUp with nothing remembered releases nothing.
	if err := exec("pyautogui.mouseUp(5, 6)"); err != nil {
		t.Errorf("a second mouseUp: %v", err)
	}
	// In one program the drag is done from the remembered point.
	if err := exec("pyautogui.mouseDown(1, 2)\npyautogui.mouseUp(5, 6)"); err != nil {
		t.Fatal(err)
	}
	want := []string{"mouse_down(1, 2)", "move(1, 2)", "mouse_up(5, 6)", "mouse_up(5, 6)", "mouse_down(1, 2)", "move(1, 2)", "drag(1, 2, 5, 6)"}
	if !slices.Equal(rc.calls, want) {
		t.Errorf("calls = %q, want %q", rc.calls, want)
	}
}
