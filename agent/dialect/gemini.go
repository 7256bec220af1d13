package dialect

import (
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"strings"

	"deskpilot/agent/convo"
	"deskpilot/vision"
)

// GeminiComputer is Gemini's computer_use tool over generateContent
// ("gemini-computer"), declared with environment ENVIRONMENT_DESKTOP. The
// model answers with function calls of predefined functions, run in order,
// each answered by a function response (the last with the screenshot).
// Functions of the desktop environment: click, double_click, triple_click,
// middle_click, right_click, mouse_down and mouse_up (paired within a reply
// into a drag), move, type (text, press_enter), drag_and_drop (start_x,
// start_y, end_x, end_y), wait (seconds), press_key (key), key_down and
// key_up, hotkey (keys), take_screenshot and scroll (direction,
// magnitude_in_pixels, or magnitude_in_wheel_clicks). The Gemini 2.5 names
// are read too: click_at, hover_at, type_text_at, key_combination,
// scroll_at (magnitude), scroll_document, wait_5_seconds and drag_and_drop
// with destination_x/y; navigate, search, go_back and go_forward (browser
// functions) are refused: there is no browser here.
//
// Every call's intent is the step's thought. A safety_decision
// "require_confirmation" goes to the person and, approved, comes back as
// safety_acknowledgement "true"; "blocked" refuses the call. Points are on
// a 0..999 grid of the screenshot, mapped with int(x/1000·W) as Google's
// reference does (vision.CoordNorm1000); 1000 and above are refused.
type GeminiComputer struct{}

// Name implements Dialect.
func (GeminiComputer) Name() string { return "gemini-computer" }

// Provider implements ToolDialect.
func (GeminiComputer) Provider() string { return convo.ProviderGemini }

// Space implements Dialect: the screenshot as the display shows it, scaled
// to the configured longest side (the grid does not depend on its size).
func (GeminiComputer) Space(display image.Point, maxSide int) Space {
	return Space{Image: scaled(display, maxSide), Mode: vision.CoordNorm1000}
}

// Stop implements Dialect: none.
func (GeminiComputer) Stop() []string { return nil }

// SystemPrompt implements Dialect.
func (GeminiComputer) SystemPrompt(p Prompt) (string, error) {
	return vendorPrompt(p, finishText), nil
}

// History implements Historian: Google's reference keeps the screenshots
// of the three most recent turns.
func (GeminiComputer) History() History { return History{KeepImages: 3} }

// FirstTurn implements Historian.
func (GeminiComputer) FirstTurn(task string) string { return task }

// Observation implements Historian.
func (GeminiComputer) Observation(o Outcome) string { return terseObservation(o) }

// Prepare implements ToolDialect.
func (GeminiComputer) Prepare(r *convo.Request, _ Space, _ bool) {
	r.Computer = &convo.ComputerTool{Environment: "ENVIRONMENT_DESKTOP"}
}

// Parse implements Dialect: a reply's text alone is the answer.
func (d GeminiComputer) Parse(reply string) (Reply, error) { return vendorFinal(d.Name(), reply) }

// geminiArgs are a predefined function's arguments, in the current and the
// 2.5 naming.
type geminiArgs struct {
	X, Y              *float64
	StartX            *float64 `json:"start_x"`
	StartY            *float64 `json:"start_y"`
	EndX              *float64 `json:"end_x"`
	EndY              *float64 `json:"end_y"`
	DestinationX      *float64 `json:"destination_x"`
	DestinationY      *float64 `json:"destination_y"`
	Text              *string
	PressEnter        *bool           `json:"press_enter"`
	ClearBeforeTyping *bool           `json:"clear_before_typing"`
	Direction         string          `json:"direction"`
	Magnitude         *float64        `json:"magnitude"`
	MagnitudePixels   *float64        `json:"magnitude_in_pixels"`
	MagnitudeClicks   *float64        `json:"magnitude_in_wheel_clicks"`
	Key               string          `json:"key"`
	Keys              json.RawMessage `json:"keys"`
	Seconds           *float64        `json:"seconds"`
	Intent            string          `json:"intent"`
	SafetyDecision    *struct {
		Decision    string `json:"decision"`
		Explanation string `json:"explanation"`
	} `json:"safety_decision"`
}

const geminiActions = "click, double_click, triple_click, middle_click, right_click, mouse_down, mouse_up, move, type, " +
	"drag_and_drop, wait, press_key, key_down, key_up, hotkey, take_screenshot, scroll"

// ParseResponse implements ToolDialect.
func (d GeminiComputer) ParseResponse(res convo.Response) (Reply, error) {
	if len(res.Calls) == 0 {
		return vendorFinal(d.Name(), res.Text)
	}
	r := Reply{Calls: res.Calls}
	var intents []string
	var steps []step
	for i, c := range res.Calls {
		var a geminiArgs
		if err := json.Unmarshal(c.Input, &a); err != nil {
			return r, toolError(d.Name(), fmt.Sprintf("call %d (%s): arguments are not a JSON object: %v", i+1, clip(c.Name, 30), err), geminiActions)
		}
		if a.Intent != "" {
			intents = append(intents, a.Intent)
		}
		if sd := a.SafetyDecision; sd != nil {
			switch sd.Decision {
			case "require_confirmation":
				ch := convo.SafetyCheck{Code: sd.Decision, Message: sd.Explanation}
				res.Calls[i].Checks = []convo.SafetyCheck{ch}
				r.Checks = append(r.Checks, ch)
			case "blocked":
				r.Refused = firstText(sd.Explanation, "the safety service blocked the action")
			}
		}
		s, err := geminiStep(c.Name, a)
		if err != nil {
			return r, toolError(d.Name(), fmt.Sprintf("call %d (%s): %v", i+1, clip(c.Name, 30), err), geminiActions)
		}
		steps = append(steps, s...)
	}
	r.Calls = res.Calls
	r.Thought = firstText(strings.Join(intents, "; "), strings.TrimSpace(res.Text), strings.TrimSpace(res.Reasoning))
	if r.Refused != "" {
		return r, nil // nothing runs; the results say why
	}
	if err := compileCalls(&r, d.Name(), steps, geminiActions); err != nil {
		return r, err
	}
	return r, nil
}

// gridPoint is (x, y) on the 0..999 grid.
func gridPoint(x, y *float64) (*vision.ModelPoint, error) {
	if x == nil || y == nil {
		return nil, errors.New("needs x and y")
	}
	if *x > 999 || *y > 999 {
		return nil, fmt.Errorf("point (%g, %g) is outside the screen: x and y run from 0 to 999", *x, *y)
	}
	return finitePoint(*x, *y)
}

// geminiStep maps one call onto steps.
func geminiStep(name string, a geminiArgs) ([]step, error) {
	pt := func() (*vision.ModelPoint, error) { return gridPoint(a.X, a.Y) }
	switch name {
	case "click", "click_at", "double_click", "triple_click", "middle_click", "right_click", "move", "hover_at", "mouse_down", "mouse_up":
		p, err := pt()
		if err != nil {
			return nil, err
		}
		o := map[string]op{"click": opClick, "click_at": opClick, "double_click": opDoubleClick, "triple_click": opTripleClick,
			"middle_click": opMiddleClick, "right_click": opRightClick, "move": opMove, "hover_at": opMove,
			"mouse_down": opMouseDown, "mouse_up": opMouseUp}[name]
		return []step{{op: o, at: p}}, nil
	case "type", "type_text_at":
		return geminiType(name, a)
	case "drag_and_drop":
		from, err := gridPoint(firstNum(a.StartX, a.X), firstNum(a.StartY, a.Y))
		if err != nil {
			return nil, err
		}
		to, err := gridPoint(firstNum(a.EndX, a.DestinationX), firstNum(a.EndY, a.DestinationY))
		if err != nil {
			return nil, err
		}
		return []step{{op: opDrag, at: from, to: to}}, nil
	case "wait", "wait_5_seconds":
		secs := 1.0
		if name == "wait_5_seconds" {
			secs = 5
		}
		if a.Seconds != nil {
			secs = *a.Seconds
		}
		if secs < 0 || secs > 60 || secs != secs {
			return nil, fmt.Errorf("seconds %g: want 0 to 60", secs)
		}
		return []step{{op: opWait, secs: secs}}, nil
	case "press_key", "key_down", "key_up":
		k, err := combo(splitKeys(a.Key))
		if err != nil {
			return nil, err
		}
		o := map[string]op{"press_key": opKey, "key_down": opKeyDown, "key_up": opKeyUp}[name]
		return []step{{op: o, combo: k}}, nil
	case "hotkey", "key_combination":
		keys, err := geminiKeys(a.Keys)
		if err != nil {
			return nil, err
		}
		k, err := combo(keys)
		if err != nil {
			return nil, err
		}
		return []step{{op: opKey, combo: k}}, nil
	case "scroll", "scroll_at", "scroll_document":
		return geminiScroll(name, a)
	case "take_screenshot", "open_web_browser":
		return nil, nil
	case "navigate", "search", "go_back", "go_forward":
		return nil, fmt.Errorf("%s is a browser function, and this is a desktop: use the desktop's own browser with clicks and keys", name)
	case "":
		return nil, errNoAction
	}
	return nil, fmt.Errorf("unknown function %q", clip(name, 30))
}

func firstNum(a, b *float64) *float64 {
	if a != nil {
		return a
	}
	return b
}

// geminiType clicks the point (if any), clears the field when asked, types
// and presses Enter when asked (type_text_at presses it unless told not to).
func geminiType(name string, a geminiArgs) ([]step, error) {
	if a.Text == nil {
		return nil, errors.New("needs text")
	}
	var out []step
	if a.X != nil || a.Y != nil {
		p, err := gridPoint(a.X, a.Y)
		if err != nil {
			return nil, err
		}
		out = append(out, step{op: opClick, at: p})
	}
	clear := name == "type_text_at" && (a.ClearBeforeTyping == nil || *a.ClearBeforeTyping)
	if clear {
		out = append(out, step{op: opKey, combo: "ctrl+a"}, step{op: opKey, combo: "backspace"})
	}
	out = append(out, step{op: opType, text: *a.Text})
	enter := a.PressEnter != nil && *a.PressEnter || name == "type_text_at" && a.PressEnter == nil
	if enter {
		out = append(out, step{op: opKey, combo: "enter"})
	}
	return out, nil
}

// geminiKeys reads keys: a list, or a "+"-joined combination (2.5).
func geminiKeys(raw json.RawMessage) ([]string, error) {
	var list []string
	if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
		var out []string
		for _, k := range list {
			out = append(out, splitKeys(k)...)
		}
		return out, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return splitKeys(s), nil
	}
	return nil, errors.New(`needs keys, e.g. ["ctrl", "c"]`)
}

// geminiScroll converts a scroll: magnitude_in_pixels (or 2.5's magnitude,
// on the 0..999 grid of the screen, taken as pixels of a 1000-pixel screen)
// at 50 pixels a wheel click, or magnitude_in_wheel_clicks as they are;
// scroll_document scrolls where the mouse is.
func geminiScroll(name string, a geminiArgs) ([]step, error) {
	switch a.Direction {
	case "up", "down", "left", "right":
	default:
		return nil, fmt.Errorf("direction %q: want up, down, left or right", clip(a.Direction, 20))
	}
	var at *vision.ModelPoint
	if name != "scroll_document" {
		p, err := gridPoint(a.X, a.Y)
		if err != nil {
			return nil, err
		}
		at = p
	}
	n := 0
	switch {
	case a.MagnitudeClicks != nil:
		if *a.MagnitudeClicks < 0 || *a.MagnitudeClicks > maxScroll {
			return nil, fmt.Errorf("magnitude_in_wheel_clicks %g: want 0 to %d", *a.MagnitudeClicks, maxScroll)
		}
		n = int(*a.MagnitudeClicks)
	default:
		px := 300.0
		if name == "scroll_at" || name == "scroll_document" {
			px = 800
		}
		if m := firstNum(a.MagnitudePixels, a.Magnitude); m != nil {
			px = *m
		}
		if px < 0 {
			return nil, fmt.Errorf("magnitude %g: want a positive distance", px)
		}
		c, err := scrollClicks(px)
		if err != nil {
			return nil, err
		}
		n = c
	}
	if n == 0 {
		return nil, nil
	}
	return []step{{op: opScroll, at: at, dir: a.Direction, amount: n}}, nil
}

// Results implements ToolDialect.
func (d GeminiComputer) Results(reply Reply, o Outcome, acks []convo.SafetyCheck, images []convo.Part) []convo.Part {
	return vendorResults(reply.Calls, o, acks, images, reply.Refused)
}
