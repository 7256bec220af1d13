package dialect

import (
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"strings"

	"deskpilot/vision"
)

// Fara is Microsoft's Fara-7B ("fara") over chat completions: a Qwen2.5-VL
// model answering each step with its thoughts and one
//
//	<tool_call>
//	{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [x, y]}}
//	</tool_call>
//
// block, declared with Fara's own computer_use tool (its description and
// action list kept as Fara's agent declares them). Points are pixels of
// the smart-resized screenshot (factor 28, 3,136 to 12,845,056 pixels),
// mapped back with x·W/w. Desktop actions: key (keys pressed together),
// type (at a coordinate when given, press_enter, delete_existing_text),
// mouse_move, left_click, scroll (pixels, at 50 a wheel click; positive is
// up), wait (time), terminate (status). Its web actions run where they
// mean the same: visit_url in the text browser (visit_page), web_search
// likewise, history_back and refresh as the browser's keys (alt+Left, F5),
// pause_and_memorize_fact as a note the model gets back.
type Fara struct{}

// Name implements Dialect.
func (Fara) Name() string { return "fara" }

// Space implements Dialect.
func (Fara) Space(display image.Point, _ int) Space {
	return Space{Image: smartSize(display, qwen25Factor, qwen25Min, qwen25Max), Mode: vision.CoordPixelsFloor}
}

// Stop implements Dialect.
func (Fara) Stop() []string { return []string{"<tool_response>"} }

// SystemPrompt implements Dialect: Qwen's function-calling system prompt
// with Fara's computer_use tool at the screenshot's resolution.
func (Fara) SystemPrompt(p Prompt) (string, error) {
	var b strings.Builder
	b.WriteString("You are a helpful assistant.")
	if p.DisplayNote != "" {
		b.WriteString(" " + p.DisplayNote)
	}
	b.WriteString("\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
		"You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n" +
		pyJSON(faraTool(p.Image.X, p.Image.Y)) + "\n</tools>\n\n" +
		"For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n" +
		"<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>")
	return b.String(), nil
}

// History implements Historian: Fara's agent puts the screenshot before
// the text and keeps three.
func (Fara) History() History { return History{ImageFirst: true, KeepImages: 3, DropOldImages: true} }

// FirstTurn implements Historian.
func (Fara) FirstTurn(task string) string { return task }

// Observation implements Historian: Fara's agent says "Here is the next
// screenshot. Think about what to do next."
func (Fara) Observation(o Outcome) string {
	t := "Here is the next screenshot. Think about what to do next."
	if p := terseObservation(o); p != "" {
		t = p + "\n\n" + t
	}
	return t
}

// faraArgs are computer_use arguments.
type faraArgs struct {
	Action     string   `json:"action"`
	Keys       any      `json:"keys"`
	Text       *string  `json:"text"`
	PressEnter *bool    `json:"press_enter"`
	DeleteText *bool    `json:"delete_existing_text"`
	Coordinate any      `json:"coordinate"`
	Pixels     *float64 `json:"pixels"`
	URL        string   `json:"url"`
	Query      string   `json:"query"`
	Fact       string   `json:"fact"`
	Time       *float64 `json:"time"`
	Status     string   `json:"status"`
}

const faraActions = "key, type, mouse_move, left_click, scroll, visit_url, web_search, history_back, pause_and_memorize_fact, wait, refresh, terminate"

// Parse implements Dialect.
func (d Fara) Parse(reply string) (Reply, error) {
	blocks, thought := toolCalls(reply)
	r := Reply{Thought: thought}
	if len(blocks) == 0 {
		return r, d.formatError("no <tool_call> block")
	}
	if len(blocks) > maxCalls {
		return r, d.formatError(fmt.Sprintf("more than %d tool calls in one reply", maxCalls))
	}
	var steps []step
	for i, b := range blocks {
		var c qwenCall
		if err := strictJSON(b, &c); err != nil {
			return r, d.formatError(fmt.Sprintf("tool call %d is not a JSON object {\"name\": ..., \"arguments\": {...}}: %v", i+1, err))
		}
		if c.Name != "computer_use" {
			return r, d.formatError(fmt.Sprintf("tool call %d: unknown function %q; the only function is computer_use", i+1, clip(c.Name, 40)))
		}
		raw := c.Arguments
		var s string
		if json.Unmarshal(raw, &s) == nil {
			raw = json.RawMessage(s)
		}
		var a faraArgs
		if err := strictJSON(string(raw), &a); err != nil {
			return r, d.formatError(fmt.Sprintf("tool call %d: arguments are not a JSON object: %v", i+1, err))
		}
		st, err := faraStep(a, r.Thought)
		if err != nil {
			return r, d.formatError(fmt.Sprintf("tool call %d (%s): %v", i+1, clip(a.Action, 30), err))
		}
		steps = append(steps, st...)
	}
	var err error
	if r.Code, err = compile(steps); err != nil {
		return r, d.formatError(err.Error())
	}
	return r, nil
}

// faraStep maps one action onto steps.
func faraStep(a faraArgs, thought string) ([]step, error) {
	at, err := qwenPoint(a.Coordinate)
	if err != nil {
		return nil, err
	}
	switch a.Action {
	case "left_click", "mouse_move":
		if at == nil {
			return nil, errors.New("needs a coordinate [x, y]")
		}
		return []step{{op: map[string]op{"left_click": opClick, "mouse_move": opMove}[a.Action], at: at}}, nil
	case "key":
		k, err := qwenKeys(a.Keys)
		if err != nil {
			return nil, err
		}
		return []step{{op: opKey, combo: k}}, nil
	case "type":
		if a.Text == nil {
			return nil, errors.New("type needs text")
		}
		var out []step
		if at != nil {
			out = append(out, step{op: opClick, at: at})
		}
		if a.DeleteText != nil && *a.DeleteText {
			out = append(out, step{op: opKey, combo: "ctrl+a"}, step{op: opKey, combo: "backspace"})
		}
		out = append(out, step{op: opType, text: *a.Text})
		if a.PressEnter == nil || *a.PressEnter {
			out = append(out, step{op: opKey, combo: "enter"})
		}
		return out, nil
	case "scroll":
		return qwenScroll(qwenArgs{Action: "scroll", Pixels: a.Pixels}, at)
	case "visit_url":
		if strings.TrimSpace(a.URL) == "" {
			return nil, errors.New("visit_url needs a url")
		}
		return []step{{op: opVisit, text: a.URL}}, nil
	case "web_search":
		if strings.TrimSpace(a.Query) == "" {
			return nil, errors.New("web_search needs a query")
		}
		return []step{{op: opSearch, text: a.Query}}, nil
	case "history_back":
		return []step{{op: opKey, combo: "alt+left"}}, nil
	case "refresh":
		return []step{{op: opKey, combo: "f5"}}, nil
	case "pause_and_memorize_fact":
		return []step{{op: opNote, text: a.Fact}}, nil
	case "wait":
		secs := 3.0
		if a.Time != nil {
			secs = *a.Time
		}
		return []step{{op: opWait, secs: secs}}, nil
	case "terminate":
		switch a.Status {
		case "failure":
			return []step{{op: opFinish, text: strings.TrimSpace("The task could not be done. " + thought)}}, nil
		case "success", "":
			return []step{{op: opFinish, text: firstText(thought)}}, nil
		}
		return nil, fmt.Errorf("terminate status %q: give \"success\" or \"failure\"", clip(a.Status, 40))
	case "":
		return nil, errNoAction
	}
	return nil, fmt.Errorf("unknown action %q; fara actions: %s", clip(a.Action, 40), faraActions)
}

func (d Fara) formatError(reason string) *FormatError {
	help := fmt.Sprintf("Your reply could not be read (%s), so nothing was done. Think, then answer with one tool call, e.g.\n"+
		"<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [x, y]}}\n</tool_call>\n"+
		"Actions: %s.", reason, faraActions)
	return &FormatError{Dialect: d.Name(), Reason: reason, Help: help}
}
