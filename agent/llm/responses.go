package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
)

// responsesTransport speaks OpenAI's Responses API (POST /responses) through
// openai-go's ResponseService. The conversation lives on the server: a
// request continues the newest assistant message that carries a response
// ID (previous_response_id) and sends only the messages after it, with
// truncation "auto" so a long run never overflows the context. System
// messages go out as instructions on every request (the API does not carry
// them over). Screenshots go out at detail "original", which the API never
// rescales (up to 10.24 million pixels).
type responsesTransport struct {
	c   *Client
	svc responses.ResponseService
}

func newResponses(c *Client) *responsesTransport {
	return &responsesTransport{c: c, svc: responses.NewResponseService(
		option.WithBaseURL(c.cfg.BaseURL),
		option.WithAPIKey(c.cfg.APIKey),
		option.WithHTTPClient(c.cfg.HTTPClient),
		option.WithMaxRetries(0),
	)}
}

func (*responsesTransport) kind() string { return "Responses API response" }

func (*responsesTransport) streamError(err error) ([]byte, bool) {
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		return se.Event.Data, true
	}
	var fe *failedError
	if errors.As(err, &fe) {
		return fe.body, true
	}
	return nil, false
}

// failedError is a response.failed or error event: the server gave up.
type failedError struct{ body []byte }

func (e *failedError) Error() string { return "the response failed: " + clip(string(e.body), 300) }

// Wire shapes of the Responses API input (sent as raw JSON, so every field
// is what the API reference names).
type (
	rInput struct {
		Type    string  `json:"type,omitempty"`
		Role    string  `json:"role,omitempty"`
		Content []rPart `json:"content,omitempty"`
		// computer_call_output
		CallID string   `json:"call_id,omitempty"`
		Output *rPart   `json:"output,omitempty"`
		Acks   []rCheck `json:"acknowledged_safety_checks,omitempty"`
	}
	rPart struct {
		Type     string `json:"type"`
		Text     string `json:"text,omitempty"`
		ImageURL string `json:"image_url,omitempty"`
		Detail   string `json:"detail,omitempty"`
	}
	rCheck struct {
		ID      string `json:"id"`
		Code    string `json:"code,omitempty"`
		Message string `json:"message,omitempty"`
	}
	rTool struct {
		Type          string `json:"type"`
		DisplayWidth  int    `json:"display_width,omitempty"`
		DisplayHeight int    `json:"display_height,omitempty"`
		Environment   string `json:"environment,omitempty"`
	}
)

// body translates r into the request's fields.
func (t *responsesTransport) body(r Request) (responses.ResponseNewParams, []option.RequestOption) {
	p := responses.ResponseNewParams{Model: t.c.cfg.Model}
	var sys []string
	start := 0
	for i, m := range r.Messages {
		if m.Role == "assistant" && m.ID != "" {
			start = i + 1
			p.PreviousResponseID = param.NewOpt(m.ID)
		}
	}
	var input []any
	for i, m := range r.Messages {
		if m.Role == "system" {
			sys = append(sys, joinText(m.Parts))
			continue
		}
		if i < start {
			continue
		}
		input = append(input, responseItems(m)...)
	}
	if len(sys) > 0 {
		p.Instructions = param.NewOpt(strings.Join(sys, "\n\n"))
	}
	if r.Temperature != nil {
		p.Temperature = param.NewOpt(*r.Temperature)
	}
	if r.MaxTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(r.MaxTokens))
	}
	p.Truncation = responses.ResponseNewParamsTruncationAuto
	opts := []option.RequestOption{option.WithJSONSet("input", input)}
	if ct := r.Computer; ct != nil {
		tool := rTool{Type: ct.Type}
		if ct.Type == "computer_use_preview" {
			tool.DisplayWidth, tool.DisplayHeight, tool.Environment = ct.Display.X, ct.Display.Y, ct.Environment
		}
		opts = append(opts, option.WithJSONSet("tools", []rTool{tool}))
	}
	return p, opts
}

// responseItems converts one message into input items.
func responseItems(m Message) []any {
	switch m.Role {
	case "assistant":
		text, cs := calls(m.Parts)
		var out []any
		if t := strings.Join(text, "\n"); t != "" {
			out = append(out, rInput{Type: "message", Role: "assistant", Content: []rPart{{Type: "output_text", Text: t}}})
		}
		for _, c := range cs {
			// The whole computer_call item, as the server sent it.
			out = append(out, json.RawMessage(c.Input))
		}
		return out
	}
	plain, groups := splitResults(m.Parts)
	var out []any
	var extra []rPart
	for _, g := range groups {
		o := rInput{Type: "computer_call_output", CallID: g.result.CallID}
		for _, a := range g.result.Acknowledged {
			o.Acks = append(o.Acks, rCheck{ID: a.ID, Code: a.Code, Message: a.Message})
		}
		for _, p := range g.parts {
			switch {
			case p.IsImage() && o.Output == nil:
				o.Output = &rPart{Type: "computer_screenshot", ImageURL: partURL(p), Detail: "original"}
			case p.IsImage():
				extra = append(extra, rPart{Type: "input_image", ImageURL: partURL(p), Detail: "original"})
			case p.Text != "":
				extra = append(extra, rPart{Type: "input_text", Text: p.Text})
			}
		}
		out = append(out, o)
	}
	for _, p := range plain {
		if p.IsImage() {
			extra = append(extra, rPart{Type: "input_image", ImageURL: partURL(p), Detail: "original"})
		} else if p.Text != "" {
			extra = append(extra, rPart{Type: "input_text", Text: p.Text})
		}
	}
	if len(extra) > 0 {
		out = append(out, rInput{Type: "message", Role: "user", Content: extra})
	}
	return out
}

func (t *responsesTransport) send(ctx context.Context, r Request, onDelta func(string), ex *exchange, sent *sentFeatures) (Response, error) {
	p, opts := t.body(r)
	opts = append(opts, option.WithMiddleware(ex.middleware))
	if t.c.cfg.NoStream {
		res, err := t.svc.New(ctx, p, opts...)
		if err != nil {
			return Response{}, err
		}
		out, err := t.c.fromResponse([]byte(res.RawJSON()))
		if err == nil && out.Text != "" {
			onDelta(out.Text)
		}
		return out, err
	}
	s := t.svc.NewStreaming(ctx, p, opts...)
	defer s.Close()
	var text strings.Builder
	limit := t.c.cfg.MaxReplyBytes
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "response.output_text.delta":
			d := ev.Delta
			cut := text.Len()+len(d) > limit
			if cut {
				d = cutUTF8(d, limit-text.Len())
			}
			if d != "" {
				text.WriteString(d)
				sent.delivered = true
				onDelta(d)
			}
			if cut {
				return Response{Text: text.String(), Finish: "length", Cut: fmt.Sprintf("the reply was longer than %d bytes", limit)}, nil
			}
		case "response.completed", "response.incomplete":
			res, err := t.c.fromResponse(responseOf(ev.RawJSON()))
			if err == nil && ev.Type == "response.incomplete" && res.Cut == "" {
				res.Finish = "length"
			}
			return res, err
		case "response.failed":
			var f struct {
				Response struct {
					Error json.RawMessage `json:"error"`
				} `json:"response"`
			}
			_ = json.Unmarshal([]byte(ev.RawJSON()), &f)
			body, _ := json.Marshal(map[string]json.RawMessage{"error": f.Response.Error})
			return Response{Text: text.String()}, &failedError{body: body}
		case "error":
			return Response{Text: text.String()}, &failedError{body: []byte(ev.RawJSON())}
		}
	}
	if err := s.Err(); err != nil {
		return Response{Text: text.String()}, err
	}
	return Response{Text: text.String()}, &cutError{delivered: text.Len()}
}

// responseOf is the "response" object of a streamed event.
func responseOf(event string) []byte {
	var ev struct {
		Response json.RawMessage `json:"response"`
	}
	_ = json.Unmarshal([]byte(event), &ev)
	return ev.Response
}

// wireResponse is what fromResponse reads of a response object.
type wireResponse struct {
	ID     string            `json:"id"`
	Status string            `json:"status"`
	Output []json.RawMessage `json:"output"`
	Usage  struct {
		Input  int `json:"input_tokens"`
		Output int `json:"output_tokens"`
	} `json:"usage"`
	Incomplete *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

// outputItem is one item of a response's output.
type outputItem struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	CallID  string `json:"call_id"`
	Content []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Pending []rCheck `json:"pending_safety_checks"`
}

// fromResponse reads a whole response object: its text, its computer calls
// (each kept whole as the call's Input), its id and usage.
func (c *Client) fromResponse(body []byte) (Response, error) {
	var w wireResponse
	if err := json.Unmarshal(body, &w); err != nil || w.ID == "" {
		if err == nil {
			err = errors.New("no response id")
		}
		return Response{}, &ProtocolError{Msg: "not a Responses API response", Err: err}
	}
	res := Response{ID: w.ID, Usage: Usage{Input: w.Usage.Input, Output: w.Usage.Output}, Finish: "stop"}
	var text, reasoning []string
	for _, raw := range w.Output {
		var it outputItem
		if err := json.Unmarshal(raw, &it); err != nil {
			return res, &ProtocolError{Msg: "an output item is not an object", Err: err}
		}
		switch it.Type {
		case "message":
			for _, ct := range it.Content {
				text = append(text, ct.Text+ct.Refusal)
			}
		case "reasoning":
			for _, s := range it.Summary {
				reasoning = append(reasoning, s.Text)
			}
		case "computer_call":
			call := ToolCall{ID: it.CallID, Name: "computer", Input: append(json.RawMessage(nil), raw...)}
			for _, p := range it.Pending {
				call.Checks = append(call.Checks, SafetyCheck{ID: p.ID, Code: p.Code, Message: p.Message})
			}
			res.Calls = append(res.Calls, call)
			res.Finish = "tool_calls"
		}
	}
	res.Text, res.Reasoning = strings.Join(text, ""), strings.Join(reasoning, "\n")
	if w.Status == "incomplete" {
		res.Finish = "length"
	}
	c.capText(&res)
	if len(res.Calls) > maxCalls {
		return res, &ProtocolError{Msg: fmt.Sprintf("the response has %d computer calls (at most %d are read)", len(res.Calls), maxCalls)}
	}
	return res, nil
}

// maxCalls bounds the tool calls one reply may make.
const maxCalls = 64
