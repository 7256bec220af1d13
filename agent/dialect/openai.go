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

// OpenAIComputer is OpenAI's computer tool over the Responses API
// ("openai-computer"). The model answers with computer_call items: the GA
// tool ({"type": "computer"}, gpt-5.4 and later) batches actions[] in one
// call, run in order before the next screenshot; the preview
// (computer_use_preview, for the computer-use-preview model) has one
// action. Actions: click (button left, right, wheel = middle, back and
// forward refused), double_click, drag (path of points: from the first to
// the last), keypress (keys pressed together), move, screenshot (only
// looks), scroll (scroll_x/scroll_y pixels at x, y, converted to wheel
// clicks at 50 pixels a click), type, wait. Modifier keys in a mouse
// action's keys (["SHIFT"] on a click) are held down during it (the
// builtins' modifiers); other keys there are an error. pending_safety_checks go to
// the person; approved ones come back as acknowledged_safety_checks in the
// computer_call_output, which carries the screenshot. A reply without a
// computer_call is the answer.
//
// Points are pixels of the screenshot the model saw. It is sent at detail
// "original", which the API never rescales up to 10.24 million pixels, so
// a display up to that goes out unscaled (1920x1080, 2560x1440) and
// coordinates are screen pixels; a larger one is scaled to fit and mapped
// back through vision.Mapper. Get one with ByName or New.
type OpenAIComputer struct {
	// Model is the model's name; computer-use-preview gets the preview tool.
	Model string
}

// openAIMaxPixels is the most pixels detail "original" keeps.
const openAIMaxPixels = 10_240_000

// Name implements Dialect.
func (OpenAIComputer) Name() string { return "openai-computer" }

// Provider implements ToolDialect.
func (OpenAIComputer) Provider() string { return convo.ProviderResponses }

// preview reports whether the model wants the preview tool.
func (d OpenAIComputer) preview() bool {
	return strings.Contains(strings.ToLower(d.Model), "computer-use-preview")
}

// Space implements Dialect.
func (d OpenAIComputer) Space(display image.Point, _ int) Space {
	return Space{Image: limitSize(display, 0, openAIMaxPixels), Mode: vision.CoordPixels}
}

// Stop implements Dialect: none (the Responses API has no stop sequences).
func (OpenAIComputer) Stop() []string { return nil }

// SystemPrompt implements Dialect.
func (OpenAIComputer) SystemPrompt(p Prompt) (string, error) {
	return vendorPrompt(p, finishText), nil
}

// History implements Historian: the text goes before the screenshot; the
// server keeps the conversation, so the request carries only the new turn.
func (OpenAIComputer) History() History { return History{KeepImages: 3} }

// FirstTurn implements Historian.
func (OpenAIComputer) FirstTurn(task string) string {
	return "This is the screen now. Carry out the task: " + task
}

// Observation implements Historian.
func (OpenAIComputer) Observation(o Outcome) string { return terseObservation(o) }

// Prepare implements ToolDialect.
func (d OpenAIComputer) Prepare(r *convo.Request, sp Space, _ bool) {
	if d.preview() {
		r.Computer = &convo.ComputerTool{Type: "computer_use_preview", Display: sp.Image, Environment: "linux"}
		return
	}
	r.Computer = &convo.ComputerTool{Type: "computer"}
}

// Parse implements Dialect: a reply's text alone is the answer.
func (d OpenAIComputer) Parse(reply string) (Reply, error) {
	return vendorFinal(d.Name(), reply)
}

// openAIAction is one action of a computer_call.
type openAIAction struct {
	Type    string                   `json:"type"`
	Button  string                   `json:"button"`
	X       *float64                 `json:"x"`
	Y       *float64                 `json:"y"`
	Keys    []string                 `json:"keys"`
	Path    []struct{ X, Y float64 } `json:"path"`
	ScrollX float64                  `json:"scroll_x"`
	ScrollY float64                  `json:"scroll_y"`
	Text    *string                  `json:"text"`
	Ms      *float64                 `json:"duration"`
	Extra   json.RawMessage          `json:"-"`
}

const openAIActions = "click, double_click, drag, keypress, move, screenshot, scroll, type, wait"

// ParseResponse implements ToolDialect.
func (d OpenAIComputer) ParseResponse(res convo.Response) (Reply, error) {
	if len(res.Calls) == 0 {
		return vendorFinal(d.Name(), res.Text)
	}
	r := Reply{Thought: firstText(strings.TrimSpace(res.Text), strings.TrimSpace(res.Reasoning)), Calls: res.Calls}
	var steps []step
	for _, c := range res.Calls {
		r.Checks = append(r.Checks, c.Checks...)
		var item struct {
			Action  *openAIAction  `json:"action"`
			Actions []openAIAction `json:"actions"`
		}
		if err := json.Unmarshal(c.Input, &item); err != nil {
			return r, toolError(d.Name(), "the computer_call is not a JSON object: "+err.Error(), openAIActions)
		}
		acts := item.Actions
		if item.Action != nil {
			acts = append([]openAIAction{*item.Action}, acts...)
		}
		if len(acts) == 0 {
			return r, toolError(d.Name(), "the computer_call has no action", openAIActions)
		}
		if len(acts) > maxCalls {
			return r, toolError(d.Name(), fmt.Sprintf("more than %d actions in one call", maxCalls), openAIActions)
		}
		for i, a := range acts {
			s, err := openAIStep(a)
			if err != nil {
				return r, toolError(d.Name(), fmt.Sprintf("action %d (%s): %v", i+1, clip(a.Type, 30), err), openAIActions)
			}
			steps = append(steps, s...)
		}
	}
	if err := compileCalls(&r, d.Name(), steps, openAIActions); err != nil {
		return r, err
	}
	return r, nil
}

// openAIStep maps one action onto steps.
func openAIStep(a openAIAction) ([]step, error) {
	s, err := openAIMouse(a)
	if err != nil || a.Type == "keypress" {
		return s, err
	}
	mods, err := heldModifiers(a.Keys)
	if err != nil {
		return nil, err
	}
	for i := range s {
		switch s[i].op {
		case opType, opWait:
			if mods != "" {
				return nil, fmt.Errorf("keys are held only during mouse actions, not during %s", a.Type)
			}
		default:
			s[i].mods = mods
		}
	}
	return s, nil
}

// openAIMouse maps one action onto steps, without the keys held during it.
func openAIMouse(a openAIAction) ([]step, error) {
	at := func() (*vision.ModelPoint, error) {
		if a.X == nil || a.Y == nil {
			return nil, errors.New("needs x and y")
		}
		return finitePoint(*a.X, *a.Y)
	}
	switch a.Type {
	case "click", "double_click", "move":
		p, err := at()
		if err != nil {
			return nil, err
		}
		o := map[string]op{"click": opClick, "double_click": opDoubleClick, "move": opMove}[a.Type]
		if a.Type == "click" {
			switch a.Button {
			case "", "left":
			case "right":
				o = opRightClick
			case "wheel", "middle":
				o = opMiddleClick
			default:
				return nil, fmt.Errorf("button %q is not supported: left, right or wheel", clip(a.Button, 20))
			}
		}
		return []step{{op: o, at: p}}, nil
	case "drag":
		if len(a.Path) < 2 {
			return nil, errors.New("drag needs a path of at least two points")
		}
		from, err := finitePoint(a.Path[0].X, a.Path[0].Y)
		if err != nil {
			return nil, err
		}
		last := a.Path[len(a.Path)-1]
		to, err := finitePoint(last.X, last.Y)
		if err != nil {
			return nil, err
		}
		return []step{{op: opDrag, at: from, to: to}}, nil
	case "keypress":
		k, err := combo(a.Keys)
		if err != nil {
			return nil, err
		}
		return []step{{op: opKey, combo: k}}, nil
	case "scroll":
		p, err := at()
		if err != nil {
			return nil, err
		}
		return scrollSteps(p, a.ScrollX, a.ScrollY)
	case "type":
		if a.Text == nil {
			return nil, errors.New("type needs text")
		}
		return []step{{op: opType, text: *a.Text}}, nil
	case "wait":
		secs := 2.0
		if a.Ms != nil && *a.Ms > 0 {
			secs = min(*a.Ms/1000, 30)
		}
		return []step{{op: opWait, secs: secs}}, nil
	case "screenshot":
		return nil, nil
	case "":
		return nil, errNoAction
	}
	return nil, fmt.Errorf("unknown action %q", clip(a.Type, 30))
}

// scrollSteps turns a scroll by dx, dy pixels (positive: right, down) into
// wheel steps at p.
func scrollSteps(p *vision.ModelPoint, dx, dy float64) ([]step, error) {
	var out []step
	for _, d := range []struct {
		v        float64
		pos, neg string
	}{{dy, "down", "up"}, {dx, "right", "left"}} {
		if d.v == 0 {
			continue
		}
		n, err := scrollClicks(d.v)
		if err != nil {
			return nil, err
		}
		dir := d.pos
		if d.v < 0 {
			dir = d.neg
		}
		out = append(out, step{op: opScroll, at: p, dir: dir, amount: n})
	}
	return out, nil
}

// Results implements ToolDialect.
func (d OpenAIComputer) Results(reply Reply, o Outcome, acks []convo.SafetyCheck, images []convo.Part) []convo.Part {
	return vendorResults(reply.Calls, o, acks, images, reply.Refused)
}
