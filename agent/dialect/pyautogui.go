package dialect

import (
	"fmt"
	"image"
	"regexp"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"deskpilot/agent/dialect/registry"
	"deskpilot/vision"
)

// PyAutoGUI is the dialect of agents that answer in pyautogui code: OSWorld's
// baselines, OpenCUA, Aguvis, Agent S workers. A reply is Python in a fenced
// block (```python, ```code or a bare fence; Aguvis's unfenced pyautogui
// lines too), or one of the special replies WAIT, DONE and FAIL, alone or as
// the block's last line.
//
// The code runs in the Starlark sandbox through the modules pyautogui, time
// and computer (see Modules), whose every function goes through the agent's
// builtins. "import pyautogui" and "import time" lines are dropped; any other
// import is an error for the model. The code must be self-contained (as
// OSWorld's prompt asks): it may use the three modules, Starlark's built-in
// functions (print, range, len, ...) and names it binds itself, nothing else,
// so it can never reach a deskpilot builtin directly. Starlark is a Python
// dialect: for, if, while, def and lambda work; f-strings, try/except,
// classes, with, "is" and keyword-only syntax do not, and a reply using them
// gets the format help.
//
// Coordinates (Coords, config pyautogui_coords): "pixels" (default) — pixels
// of the screenshot, downscaled to the run's image size, as OSWorld sends
// it; "smart" — OpenCUA-7B/32B: pixels of the smart-resized screenshot
// (factor 28, 3,136 to 12,845,056 pixels), mapped with int(x·W/w); "unit" —
// Aguvis and OpenCUA-Qwen2: fractions 0..1 of the screen, mapped with
// round(x·W).
type PyAutoGUI struct {
	// Coords is "", "pixels", "smart" or "unit"; "" is "pixels".
	Coords string
	// cua is the opencua dialect: OpenCUA's prompt and history whatever
	// the coordinates.
	cua bool
}

// opencua reports whether g speaks OpenCUA's format.
func (g PyAutoGUI) opencua() bool { return g.cua || g.Coords == PyAutoGUISmart }

// name is the dialect's name, for format errors.
func (g PyAutoGUI) name() string {
	if g.cua {
		return "opencua"
	}
	return "pyautogui"
}

// OpenCUA is OpenCUA's own dialect ("opencua"): the reply is
//
//	## Thought:
//	...
//	## Action:
//	...
//	## Code:
//	```python
//	pyautogui.click(x=0.4927, y=0.3125)
//	```
//
// with pyautogui code and OpenCUA's computer.triple_click, computer.wait
// and computer.terminate, run as the pyautogui dialect runs it. Coords is
// "unit" (the default: fractions 0..1 of the screen, OpenCUA-Qwen2-7B,
// OpenCUA-A3B and later) or "smart" (OpenCUA-7B and -32B: pixels of the
// smart-resized screenshot). The screenshot comes first in each user turn
// with the task repeated, three kept. Get one with ByName or New.
type OpenCUA struct{ PyAutoGUI }

// newOpenCUA is the opencua dialect in coords ("" = unit).
func newOpenCUA(coords string) OpenCUA {
	if coords == "" {
		coords = PyAutoGUIUnit
	}
	return OpenCUA{PyAutoGUI{Coords: coords, cua: true}}
}

// Name implements Dialect.
func (OpenCUA) Name() string { return "opencua" }

// PyAutoGUI coordinate options (registry's).
const (
	PyAutoGUIPixels = registry.PyAutoGUIPixels
	PyAutoGUISmart  = registry.PyAutoGUISmart
	PyAutoGUIUnit   = registry.PyAutoGUIUnit
)

func (o Options) check() error { return registry.CheckPyAutoGUICoords(o.PyAutoGUICoords) }

// Name implements Dialect.
func (PyAutoGUI) Name() string { return "pyautogui" }

// Space implements Dialect.
func (g PyAutoGUI) Space(display image.Point, maxSide int) Space {
	switch g.Coords {
	case PyAutoGUISmart:
		return Space{Image: smartSize(display, qwen25Factor, qwen25Min, qwen25Max), Mode: vision.CoordPixelsFloor}
	case PyAutoGUIUnit:
		return Space{Image: scaled(display, maxSide), Mode: vision.CoordUnit}
	}
	return Space{Image: scaled(display, maxSide), Mode: vision.CoordPixels}
}

// Stop implements Dialect: none.
func (PyAutoGUI) Stop() []string { return nil }

// SystemPrompt implements Dialect: OSWorld's code-as-action format (or
// OpenCUA's, for Coords "smart") with the special replies, the task and the
// coordinate contract.
func (g PyAutoGUI) SystemPrompt(p Prompt) (string, error) {
	data := struct {
		Prompt
		Unit bool
	}{p, g.Coords == PyAutoGUIUnit}
	if g.opencua() {
		return render("opencua.tmpl", data)
	}
	return render("pyautogui.tmpl", data)
}

// History implements Historian: OSWorld's baseline asks the same question
// with every screenshot and keeps three; OpenCUA puts the screenshot first
// and repeats the task, three kept.
func (g PyAutoGUI) History() History {
	return History{KeepImages: 3, ImageFirst: g.opencua()}
}

// FirstTurn implements Historian.
func (g PyAutoGUI) FirstTurn(task string) string {
	return g.Observation(Outcome{Task: task})
}

// Observation implements Historian.
func (g PyAutoGUI) Observation(o Outcome) string {
	var b strings.Builder
	if t := terseObservation(o); t != "" {
		b.WriteString(t + "\n\n")
	}
	if g.opencua() {
		// INSTRUTION_TEMPLATE of OpenCUA's agent, verbatim (OSWorld
		// mm_agents/opencua/prompts.py).
		b.WriteString("# Task Instruction:\n" + o.Task + "\n\nPlease generate the next move according to the screenshot, task instruction and previous steps (if provided).\n")
		return b.String()
	}
	b.WriteString("This is the screenshot now. What is the next step toward the task?")
	return b.String()
}

var (
	pyFenceRe   = regexp.MustCompile("(?s)```[ \\t]*([A-Za-z0-9_+-]*)[ \\t]*(?:\\r?\\n)?(.*?)(?:```|$)")
	importRe    = regexp.MustCompile(`^\s*(?:import|from)\s`)
	okImportRe  = regexp.MustCompile(`^\s*import\s+(?:pyautogui|time)(?:\s*,\s*(?:pyautogui|time))*\s*;?\s*$`)
	specialRe   = regexp.MustCompile(`^(WAIT|DONE|FAIL)$`)
	artifactsRe = regexp.MustCompile(`(?m)^\s*(?:<\|recipient\|>\s*)?assistant(?:os|all)\s*$|<\|recipient\|>\s*(?:os|all)|<\|diff_marker\|>`)
)

// pyModules are the names the code may use besides Starlark's built-ins.
func pyModules() []string { return []string{"pyautogui", "time", "computer"} }

// Parse implements Dialect.
func (g PyAutoGUI) Parse(reply string) (Reply, error) {
	clean := artifactsRe.ReplaceAllString(reply, "")
	thought, code := splitPython(clean)
	r := Reply{Thought: thought}
	if g.opencua() {
		r.Turn = opencuaTurn(clean)
		if fenceOpen(clean) {
			return r, g.formatError(reply, "the reply ends inside its code block (cut, perhaps by the token limit), so none of it was run; "+
				"answer again with a short thought and a closed code block")
		}
	}
	special := ""
	lines := strings.Split(strings.TrimSpace(code), "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); specialRe.MatchString(last) {
		special, lines = last, lines[:len(lines)-1]
	}
	if code == "" {
		if t := strings.TrimSpace(clean); specialRe.MatchString(t) {
			special, r.Thought = t, ""
		} else {
			return r, g.formatError(reply, "no code block")
		}
	}
	var kept []string
	for i, l := range lines {
		if okImportRe.MatchString(l) {
			continue
		}
		if importRe.MatchString(l) {
			return r, g.formatError(reply, fmt.Sprintf("line %d imports %q: only pyautogui and time can be imported, and nothing else is needed", i+1, clip(strings.TrimSpace(l), 60)))
		}
		kept = append(kept, l)
	}
	body := strings.TrimSpace(dedent(strings.Join(kept, "\n")))
	if body != "" {
		if err := checkPython(body); err != nil {
			return r, g.formatError(reply, err.Error())
		}
	}
	var p program
	switch special {
	case "WAIT":
		p.call("wait", 5.0)
	case "DONE":
		p.call("final_answer", strings.TrimSpace(r.Thought))
	case "FAIL":
		p.call("final_answer", strings.TrimSpace("The task could not be done. "+r.Thought))
	}
	r.Code = strings.TrimSpace(body + "\n" + p.String())
	if r.Code == "" {
		return r, g.formatError(reply, "the code block is empty")
	}
	return r, nil
}

// splitPython returns the text outside fenced blocks and the code in them;
// without a fence, the lines that call pyautogui, computer or time.
func splitPython(reply string) (thought, code string) {
	if locs := pyFenceRe.FindAllStringSubmatchIndex(reply, -1); len(locs) > 0 {
		var text strings.Builder
		var blocks []string
		at := 0
		for _, l := range locs {
			text.WriteString(reply[at:l[0]])
			text.WriteByte('\n')
			at = l[1]
			lang := reply[l[2]:l[3]]
			body := reply[l[4]:l[5]]
			if lang != "" && !strings.Contains(" python py python3 code ", " "+strings.ToLower(lang)+" ") {
				if specialRe.MatchString(lang) && strings.TrimSpace(body) == "" {
					body = lang // ```DONE```
				} else {
					continue // a shell or JSON block is not code to run
				}
			}
			if b := strings.Trim(body, "\r\n"); strings.TrimSpace(b) != "" {
				blocks = append(blocks, dedent(b))
			}
		}
		text.WriteString(reply[at:])
		return pyThought(text.String()), strings.Join(blocks, "\n")
	}
	var text, lines []string
	for _, l := range strings.Split(reply, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "pyautogui.") || strings.HasPrefix(t, "computer.") ||
			strings.HasPrefix(t, "time.sleep(") || okImportRe.MatchString(t) {
			lines = append(lines, t)
			continue
		}
		text = append(text, l)
	}
	return pyThought(strings.Join(text, "\n")), strings.Join(lines, "\n")
}

// pyThought is the text around the code without the empty "## Code:"
// heading OpenCUA writes before it.
func pyThought(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "## Code:")
	s = strings.TrimSuffix(s, "Code:")
	return cleanThought(s)
}

// pyFileOptions are the executor's Starlark options.
func pyFileOptions() *syntax.FileOptions {
	return &syntax.FileOptions{While: true, Recursion: true, Set: true, GlobalReassign: true, TopLevelControl: true}
}

// checkPython parses the code as Starlark and resolves its names: only the
// modules, Starlark's built-ins and names the code binds are allowed.
func checkPython(code string) error {
	f, err := pyFileOptions().Parse("reply.py", code, 0)
	if err != nil {
		return fmt.Errorf("the code is not valid here: %v", err)
	}
	allowed := func(name string) bool {
		for _, m := range pyModules() {
			if name == m {
				return true
			}
		}
		return false
	}
	if err := resolve.File(f, allowed, starlark.Universe.Has); err != nil {
		return fmt.Errorf("the code uses names it does not define: %v; use only pyautogui, time and computer functions, and give each reply complete code", err)
	}
	return nil
}

func (g PyAutoGUI) formatError(reply, reason string) *FormatError {
	x, y := "960", "540"
	if g.Coords == PyAutoGUIUnit {
		x, y = "0.5", "0.5"
	}
	help := fmt.Sprintf("Your reply could not be run (%s), so nothing was done. Reply with a short reflection and one code block:\n\n"+
		"```python\npyautogui.click(%s, %s)\npyautogui.write('hello')\npyautogui.press('enter')\n```\n\n"+
		"Use pyautogui (click, doubleClick, tripleClick, rightClick, middleClick, moveTo, dragTo, mouseDown, mouseUp, "+
		"scroll, hscroll, write, typewrite, press, hotkey, keyDown, keyUp, sleep) and time.sleep. "+
		"The code runs as Starlark, a Python dialect: no imports besides pyautogui and time, no f-strings, no try/except, no classes. "+
		"Reply ```WAIT``` to wait, ```DONE``` when the task is done, ```FAIL``` when it cannot be done.", reason, x, y)
	return &FormatError{Dialect: g.name(), Reason: reason, Help: help}
}
