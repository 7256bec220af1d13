package calibrate

import (
	"context"
	"errors"
	"fmt"
	"image"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"deskpilot/agent/dialect"
	"deskpilot/agent/llm"
	"deskpilot/vision"
)

// Model is the model client (agent/llm.Client).
type Model interface {
	Complete(ctx context.Context, r llm.Request, onDelta func(string)) (llm.Response, error)
}

// codeTools are the builtins the code dialect's prompt offers here.
const codeTools = `def click(x: float, y: float, button: str = "left") -> None:
    """Move the mouse to (x, y) and click there."""

def final_answer(answer: str) -> None:
    """End the task with the answer."""`

// Task is what the model is asked for one target.
func Task(label string) string {
	return fmt.Sprintf("This is a calibration screen. Click the centre of the round target labelled %q: the red dot in the middle of the ring next to the letter %s. Click it once and do nothing else.", label, label)
}

// Asker asks a model, in its dialect, to click targets on screenshots.
type Asker struct {
	Model     Model
	Dialect   dialect.Dialect
	Space     dialect.Space
	Monitor   image.Rectangle // the monitor the screenshot shows
	MaxTokens int             // reply limit; 0 = 1024
	Now       func() time.Time
}

// Ask sends the screenshot (encoded, of type mime, at Space's size) with
// the task for label, as the dialect's first turn, and returns the first
// point the reply clicks, in the dialect's own space, and the reply.
func (a Asker) Ask(ctx context.Context, label string, shot []byte, mime string) (*vision.ModelPoint, string, error) {
	mapper := vision.Mapper{Display: a.Monitor, Image: a.Space.Image, Mode: a.Space.Mode}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	sys, err := a.Dialect.SystemPrompt(dialect.Prompt{Task: Task(label), Tools: codeTools, Coordinates: mapper.Contract(),
		Screen: a.Monitor.Size(), Image: a.Space.Image, Date: now().Format("Monday, 2 January 2006")})
	if err != nil {
		return nil, "", fmt.Errorf("system prompt: %w", err)
	}
	req := llm.Request{Messages: firstTurn(a.Dialect, sys, Task(label), llm.Part{Image: shot, ImageMIME: mime}),
		MaxTokens: a.MaxTokens, Stop: a.Dialect.Stop()}
	if req.MaxTokens <= 0 {
		req.MaxTokens = 1024
	}
	td, tool := a.Dialect.(dialect.ToolDialect)
	if tool {
		td.Prepare(&req, a.Space, true)
	}
	resp, err := a.Model.Complete(ctx, req, nil)
	if err != nil {
		return nil, "", err
	}
	text := resp.Text
	var reply dialect.Reply
	var perr error
	if tool {
		reply, perr = td.ParseResponse(resp)
		for _, c := range resp.Calls {
			text += "\n" + string(c.Input)
		}
	} else {
		reply, perr = a.Dialect.Parse(resp.Text)
	}
	if perr != nil && reply.Code == "" {
		return nil, text, perr
	}
	p, err := firstPoint(a.Dialect, reply.Code)
	return p, text, err
}

// firstTurn lays the system prompt, the task and the screenshot out as the
// dialect's conversation starts.
func firstTurn(d dialect.Dialect, sys, task string, shot llm.Part) []llm.Message {
	hist := dialect.HistorianOf(d)
	h := hist.History()
	first := hist.FirstTurn(task)
	var msgs []llm.Message
	if h.PromptInUser {
		if h.System != "" {
			msgs = append(msgs, llm.Message{Role: "system", Parts: []llm.Part{{Text: h.System}}})
		}
		msgs = append(msgs, llm.Message{Role: "user", Parts: []llm.Part{{Text: sys}}})
	} else {
		msgs = append(msgs, llm.Message{Role: "system", Parts: []llm.Part{{Text: sys}}})
	}
	text := []llm.Part{}
	if first != "" {
		text = append(text, llm.Part{Text: first})
	}
	switch {
	case h.SeparateImage:
		if len(text) > 0 {
			msgs = append(msgs, llm.Message{Role: "user", Parts: text})
		}
		msgs = append(msgs, llm.Message{Role: "user", Parts: []llm.Part{shot}})
	case h.ImageFirst:
		msgs = append(msgs, llm.Message{Role: "user", Parts: append([]llm.Part{shot}, text...)})
	default:
		msgs = append(msgs, llm.Message{Role: "user", Parts: append(text, shot)})
	}
	return msgs
}

// errFound stops the program at its first point.
var errFound = errors.New("found")

// pointers are the builtins that act at a point, and where its x, y are.
func pointers() map[string]bool {
	return map[string]bool{"click": true, "double_click": true, "right_click": true, "move": true, "drag": true, "scroll": true}
}

// firstPoint runs a compiled program with builtins that only record, and
// returns the point of its first pointer action.
func firstPoint(d dialect.Dialect, code string) (*vision.ModelPoint, error) {
	if code == "" {
		return nil, errors.New("the reply has no action")
	}
	var found *vision.ModelPoint
	record := func(name string, args starlark.Tuple) (starlark.Value, error) {
		if !pointers()[name] || len(args) < 2 {
			return starlark.None, nil
		}
		x, okx := starlark.AsFloat(args[0])
		y, oky := starlark.AsFloat(args[1])
		if !okx || !oky {
			return nil, fmt.Errorf("%s(%v, %v): not numbers", name, args[0], args[1])
		}
		found = &vision.ModelPoint{X: x, Y: y}
		return nil, errFound
	}
	call := func(_ *starlark.Thread, name string, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		if name == "cursor_position" {
			return starlark.None, nil
		}
		return record(name, args)
	}
	env := starlark.StringDict{}
	for _, name := range []string{"click", "double_click", "right_click", "move", "drag", "scroll", "type_text", "press",
		"hold", "wait", "final_answer", "ask_user", "cursor_position", "zoom", "visit_page", "web_search", "type_secret", "locate"} {
		env[name] = starlark.NewBuiltin(name, func(th *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			return call(th, b.Name(), args, kw)
		})
	}
	if m, ok := d.(dialect.Moduler); ok {
		for k, v := range m.Modules(call) {
			env[k] = v
		}
	}
	th := &starlark.Thread{Name: "calibrate", Print: func(*starlark.Thread, string) {}}
	th.SetMaxExecutionSteps(1 << 20)
	opts := &syntax.FileOptions{While: true, Recursion: true, Set: true, GlobalReassign: true, TopLevelControl: true}
	_, err := starlark.ExecFileOptions(opts, th, "reply.star", code, env)
	if found != nil {
		return found, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the reply's actions: %w", err)
	}
	return nil, errors.New("the reply clicks nowhere")
}
