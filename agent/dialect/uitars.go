package dialect

import (
	"fmt"
	"image"
	"regexp"
	"strings"

	"deskpilot/vision"
)

// UITARS is ByteDance's UI-TARS family: a reply is
//
//	Thought: ...
//	Action: click(start_box='(235,512)')
//
// with one action, or several separated by blank lines (the hosted models).
// The three variants share the grammar and differ in the point syntax and
// the coordinate space:
//   - "uitars-1.5" (UI-TARS-1.5-7B): start_box='(x,y)', pixels of the
//     smart-resized screenshot (factor 28, 100·28² to 16384·28² pixels),
//     mapped with int(x·W/w) as its README does;
//   - "uitars-1.0" (UI-TARS 2B/7B/72B): the same grammar on a 0..1000 grid,
//     mapped with round(W·x/1000) as its README does;
//   - "doubao" (the hosted doubao-1.5-ui-tars / Seed models):
//     point='<point>x y</point>' on a 0..1000 grid, mapped as its Python
//     reference and pyautogui do (x/1000·W, truncated).
//
// Every box form is read (see parseBox) and a box becomes its centre;
// point=, start_point= and end_point= are read as start_box= and end_box=.
// type(content=...) ending in "\n" types the rest and presses Enter.
// finished(content=...) is final_answer(content); call_user() asks the
// person (ask_user) the reply's thought. press/keydown and release/keyup
// hold keys within the reply (see heldKeys). Get one with ByName; the zero
// value is not a dialect.
type UITARS struct {
	name      string
	mode      vision.CoordMode
	maxPixels int    // smart_resize's cap for the image sent
	prompt    string // template name
	point     string // how the prompt writes a point, for the format help
}

func uitars15() UITARS {
	return UITARS{name: "uitars-1.5", mode: vision.CoordPixelsFloor, maxPixels: 16384 * 28 * 28,
		prompt: "uitars-1.5.tmpl", point: "start_box='(x,y)'"}
}

func uitars10() UITARS {
	return UITARS{name: "uitars-1.0", mode: vision.CoordNorm1000Round, maxPixels: 2700 * 28 * 28,
		prompt: "uitars-1.0.tmpl", point: "start_box='(x,y)'"}
}

func doubao() UITARS {
	return UITARS{name: "doubao", mode: vision.CoordNorm1000, maxPixels: 5120 * 28 * 28,
		prompt: "doubao.tmpl", point: "point='<point>x y</point>'"}
}

// Name implements Dialect.
func (u UITARS) Name() string { return u.name }

// Space implements Dialect: the screenshot is sent at exactly its
// smart_resize size (factor 28, at least 100·28² pixels), so no server
// resizes it again; maxSide is ignored. 1920x1080 becomes 1932x1092.
func (u UITARS) Space(display image.Point, _ int) Space {
	return Space{Image: smartSize(display, 28, 100*28*28, u.maxPixels), Mode: u.mode}
}

// Stop implements Dialect: none; the model ends its turn itself.
func (u UITARS) Stop() []string { return nil }

// SystemPrompt implements Dialect: the trained action space and output
// format; the task is its "User Instruction".
func (u UITARS) SystemPrompt(p Prompt) (string, error) { return render(u.prompt, p) }

// History implements Historian: as UI-TARS-desktop and OSWorld's agent talk
// to it, the prompt with the task is the first user turn, then each
// screenshot is a user turn of its own and each reply an assistant turn;
// five screenshots are kept and older ones are dropped, not replaced.
func (u UITARS) History() History {
	return History{System: "You are a helpful assistant.", PromptInUser: true, SeparateImage: true,
		KeepImages: 5, DropOldImages: true}
}

// FirstTurn implements Historian: the task is in the prompt already.
func (u UITARS) FirstTurn(string) string { return "" }

// Observation implements Historian: UI-TARS was trained on screenshot-only
// turns, so a step that went well is the screenshot alone; problems and
// printed answers (call_user) come as short text.
func (u UITARS) Observation(o Outcome) string { return terseObservation(o) }

var (
	actionMarkRe = regexp.MustCompile(`(?m)Action\s*[:：]\s*`)
	callStartRe  = regexp.MustCompile(`^[A-Za-z_]\w*\s*\(`)
	thoughtRe    = regexp.MustCompile(`(?s)^\s*(Thought|Reflection|Action_Summary)\s*[:：]\s*`)
	summaryRe    = regexp.MustCompile(`(?m)^\s*Action_Summary\s*[:：]\s*`)
)

// uitarsActions lists the actions UITARS reads, for error messages.
const uitarsActions = "click, left_double, right_single, drag, hotkey, press, keydown, release, keyup, type, scroll, wait, finished, call_user"

// Parse implements Dialect.
func (u UITARS) Parse(reply string) (Reply, error) {
	r := Reply{Thought: strings.TrimSpace(reply)}
	if u.mode != vision.CoordNorm1000 {
		r.Turn = addBoxTokens(reply)
	}
	mark, at := actionStart(reply)
	if at < 0 {
		return r, u.formatError(reply, "no Action: line")
	}
	r.Thought = uitarsThought(reply[:mark])
	calls, err := parseCalls(reply[at:], actionSeparator)
	if err == nil && len(calls) == 0 {
		err = fmt.Errorf("the Action: line is empty")
	}
	if err != nil {
		return r, u.formatError(reply, err.Error())
	}
	var steps []step
	for _, c := range calls {
		s, err := u.step(c, r.Thought)
		if err != nil {
			return r, u.formatError(reply, fmt.Sprintf("%s(...): %v", c.name, err))
		}
		steps = append(steps, s...)
	}
	if r.Code, err = compile(steps); err != nil {
		return r, u.formatError(reply, err.Error())
	}
	return r, nil
}

// actionStart returns where the first action call begins (call) and where
// its "Action:" marker does (mark): the first marker followed by a call, or,
// with no such marker, the first line that is a call (mark == call). Both
// are -1 when there is none.
func actionStart(reply string) (mark, call int) {
	for _, m := range actionMarkRe.FindAllStringIndex(reply, -1) {
		if callStartRe.MatchString(reply[m[1]:]) {
			return m[0], m[1]
		}
	}
	off := 0
	for _, line := range strings.SplitAfter(reply, "\n") {
		t := strings.TrimLeft(line, " \t")
		if callStartRe.MatchString(t) && !thoughtRe.MatchString(t) {
			at := off + len(line) - len(t)
			return at, at
		}
		off += len(line)
	}
	return -1, -1
}

// actionSeparator lets a later "Action:" separate actions.
func actionSeparator(rest string) int {
	if loc := actionMarkRe.FindStringIndex(rest); loc != nil && loc[0] == 0 {
		return loc[1]
	}
	return 0
}

// uitarsThought is the text before the action without its labels.
func uitarsThought(s string) string {
	s = thoughtRe.ReplaceAllString(s, "")
	s = summaryRe.ReplaceAllString(s, "")
	return strings.TrimSpace(s)
}

// step maps one call onto steps.
func (u UITARS) step(c pyCall, thought string) ([]step, error) {
	switch c.name {
	case "click", "left_single", "left_double", "right_single", "hover", "move_to":
		p, err := boxArg(c, "start_box", "point", "start_point")
		if err != nil {
			return nil, err
		}
		o := map[string]op{"click": opClick, "left_single": opClick, "left_double": opDoubleClick,
			"right_single": opRightClick, "hover": opMove, "move_to": opMove}[c.name]
		return []step{{op: o, at: &p}}, nil
	case "drag", "select":
		from, err := boxArg(c, "start_box", "start_point")
		if err != nil {
			return nil, err
		}
		to, err := boxArg(c, "end_box", "end_point")
		if err != nil {
			return nil, err
		}
		return []step{{op: opDrag, at: &from, to: &to}}, nil
	case "hotkey", "press", "keydown", "release", "keyup":
		return u.keyStep(c)
	case "type":
		a, _ := c.kw("content")
		if a.key == "" {
			a, _ = c.pos(0)
		}
		return typeSteps(a.val), nil
	case "scroll":
		return u.scrollStep(c)
	case "wait":
		return []step{{op: opWait, secs: 5}}, nil
	case "finished":
		a, _ := c.kw("content")
		return []step{{op: opFinish, text: firstText(a.val, thought)}}, nil
	case "call_user":
		a, _ := c.kw("content")
		return []step{{op: opAsk, text: firstText(a.val, thought, "I need your help to go on.")}}, nil
	}
	return nil, fmt.Errorf("unknown action; %s actions: %s", u.name, uitarsActions)
}

func (u UITARS) keyStep(c pyCall) ([]step, error) {
	a, ok := c.kw("key", "hotkey", "keys", "press")
	if !ok {
		a, ok = c.pos(0)
	}
	if !ok || strings.TrimSpace(a.val) == "" && a.val != " " {
		return nil, fmt.Errorf("no key given, e.g. %s(key='ctrl c')", c.name)
	}
	k, err := combo(splitKeys(a.val))
	if err != nil {
		return nil, err
	}
	switch c.name {
	case "press", "keydown":
		return []step{{op: opKeyDown, combo: k}}, nil
	case "release", "keyup":
		return []step{{op: opKeyUp, combo: k}}, nil
	}
	return []step{{op: opKey, combo: k}}, nil
}

func (u UITARS) scrollStep(c pyCall) ([]step, error) {
	s := step{op: opScroll, amount: 5} // UI-TARS's reference scrolls 5 wheel clicks
	if _, ok := c.kw("start_box", "point", "start_point"); ok {
		p, err := boxArg(c, "start_box", "point", "start_point")
		if err != nil {
			return nil, err
		}
		s.at = &p
	}
	a, _ := c.kw("direction")
	switch d := strings.ToLower(strings.TrimSpace(a.val)); d {
	case "up", "down", "left", "right":
		s.dir = d
	default:
		return nil, fmt.Errorf("direction %q: give one of 'up', 'down', 'left', 'right'", a.val)
	}
	return []step{s}, nil
}

// boxArg reads the point in the first of the named arguments present, or
// in the first positional argument.
func boxArg(c pyCall, names ...string) (vision.ModelPoint, error) {
	a, ok := c.kw(names...)
	if !ok {
		a, ok = c.pos(0)
	}
	if !ok {
		return vision.ModelPoint{}, fmt.Errorf("no %s given", names[0])
	}
	return parseBox(a.val)
}

// typeSteps types text; a trailing newline (UI-TARS's "submit") is Enter.
func typeSteps(text string) []step {
	body := strings.TrimRight(text, "\n")
	var steps []step
	if body != "" {
		steps = append(steps, step{op: opType, text: body})
	}
	if body != text {
		steps = append(steps, step{op: opKey, combo: "enter"})
	}
	return steps
}

// firstText returns the first non-blank string.
func firstText(s ...string) string {
	for _, t := range s {
		if strings.TrimSpace(t) != "" {
			return t
		}
	}
	return ""
}

// formatError is a *FormatError with UITARS's format help.
func (u UITARS) formatError(reply, reason string) *FormatError {
	help := fmt.Sprintf("Your reply could not be read (%s), so nothing was done. Answer in this format:\n\n"+
		"Thought: what you see and what you will do next.\nAction: click(%s)\n\n"+
		"Actions: %s. Replace x and y with numbers.", reason, u.point, uitarsActions)
	if answerLike.MatchString(reply) {
		help += "\nWhen the task is done, answer with: Action: finished(content='the answer')"
	}
	return &FormatError{Dialect: u.name, Reason: reason, Help: help}
}

var boxTokenRe = regexp.MustCompile(`(start_box|end_box)='\((\d+),(\s*)(\d+)\)'`)

// addBoxTokens restores the <|box_start|>/<|box_end|> special tokens that
// decoding strips from a reply, so the history shows the model its own
// trained output (UI-TARS's add_box_token).
func addBoxTokens(reply string) string {
	if !strings.Contains(reply, "start_box=") {
		return ""
	}
	return boxTokenRe.ReplaceAllString(reply, "$1='<|box_start|>($2,$3$4)<|box_end|>'")
}
