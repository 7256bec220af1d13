package dialect

import (
	"errors"
	"image"
	"slices"
	"strings"
	"testing"
)

var (
	fullHD = image.Pt(1920, 1080)
	wxga   = image.Pt(1366, 768)
)

// The replies are verbatim from UI-TARS's sources where one exists: the
// README's coordinate tutorial, README_v1, codes/README and UI-TARS-desktop's
// action-parser tests.
func TestUITARSParse(t *testing.T) {
	cases := []struct {
		name, dialect, reply string
		thought, code        string
	}{
		{"README_coordinates 1.5", "uitars-1.5", "Thought: xxx\nAction: click(start_box='(197,525)')",
			"xxx", `click(197, 525)`},
		{"box tokens kept by the decoder", "uitars-1.0", "Thought: open it\nAction: click(start_box='<|box_start|>(235,512)<|box_end|>')",
			"open it", `click(235, 512)`},
		{"Action_Summary", "uitars-1.0", "Action_Summary: 左键单击窗口右上角的最小化按钮（图标为横线），将当前窗口最小化到任务栏。\nAction: click(start_box='(948,57)')",
			"左键单击窗口右上角的最小化按钮（图标为横线），将当前窗口最小化到任务栏。", `click(948, 57)`},
		{"thought and action on one line", "uitars-1.0", "Thought: The task is to open Chrome, but the current screen shows a GitHub repository page in a different browser. To proceed, I need to close this window and open Chrome. The most efficient way to do this is by clicking the 'X' button in the top-right corner of the current window to close it, which will allow me to access the desktop and open Chrome from there. Click on the 'X' button in the top-right corner of the current window to close it. Action: click(start_box='(962,108)')",
			"", `click(962, 108)`},
		{"square brackets", "uitars-1.0", "Action_Summary: 左键单击窗口右上角的最小化按钮（图标为横线），将当前窗口最小化到任务栏。\nAction: click(start_box='[948,57]')",
			"", `click(948, 57)`},
		{"reflection and a bare box", "uitars-1.0", "Reflection: 在桌面上我看到了Chrome浏览器的图标，根据任务要求需要打开Chrome浏览器，应该双击该图标来启动浏览器。\nAction_Summary: 在桌面上找到Chrome浏览器图标的位置，通过双击操作来打开浏览器。\nAction: left_double(start_box='21, 246, 21, 246')",
			"在桌面上我看到了Chrome浏览器的图标，根据任务要求需要打开Chrome浏览器，应该双击该图标来启动浏览器。\n在桌面上找到Chrome浏览器图标的位置，通过双击操作来打开浏览器。", `double_click(21, 246)`},
		{"type with a raw newline submits", "uitars-1.0", "Thought: 我已经点击了地址栏，现在需要输入网址doubao.com。地址栏已经被激活，可以直接输入网址。\nAction: type(content='doubao.com\n')",
			"", lines(`type_text("doubao.com")`, `press("enter")`)},
		{"hotkey split by a space", "uitars-1.0", "Action_Summary: 粘贴使用 ctrl+v。\nAction: hotkey(key='ctrl v')",
			"粘贴使用 ctrl+v。", `press("ctrl+v")`},
		{"scroll without a point", "uitars-1.0", "Thought: swipe(start_box='(693,685)', end_box='(724,300)')\n\nAction: scroll(direction='left')",
			"swipe(start_box='(693,685)', end_box='(724,300)')",
			lines("here = cursor_position()", "if here == None:", `    fail("the mouse pointer is not on this screen; give the action a point")`,
				`scroll(here[0], here[1], direction="left", amount=5)`)},
		{"two Action lines both run", "uitars-1.0", "Thought: 在当前的界面中，我看到有多个窗口和文件，包括一个浏览器窗口和一个终端窗口。\nAction: click(start_box='(100,100)')\n\nAction: type(content='doubao.com')",
			"", lines(`click(100, 100)`, `type_text("doubao.com")`)},
		{"escaped quotes and newline", "uitars-1.5", `Thought: type it` + "\n" + `Action: type(content='It\'s a \"test\"\n')`,
			"type it", lines(`type_text("It's a \"test\"")`, `press("enter")`)},
		{"unescaped quote inside content", "uitars-1.5", "Thought: t\nAction: type(content='It's fine')",
			"t", `type_text("It's fine")`},
		{"hostile content stays a string", "uitars-1.5", "Thought: t\nAction: type(content='\")\nlaunch(\"xterm\")\n#')",
			"t", `type_text("\")\nlaunch(\"xterm\")\n#")`},
		{"full-width colon", "uitars-1.5", "Thought: t\nAction：click(start_box='(1,2)')", "t", `click(1, 2)`},
		{"box becomes its centre", "uitars-1.5", "Action: click(start_box='(100,200,300,401)')", "", `click(200, 300.5)`},
		{"drag", "uitars-1.5", "Thought: move the file\nAction: drag(start_box='(100,200)', end_box='(300,400)')",
			"move the file", `drag(100, 200, 300, 400)`},
		{"scroll at a point", "uitars-1.5", "Action: scroll(start_box='(500,500)', direction='down')", "", `scroll(500, 500, direction="down", amount=5)`},
		{"wait", "uitars-1.5", "Thought: loading\nAction: wait()", "loading", `wait(5)`},
		{"finished with content", "uitars-1.5", "Thought: done\nAction: finished(content='The answer is 42')", "done", `final_answer("The answer is 42")`},
		{"finished with neither content nor thought gives no answer", "uitars-1.5", "Action: finished()", "", `final_answer("")`},
		{"finished without content uses the thought", "uitars-1.0", "Thought: The file is saved.\nAction: finished()", "The file is saved.", `final_answer("The file is saved.")`},
		{"call_user asks the thought", "uitars-1.5", "Thought: Which account should I use?\nAction: call_user()", "Which account should I use?",
			`print("The person answered:", ask_user("Which account should I use?"))`},
		{"grounding reply without Action", "uitars-1.5", "click(start_box='(10,20)')", "", `click(10, 20)`},
		{"arrow key alias", "uitars-1.5", "Action: hotkey(key='arrowleft')", "", `press("left")`},
		{"three keys", "uitars-1.5", "Action: hotkey(key='ctrl shift t')", "", `press("ctrl+shift+t")`},
		{"press alone is a tap", "uitars-1.5", "Action: press(key='enter')", "", `press("enter")`},
		// codes/README.md (doubao): click(point='<point>200 300</point>').
		{"doubao point", "doubao", "Thought: test\nAction: click(point='<point>200 300</point>')", "test", `click(200, 300)`},
		{"doubao drag", "doubao", "Action: drag(start_point='<point>458 328</point>', end_point='<point>350 309</point>')", "", `drag(458, 328, 350, 309)`},
		{"doubao bbox", "doubao", "Action: click(start_box='<bbox>637 964 637 964</bbox>')", "", `click(637, 964)`},
		{"doubao several actions", "doubao", "Thought: search\nAction: click(point='<point>510 150</point>')\n\ntype(content='weather\\n')",
			"search", lines(`click(510, 150)`, `type_text("weather")`, `press("enter")`)},
		{"doubao ctrl held over a hotkey", "doubao", "Action: press(key='ctrl')\n\nhotkey(key='c')\n\nrelease(key='ctrl')", "", `press("ctrl+c")`},
		{"key held during a wait", "doubao", "Action: press(key='shift')\n\nwait()\n\nrelease(key='shift')", "", `hold("shift", 5)`},
		{"actions after finished are dropped", "doubao", "Action: finished(content='ok')\n\nclick(point='<point>1 1</point>')", "", `final_answer("ok")`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := ByName(c.dialect)
			if err != nil {
				t.Fatal(err)
			}
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

func TestUITARSRun(t *testing.T) {
	cases := []struct {
		name, dialect string
		display       image.Point
		reply         string
		want          []string
	}{
		// README_coordinates.md: (197,525) on a 1920x1080 screen -> (195,519).
		{"1.5 README example", "uitars-1.5", fullHD, "Thought: xxx\nAction: click(start_box='(197,525)')", []string{"click 195,519 left x1"}},
		// README_v1.md: (235,512) -> round(1920*235/1000)=451, round(1080*512/1000)=553.
		{"1.0 README example", "uitars-1.0", fullHD, "Action: click(start_box='(235,512)')", []string{"click 451,553 left x1"}},
		// codes/README.md: <point>200 300</point> on 1920x1080 -> click(384.0, 324.0).
		{"doubao README example", "doubao", fullHD, "Action: click(point='<point>200 300</point>')", []string{"click 384,324 left x1"}},
		{"1.5 on 1366x768 (image 1372x756)", "uitars-1.5", wxga, "Action: left_double(start_box='(686,378)')", []string{"click 683,384 left x2"}},
		{"1.0 far corner", "uitars-1.0", wxga, "Action: right_single(start_box='(1000,1000)')", []string{"click 1365,767 right x1"}},
		{"drag and type", "uitars-1.5", fullHD, "Action: drag(start_box='(0,0)', end_box='(1932,1092)')\n\ntype(content='hi\\n')",
			[]string{"drag 0,0 -> 1919,1079", `type "hi"`, "press enter"}},
		{"scroll at the cursor", "uitars-1.5", fullHD, "Action: scroll(direction='up')", []string{"scroll 10,20 up 5"}},
		{"held keys", "doubao", fullHD, "Action: press(key='ctrl')\n\nhotkey(key='c')\n\nrelease(key='ctrl')\n\npress(key='shift')\n\nwait()\n\nrelease(key='shift')",
			[]string{"press ctrl+c", "hold shift 5s"}},
		{"finished", "doubao", fullHD, "Thought: all done\nAction: finished(content='42')", []string{"final 42"}},
		{"call_user", "uitars-1.5", fullHD, "Thought: Which colour?\nAction: call_user()", []string{"asked Which colour?"}},
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
	t.Run("call_user's answer reaches the model", func(t *testing.T) {
		d, _ := ByName("uitars-1.5")
		_, res := run(t, d, fullHD, "Thought: Which colour?\nAction: call_user()")
		if !strings.Contains(res.Output, "The person answered: blue") {
			t.Errorf("output = %q", res.Output)
		}
	})
	t.Run("a point outside the space is an error, never clamped", func(t *testing.T) {
		d, _ := ByName("uitars-1.5")
		got, res := run(t, d, fullHD, "Action: click(start_box='(1933,10)')")
		if res.Err == nil || !strings.Contains(res.Err.Msg, "x must be within 0..1932") || len(got) != 0 {
			t.Errorf("input %q, error %v", got, res.Err)
		}
	})
}

func TestUITARSFormatErrors(t *testing.T) {
	cases := []struct {
		name, dialect, reply, reason, help string
	}{
		{"no action", "uitars-1.5", "Thought: I think the answer is 4", "no Action", "Action: click(start_box='(x,y)')"},
		{"answer-like gets the finished hint", "uitars-1.5", "The answer is 4.", "no Action", "finished(content="},
		{"empty action", "uitars-1.0", "Thought: x\nAction: ", "no Action", "Thought:"},
		{"unknown action lists the actions", "uitars-1.5", "Action: open_app(app_name='Chrome')", "unknown action", "left_double"},
		{"placeholder point", "uitars-1.5", "Action: click(start_box='(x1,y1)')", "not numbers", "Replace x and y"},
		{"three numbers", "doubao", "Action: click(point='<point>1 2 3</point>')", "3 numbers", "<point>x y</point>"},
		{"cut off in a string", "uitars-1.5", "Action: type(content='hello", "cut off", "type"},
		{"bad direction", "uitars-1.5", "Action: scroll(start_box='(1,1)', direction='sideways')", "sideways", "scroll"},
		{"unknown key", "uitars-1.5", "Action: hotkey(key='ctrl banana')", "banana", "hotkey"},
		{"two plain keys", "uitars-1.5", "Action: hotkey(key='a b')", "together", "hotkey"},
		{"mouse while a plain key is held", "doubao", "Action: press(key='a')\n\nclick(point='<point>1 1</point>')", "only ctrl, alt, shift and super can be held", "click"},
		{"prose after the action", "uitars-1.5", "Action: click(start_box='(1,2)') then I wait", "expected", "Action:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, _ := ByName(c.dialect)
			r, err := d.Parse(c.reply)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse(%q) = %+v, %v; want a *FormatError", c.reply, r, err)
			}
			if r.Code != "" {
				t.Errorf("a reply that does not parse has code %q", r.Code)
			}
			if fe.Dialect != c.dialect || !strings.Contains(fe.Reason, c.reason) || !strings.Contains(fe.Help, c.help) {
				t.Errorf("FormatError{%q, %q}\nhelp:\n%s\nwant reason ~%q, help ~%q", fe.Dialect, fe.Reason, fe.Help, c.reason, c.help)
			}
		})
	}
}

func TestUITARSTurn(t *testing.T) {
	d, _ := ByName("uitars-1.5")
	r, err := d.Parse("Thought: t\nAction: drag(start_box='(1,2)', end_box='(3, 4)')")
	if err != nil {
		t.Fatal(err)
	}
	want := "Thought: t\nAction: drag(start_box='<|box_start|>(1,2)<|box_end|>', end_box='<|box_start|>(3, 4)<|box_end|>')"
	if r.Turn != want {
		t.Errorf("Turn = %q, want %q", r.Turn, want)
	}
	dd, _ := ByName("doubao")
	if r, _ := dd.Parse("Action: click(point='<point>1 2</point>')"); r.Turn != "" {
		t.Errorf("doubao rewrites its turn: %q", r.Turn)
	}
}
