package dialect

import (
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"regexp"
	"strings"

	"deskpilot/agent/convo"
	"deskpilot/vision"
)

// Holo3 is H Company's Holo3 and Holo3.1 agent format ("holo3") over chat
// completions. Each step the model writes one JSON object
//
//	{"note": "...", "thought": "...", "tool_call": {"tool_name": "click", "element": "...", "x": 932, "y": 880}}
//
// with the tool's arguments flat beside tool_name; the request constrains
// it with response_format json_schema (the union of the tools), and the
// system prompt shows the same schema under <output_format>, as Holo3 was
// trained; a server without structured output gets the request again
// without the schema. Holo3.1 may answer in native tool_calls instead
// (function name = tool_name): those are read too, and answered with tool
// messages. Points are integers 0..1000 of the screenshot, mapped with
// int(x/1000·W) (vision.CoordNorm1000). Observations are user turns
// wrapped in <observation>…</observation>; the last three screenshots are
// kept and older ones become a short placeholder inside their wrapper. The
// reasoning the server returns apart (reasoning_content) is shown, never
// sent back: the history keeps only the JSON. Tools: click, double_click,
// right_click, move, drag, scroll, write, press_key, wait, answer.
type Holo3 struct{}

// Name implements Dialect.
func (Holo3) Name() string { return "holo3" }

// Provider implements ToolDialect: chat completions (vLLM, llama.cpp, H's API).
func (Holo3) Provider() string { return convo.ProviderChat }

// Space implements Dialect: the screenshot at its smart_resize size for
// Holo3's Qwen3.5 vision tower (factor 32), so no server resizes it.
func (Holo3) Space(display image.Point, _ int) Space {
	return Space{Image: smartSize(display, qwen3Factor, qwen3Min, qwen3Max), Mode: vision.CoordNorm1000}
}

// Stop implements Dialect: none.
func (Holo3) Stop() []string { return nil }

// holoTools is each tool's arguments as a JSON Schema fragment.
func holoTools() []struct{ name, doc, args string } {
	pt := `"element": {"type": "string", "description": "what is clicked, in a few words"}, "x": {"type": "integer", "minimum": 0, "maximum": 1000}, "y": {"type": "integer", "minimum": 0, "maximum": 1000}`
	return []struct{ name, doc, args string }{
		{"click", "Left click at (x, y).", pt},
		{"double_click", "Double click at (x, y).", pt},
		{"right_click", "Right click at (x, y).", pt},
		{"move", "Move the mouse to (x, y) without clicking.", pt},
		{"drag", "Drag from (x, y) to (to_x, to_y).", pt + `, "to_x": {"type": "integer", "minimum": 0, "maximum": 1000}, "to_y": {"type": "integer", "minimum": 0, "maximum": 1000}`},
		{"scroll", "Scroll at (x, y).", pt + `, "direction": {"type": "string", "enum": ["up", "down", "left", "right"]}, "amount": {"type": "integer", "minimum": 1, "maximum": 20}`},
		{"write", "Type text where the keyboard focus is.", `"text": {"type": "string"}`},
		{"press_key", "Press keys together, e.g. [\"ctrl\", \"s\"].", `"keys": {"type": "array", "items": {"type": "string"}}`},
		{"wait", "Wait for the screen to change.", `"seconds": {"type": "number", "minimum": 0, "maximum": 30}`},
		{"answer", "End the task with the answer for the person.", `"text": {"type": "string"}`},
	}
}

// holoSchemaJSON is the output schema: note, thought and one tool call.
func holoSchemaJSON() string {
	var variants []string
	for _, t := range holoTools() {
		var req []string
		for _, f := range regexp.MustCompile(`"(\w+)": \{`).FindAllStringSubmatch(t.args, -1) {
			if f[1] != "element" && f[1] != "amount" && f[1] != "seconds" {
				req = append(req, `"`+f[1]+`"`)
			}
		}
		variants = append(variants, fmt.Sprintf(`{"type": "object", "description": %q, "properties": {"tool_name": {"const": %q}, %s}, "required": ["tool_name"%s], "additionalProperties": false}`,
			t.doc, t.name, t.args, prefixAll(req)))
	}
	return `{"type": "object", "properties": {"note": {"type": ["string", "null"]}, "thought": {"type": "string"}, "tool_call": {"anyOf": [` +
		strings.Join(variants, ", ") + `]}}, "required": ["note", "thought", "tool_call"], "additionalProperties": false}`
}

func prefixAll(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return ", " + strings.Join(s, ", ")
}

// SystemPrompt implements Dialect.
func (Holo3) SystemPrompt(p Prompt) (string, error) {
	data := struct {
		Prompt
		Schema string
	}{p, holoSchemaJSON()}
	return render("holo3.tmpl", data)
}

// History implements Historian: three screenshots, older ones a placeholder.
func (Holo3) History() History { return History{KeepImages: 3} }

// FirstTurn implements Historian.
func (Holo3) FirstTurn(task string) string {
	return "Task: " + task
}

// Observation implements Historian (the loop's text-only fallback).
func (Holo3) Observation(o Outcome) string { return "<observation>\n" + terseObservation(o) }

// Prepare implements ToolDialect: the schema on step calls.
func (Holo3) Prepare(r *convo.Request, _ Space, step bool) {
	if step {
		r.Schema = &convo.JSONSchema{Name: "holo3_step", Schema: json.RawMessage(holoSchemaJSON())}
	}
}

// holoStep is one step object.
type holoStep struct {
	Note     *string         `json:"note"`
	Thought  string          `json:"thought"`
	ToolCall json.RawMessage `json:"tool_call"`
}

// holoCall is a tool call's flat arguments.
type holoCall struct {
	ToolName  string   `json:"tool_name"`
	Element   string   `json:"element"`
	X         *float64 `json:"x"`
	Y         *float64 `json:"y"`
	ToX       *float64 `json:"to_x"`
	ToY       *float64 `json:"to_y"`
	Direction string   `json:"direction"`
	Amount    *float64 `json:"amount"`
	Text      *string  `json:"text"`
	Keys      []string `json:"keys"`
	Seconds   *float64 `json:"seconds"`
}

const holoActions = "click, double_click, right_click, move, drag, scroll, write, press_key, wait, answer"

var jsonFenceRe = regexp.MustCompile("(?s)^\\s*```(?:json)?\\s*(.*?)\\s*```\\s*$")

// Parse implements Dialect: the JSON step in the reply's text.
func (d Holo3) Parse(reply string) (Reply, error) {
	return d.ParseResponse(convo.Response{Text: reply})
}

// ParseResponse implements ToolDialect.
func (d Holo3) ParseResponse(res convo.Response) (Reply, error) {
	if len(res.Calls) > 0 {
		return d.nativeCalls(res)
	}
	text := strings.TrimSpace(res.Text)
	if m := jsonFenceRe.FindStringSubmatch(text); m != nil {
		text = m[1]
	}
	r := Reply{Turn: text}
	var s holoStep
	if err := strictJSON(text, &s); err != nil {
		return r, d.formatError(fmt.Sprintf("the reply is not one JSON object: %v", err))
	}
	r.Thought = strings.TrimSpace(s.Thought)
	if s.Note != nil && strings.TrimSpace(*s.Note) != "" {
		r.Thought = strings.TrimSpace("Note: " + *s.Note + "\n" + r.Thought)
	}
	if len(s.ToolCall) == 0 || string(s.ToolCall) == "null" {
		return r, d.formatError("the step has no tool_call")
	}
	var c holoCall
	if err := strictJSON(string(s.ToolCall), &c); err != nil {
		return r, d.formatError("tool_call is not an object: " + err.Error())
	}
	code, err := d.compileCall(c, r.Thought)
	if err != nil {
		return r, d.formatError(err.Error())
	}
	r.Code = code
	return r, nil
}

// nativeCalls reads Holo3.1's tool_calls form.
func (d Holo3) nativeCalls(res convo.Response) (Reply, error) {
	r := Reply{Thought: strings.TrimSpace(res.Text), Calls: res.Calls}
	var steps []step
	for i, tc := range res.Calls {
		var c holoCall
		if err := strictJSON(string(tc.Input), &c); err != nil {
			return r, d.formatError(fmt.Sprintf("tool call %d: arguments are not an object: %v", i+1, err))
		}
		c.ToolName = tc.Name
		s, err := holoSteps(c, r.Thought)
		if err != nil {
			return r, d.formatError(fmt.Sprintf("tool call %d (%s): %v", i+1, clip(tc.Name, 30), err))
		}
		steps = append(steps, s...)
	}
	code, err := compile(steps)
	if err != nil {
		return r, d.formatError(err.Error())
	}
	r.Code = code
	return r, nil
}

func (d Holo3) compileCall(c holoCall, thought string) (string, error) {
	s, err := holoSteps(c, thought)
	if err != nil {
		return "", err
	}
	return compile(s)
}

// holoSteps maps one tool call onto steps.
func holoSteps(c holoCall, thought string) ([]step, error) {
	pt := func(x, y *float64) (*vision.ModelPoint, error) {
		if x == nil || y == nil {
			return nil, errors.New("needs x and y")
		}
		return finitePoint(*x, *y)
	}
	switch c.ToolName {
	case "click", "double_click", "right_click", "move":
		p, err := pt(c.X, c.Y)
		if err != nil {
			return nil, err
		}
		o := map[string]op{"click": opClick, "double_click": opDoubleClick, "right_click": opRightClick, "move": opMove}[c.ToolName]
		return []step{{op: o, at: p}}, nil
	case "drag":
		from, err := pt(c.X, c.Y)
		if err != nil {
			return nil, err
		}
		to, err := pt(c.ToX, c.ToY)
		if err != nil {
			return nil, err
		}
		return []step{{op: opDrag, at: from, to: to}}, nil
	case "scroll":
		p, err := pt(c.X, c.Y)
		if err != nil {
			return nil, err
		}
		switch c.Direction {
		case "up", "down", "left", "right":
		default:
			return nil, fmt.Errorf("direction %q: want up, down, left or right", clip(c.Direction, 20))
		}
		n := 3
		if c.Amount != nil {
			if *c.Amount < 1 || *c.Amount > maxScroll {
				return nil, fmt.Errorf("amount %g: want 1 to %d", *c.Amount, maxScroll)
			}
			n = int(*c.Amount)
		}
		return []step{{op: opScroll, at: p, dir: c.Direction, amount: n}}, nil
	case "write":
		if c.Text == nil {
			return nil, errors.New("write needs text")
		}
		return []step{{op: opType, text: *c.Text}}, nil
	case "press_key":
		k, err := combo(c.Keys)
		if err != nil {
			return nil, err
		}
		return []step{{op: opKey, combo: k}}, nil
	case "wait":
		secs := 2.0
		if c.Seconds != nil {
			secs = *c.Seconds
		}
		if secs < 0 || secs > 30 || secs != secs {
			return nil, fmt.Errorf("seconds %g: want 0 to 30", secs)
		}
		return []step{{op: opWait, secs: secs}}, nil
	case "answer":
		return []step{{op: opFinish, text: firstText(derefText(c.Text), thought)}}, nil
	case "":
		return nil, errNoAction
	}
	return nil, fmt.Errorf("unknown tool %q", clip(c.ToolName, 30))
}

func derefText(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

func (d Holo3) formatError(reason string) *FormatError {
	return &FormatError{Dialect: d.Name(), Reason: reason,
		Help: fmt.Sprintf("Your reply could not be read (%s), so nothing was done. Answer with one JSON object: "+
			`{"note": null, "thought": "...", "tool_call": {"tool_name": "click", "element": "the OK button", "x": 500, "y": 500}}`+
			"; x and y from 0 to 1000. Tools: %s.", reason, holoActions)}
}

// Results implements ToolDialect: an <observation> user turn, then, for
// tool_calls, a tool result for each (the chat transport sends those as
// tool messages first).
func (d Holo3) Results(reply Reply, o Outcome, _ []convo.SafetyCheck, images []convo.Part) []convo.Part {
	text := "<observation>"
	if t := terseObservation(o); t != "" {
		text += "\n" + t
	}
	out := []convo.Part{{Text: text}}
	out = append(out, images...)
	out = append(out, convo.Part{Text: "</observation>"})
	for _, c := range reply.Calls {
		out = append(out, convo.Part{Result: &convo.ToolResult{CallID: c.ID, Name: c.Name, Error: len(o.Problems) > 0}}, convo.Part{Text: "done"})
	}
	return out
}
