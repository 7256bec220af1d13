package main

import (
	"deskpilot/actions"
	"image"
	"time"
)

// scriptStep is one step of the scripted run.
type scriptStep struct {
	reply   string
	code    string
	actions []actions.Record
	obs     string
	err     string
	frame   func(p *painter) *image.RGBA
	answer  string
}

func pt(x, y int) *[2]int         { return &[2]int{x, y} }
func mp(x, y float64) *[2]float64 { return &[2]float64{x, y} }

const haiku = "Small gopher runs fast\nchannels hum in quiet night\ngoroutines bloom"

// haikuScript is a run that opens an editor, writes a haiku, trips once and saves.
func haikuScript() []scriptStep {
	editor := func(title string, lines ...string) func(p *painter) *image.RGBA {
		return func(p *painter) *image.RGBA { return p.desktop(true, title, lines) }
	}
	withMark := func(f func(p *painter) *image.RGBA, x, y int) func(p *painter) *image.RGBA {
		return func(p *painter) *image.RGBA { img := f(p); mark(img, x, y); return img }
	}
	return []scriptStep{
		{
			reply: "Thought: The desktop shows a dock on the left with a Text Editor icon. I'll launch the editor and wait for its window.\n```python\nlaunch(\"gedit\")\nwait(1.5)\n```",
			code:  "launch(\"gedit\")\nwait(1.5)",
			actions: []actions.Record{
				{Name: "launch", Args: `"gedit"`, Duration: 180 * time.Millisecond, Result: "started pid 4711"},
				{Name: "wait", Args: "1.5", Duration: 1500 * time.Millisecond},
			},
			obs:   "Actions: launch(\"gedit\") → started pid 4711; wait(1.5)\nScreen changed: yes (a window \"Untitled Document 1 - Text Editor\" appeared)",
			frame: withMark(editor("Untitled Document 1 — Text Editor"), 700, 380),
		},
		{
			reply: "Thought: The editor is open and empty. I'll click into the text area and type the haiku, one line at a time.\n```python\nclick(683, 300)\nlines = [\"Small gopher runs fast\", \"channels hum in quiet night\", \"goroutines bloom\"]\nfor line in lines:\n    type_text(line + \"\\n\")  # one line per call\n```",
			code:  "click(683, 300)\nlines = [\"Small gopher runs fast\", \"channels hum in quiet night\", \"goroutines bloom\"]\nfor line in lines:\n    type_text(line + \"\\n\")  # one line per call",
			actions: []actions.Record{
				{Name: "click", Args: "683, 300", Model: mp(683, 300), Screen: pt(1366, 600), Duration: 40 * time.Millisecond},
				{Name: "type_text", Args: `"Small gopher runs fast\n"`, Duration: 310 * time.Millisecond},
				{Name: "type_text", Args: `"channels hum in quiet night\n"`, Duration: 380 * time.Millisecond},
				{Name: "type_text", Args: `"goroutines bloom\n"`, Duration: 260 * time.Millisecond},
			},
			obs:   "Actions: click(683, 300); type_text ×3\nScreen changed: yes",
			frame: withMark(editor("*Untitled Document 1 — Text Editor", "Small gopher runs fast", "channels hum in quiet night", "goroutines bloom"), 683, 300),
		},
		{
			reply: "Thought: The haiku is typed. Now I save it: Ctrl+S opens the save dialog, then I type the file name and confirm.\n```python\npress(\"ctrl+s\")\nwait(1)\ntype_text(\"haiku.txt\")\npres(\"enter\")\n```",
			code:  "press(\"ctrl+s\")\nwait(1)\ntype_text(\"haiku.txt\")\npres(\"enter\")",
			actions: []actions.Record{
				{Name: "press", Args: `"ctrl+s"`, Duration: 60 * time.Millisecond},
				{Name: "wait", Args: "1", Duration: time.Second},
				{Name: "type_text", Args: `"haiku.txt"`, Duration: 150 * time.Millisecond},
			},
			err:   "line 4: undefined: pres (did you mean press?)",
			obs:   "Error: line 4: undefined: pres (did you mean press?)\nThe first 3 actions ran.\nScreen changed: yes (a Save dialog is open with \"haiku.txt\" typed)",
			frame: editor("Save As — haiku.txt", "Name: haiku.txt", "Folder: Documents", "", "[ Cancel ]   [ Save ]"),
		},
		{
			reply: "Thought: A typo — `pres` should be `press`. The Save dialog still shows haiku.txt, so pressing Enter saves it.\n```python\npress(\"enter\")\nwait(0.5)\nfinal_answer(\"Saved haiku.txt in Documents:\\n" + "Small gopher runs fast / channels hum in quiet night / goroutines bloom\")\n```",
			code:  "press(\"enter\")\nwait(0.5)\nfinal_answer(\"Saved haiku.txt in Documents:\\nSmall gopher runs fast / channels hum in quiet night / goroutines bloom\")",
			actions: []actions.Record{
				{Name: "press", Args: `"enter"`, Duration: 50 * time.Millisecond},
				{Name: "wait", Args: "0.5", Duration: 500 * time.Millisecond},
			},
			obs:    "final_answer called.",
			frame:  editor("haiku.txt (~/Documents) — Text Editor", "Small gopher runs fast", "channels hum in quiet night", "goroutines bloom"),
			answer: "Saved haiku.txt in Documents:\n" + haiku,
		},
	}
}
