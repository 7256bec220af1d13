package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
)

// anthropicTransport speaks Anthropic's Messages API (POST /v1/messages)
// through anthropic-sdk-go's beta message service (the computer tool is a
// beta: its version's anthropic-beta header goes with it). The API keeps no
// state, so every request carries the whole conversation, tool_use blocks in
// assistant turns and tool_result blocks (first) in user turns. Two prompt
// caching breakpoints mark the stable prefix: the system prompt (which
// follows the tools) and the last block of the newest user turn, so the next
// request, which repeats all of it, reads it from the cache.
type anthropicTransport struct {
	c   *Client
	svc anthropic.BetaMessageService
}

func newAnthropic(c *Client) *anthropicTransport {
	// The SDK appends v1/messages to its base URL; the preset's base URL
	// (OpenAI-compatible) ends in /v1.
	base := trimSuffixes(c.cfg.BaseURL, "/v1") + "/"
	return &anthropicTransport{c: c, svc: anthropic.NewBetaMessageService(
		aoption.WithBaseURL(base),
		aoption.WithAPIKey(c.cfg.APIKey),
		aoption.WithHTTPClient(c.cfg.HTTPClient),
		aoption.WithMaxRetries(0),
	)}
}

func (*anthropicTransport) kind() string { return "Messages API message" }

// streamError reads an error event of the stream: the SDK returns it as an
// *anthropic.Error whose status is the stream's own 200.
func (*anthropicTransport) streamError(err error) ([]byte, bool) {
	var ae *anthropic.Error
	if errors.As(err, &ae) && ae.StatusCode < 400 {
		return []byte(ae.RawJSON()), true
	}
	var fe *failedError
	if errors.As(err, &fe) {
		return fe.body, true
	}
	return nil, false
}

// Wire shapes of the Messages API request.
type (
	aBlock struct {
		Type      string          `json:"type"`
		Text      string          `json:"text,omitempty"`
		Source    *aSource        `json:"source,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Input     json.RawMessage `json:"input,omitempty"`
		ToolUseID string          `json:"tool_use_id,omitempty"`
		Content   []aBlock        `json:"content,omitempty"`
		IsError   bool            `json:"is_error,omitempty"`
		Cache     *aCache         `json:"cache_control,omitempty"`
	}
	aSource struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type,omitempty"`
		Data      string `json:"data,omitempty"`
		URL       string `json:"url,omitempty"`
	}
	aCache struct {
		Type string `json:"type"`
	}
	aMessage struct {
		Role    string   `json:"role"`
		Content []aBlock `json:"content"`
	}
	aTool struct {
		Type       string `json:"type"`
		Name       string `json:"name"`
		Width      int    `json:"display_width_px"`
		Height     int    `json:"display_height_px"`
		EnableZoom bool   `json:"enable_zoom,omitempty"`
	}
)

// betas are the anthropic-beta headers of the computer tool versions.
func betas() map[string]string {
	return map[string]string{
		"computer_20251124": "computer-use-2025-11-24",
		"computer_20250124": "computer-use-2025-01-24",
	}
}

// body translates r into the request's parameters and raw fields.
func (t *anthropicTransport) body(r Request) (anthropic.BetaMessageNewParams, []aoption.RequestOption, error) {
	maxTokens := int64(r.MaxTokens)
	if maxTokens <= 0 {
		maxTokens = 4096 // the API requires a limit
	}
	p := anthropic.BetaMessageNewParams{Model: anthropic.Model(t.c.cfg.Model), MaxTokens: maxTokens}
	if r.Temperature != nil {
		p.Temperature = anthropic.Float(*r.Temperature)
	}
	if len(r.Stop) > 0 {
		p.StopSequences = r.Stop
	}
	var sys []aBlock
	var msgs []aMessage
	for _, m := range r.Messages {
		switch m.Role {
		case "system":
			sys = append(sys, aBlock{Type: "text", Text: joinText(m.Parts)})
		case "assistant":
			msgs = append(msgs, aMessage{Role: "assistant", Content: assistantBlocks(m.Parts)})
		default:
			blocks, err := userBlocks(m.Parts)
			if err != nil {
				return p, nil, err
			}
			msgs = append(msgs, aMessage{Role: "user", Content: blocks})
		}
	}
	ephemeral := &aCache{Type: "ephemeral"}
	if len(sys) > 0 {
		sys[len(sys)-1].Cache = ephemeral
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" && len(msgs[i].Content) > 0 {
			msgs[i].Content[len(msgs[i].Content)-1].Cache = ephemeral
			break
		}
	}
	opts := []aoption.RequestOption{aoption.WithJSONSet("messages", msgs)}
	if len(sys) > 0 {
		opts = append(opts, aoption.WithJSONSet("system", sys))
	}
	if ct := r.Computer; ct != nil {
		beta, ok := betas()[ct.Type]
		if !ok {
			return p, nil, fmt.Errorf("anthropic computer tool %q: want computer_20251124 or computer_20250124", ct.Type)
		}
		tool := aTool{Type: ct.Type, Name: "computer", Width: ct.Display.X, Height: ct.Display.Y, EnableZoom: ct.EnableZoom}
		opts = append(opts, aoption.WithJSONSet("tools", []aTool{tool}), aoption.WithHeaderAdd("anthropic-beta", beta))
	}
	return p, opts, nil
}

func assistantBlocks(ps []Part) []aBlock {
	var out []aBlock
	for _, p := range ps {
		switch {
		case p.Call != nil:
			in := p.Call.Input
			if len(in) == 0 {
				in = json.RawMessage("{}")
			}
			out = append(out, aBlock{Type: "tool_use", ID: p.Call.ID, Name: p.Call.Name, Input: in})
		case p.Text != "":
			out = append(out, aBlock{Type: "text", Text: p.Text})
		}
	}
	if len(out) == 0 {
		out = append(out, aBlock{Type: "text", Text: "(no text)"})
	}
	return out
}

// userBlocks converts a user turn: its tool results first, as the API
// wants, then its other content.
func userBlocks(ps []Part) ([]aBlock, error) {
	plain, groups := splitResults(ps)
	var out []aBlock
	for _, g := range groups {
		b := aBlock{Type: "tool_result", ToolUseID: g.result.CallID, IsError: g.result.Error}
		for _, p := range g.parts {
			c, err := contentBlock(p)
			if err != nil {
				return nil, err
			}
			b.Content = append(b.Content, c)
		}
		out = append(out, b)
	}
	for _, p := range plain {
		c, err := contentBlock(p)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// contentBlock is a text or image block.
func contentBlock(p Part) (aBlock, error) {
	if !p.IsImage() {
		return aBlock{Type: "text", Text: p.Text}, nil
	}
	if p.Image != nil {
		return aBlock{Type: "image", Source: &aSource{Type: "base64", MediaType: p.ImageMIME,
			Data: base64.StdEncoding.EncodeToString(p.Image)}}, nil
	}
	if strings.HasPrefix(p.ImageURL, "data:") {
		mediaType, data, ok := strings.Cut(strings.TrimPrefix(p.ImageURL, "data:"), ";base64,")
		if !ok {
			return aBlock{}, errors.New("image data URL is not base64")
		}
		return aBlock{Type: "image", Source: &aSource{Type: "base64", MediaType: mediaType, Data: data}}, nil
	}
	return aBlock{Type: "image", Source: &aSource{Type: "url", URL: p.ImageURL}}, nil
}

func (t *anthropicTransport) send(ctx context.Context, r Request, onDelta func(string), ex *exchange, sent *sentFeatures) (Response, error) {
	p, opts, err := t.body(r)
	if err != nil {
		return Response{}, &requestError{err}
	}
	opts = append(opts, aoption.WithMiddleware(ex.middleware))
	if t.c.cfg.NoStream {
		m, err := t.svc.New(ctx, p, opts...)
		if err != nil {
			return Response{}, err
		}
		res, err := t.c.fromMessage([]byte(m.RawJSON()))
		if err == nil && res.Text != "" {
			onDelta(res.Text)
		}
		return res, err
	}
	s := t.svc.NewStreaming(ctx, p, opts...)
	defer s.Close()
	acc := messageAccumulator{limit: t.c.cfg.MaxReplyBytes}
	for s.Next() {
		ev := s.Current()
		d, err := acc.add(ev.Type, []byte(ev.RawJSON()))
		if err != nil {
			return acc.response(), err
		}
		if d != "" {
			sent.delivered = true
			onDelta(d)
		}
		if acc.cut {
			res := acc.response()
			res.Finish, res.Cut = "length", fmt.Sprintf("the reply was longer than %d bytes", acc.limit)
			return res, nil
		}
		if acc.stopped {
			return t.c.finishMessage(acc.response())
		}
	}
	if err := s.Err(); err != nil {
		return acc.response(), err
	}
	return acc.response(), &cutError{delivered: acc.text.Len()}
}

// messageAccumulator folds the events of a streamed message.
type messageAccumulator struct {
	limit   int
	id      string
	usage   Usage
	stop    string
	stopped bool
	cut     bool // the text reached limit
	text    strings.Builder
	think   strings.Builder
	blocks  map[int]*aStreamBlock
	order   []int
}

type aStreamBlock struct {
	typ, id, name string
	input         strings.Builder
}

// add folds one event and returns the text it adds.
func (a *messageAccumulator) add(typ string, data []byte) (string, error) {
	var ev struct {
		Index   int `json:"index"`
		Message struct {
			ID    string `json:"id"`
			Usage struct {
				Input int `json:"input_tokens"`
				Read  int `json:"cache_read_input_tokens"`
				Write int `json:"cache_creation_input_tokens"`
			} `json:"usage"`
		} `json:"message"`
		Block struct {
			Type string `json:"type"`
			ID   string `json:"id"`
			Name string `json:"name"`
			Text string `json:"text"`
		} `json:"content_block"`
		Delta struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			JSON     string `json:"partial_json"`
			Thinking string `json:"thinking"`
			Stop     string `json:"stop_reason"`
		} `json:"delta"`
		Usage struct {
			Output int `json:"output_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return "", &ProtocolError{Msg: "a stream event is not JSON", Err: err}
	}
	if a.blocks == nil {
		a.blocks = map[int]*aStreamBlock{}
	}
	switch typ {
	case "message_start":
		a.id = ev.Message.ID
		u := ev.Message.Usage
		a.usage.Input = u.Input + u.Read + u.Write
	case "content_block_start":
		if len(a.order) >= maxCalls {
			return "", &ProtocolError{Msg: fmt.Sprintf("the message has more than %d content blocks", maxCalls)}
		}
		b := &aStreamBlock{typ: ev.Block.Type, id: ev.Block.ID, name: ev.Block.Name}
		a.blocks[ev.Index] = b
		a.order = append(a.order, ev.Index)
		return a.addText(ev.Block.Text), nil
	case "content_block_delta":
		b, ok := a.blocks[ev.Index]
		if !ok {
			return "", &ProtocolError{Msg: fmt.Sprintf("a delta for content block %d, which never started", ev.Index)}
		}
		switch ev.Delta.Type {
		case "text_delta":
			return a.addText(ev.Delta.Text), nil
		case "input_json_delta":
			if b.input.Len()+len(ev.Delta.JSON) > a.limit {
				return "", &ProtocolError{Msg: fmt.Sprintf("a tool call's input is larger than %d bytes", a.limit)}
			}
			b.input.WriteString(ev.Delta.JSON)
		case "thinking_delta":
			if a.think.Len() < a.limit {
				a.think.WriteString(ev.Delta.Thinking)
			}
		}
	case "message_delta":
		if ev.Delta.Stop != "" {
			a.stop = ev.Delta.Stop
		}
		a.usage.Output = ev.Usage.Output
	case "message_stop":
		a.stopped = true
	}
	return "", nil
}

func (a *messageAccumulator) addText(d string) string {
	if a.text.Len()+len(d) > a.limit {
		d, a.cut = cutUTF8(d, a.limit-a.text.Len()), true
	}
	a.text.WriteString(d)
	return d
}

func (a *messageAccumulator) response() Response {
	res := Response{ID: a.id, Text: a.text.String(), Reasoning: a.think.String(), Usage: a.usage, Finish: a.stop}
	for _, i := range a.order {
		b := a.blocks[i]
		if b.typ != "tool_use" {
			continue
		}
		in := b.input.String()
		if strings.TrimSpace(in) == "" {
			in = "{}"
		}
		res.Calls = append(res.Calls, ToolCall{ID: b.id, Name: b.name, Input: rawArgs(in)})
	}
	return res
}

// finishMessage maps the stop reason and checks the calls.
func (c *Client) finishMessage(res Response) (Response, error) {
	switch res.Finish {
	case "max_tokens":
		res.Finish = "length"
	case "end_turn", "stop_sequence", "":
		res.Finish = "stop"
	case "tool_use":
		res.Finish = "tool_calls"
	}
	c.capText(&res)
	for _, tc := range res.Calls {
		if !json.Valid(tc.Input) {
			return res, &ProtocolError{Msg: fmt.Sprintf("tool call %s: input is not JSON", tc.ID)}
		}
	}
	return res, nil
}

// fromMessage reads a whole (non-streamed) message.
func (c *Client) fromMessage(body []byte) (Response, error) {
	var m struct {
		ID      string `json:"id"`
		Content []struct {
			Type     string          `json:"type"`
			Text     string          `json:"text"`
			Thinking string          `json:"thinking"`
			ID       string          `json:"id"`
			Name     string          `json:"name"`
			Input    json.RawMessage `json:"input"`
		} `json:"content"`
		Stop  string `json:"stop_reason"`
		Usage struct {
			Input  int `json:"input_tokens"`
			Output int `json:"output_tokens"`
			Read   int `json:"cache_read_input_tokens"`
			Write  int `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(body, &m); err != nil || m.ID == "" {
		if err == nil {
			err = errors.New("no message id")
		}
		return Response{}, &ProtocolError{Msg: "not a Messages API message", Err: err}
	}
	res := Response{ID: m.ID, Finish: m.Stop, Usage: Usage{Input: m.Usage.Input + m.Usage.Read + m.Usage.Write, Output: m.Usage.Output}}
	var text, think []string
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "thinking":
			think = append(think, b.Thinking)
		case "tool_use":
			res.Calls = append(res.Calls, ToolCall{ID: b.ID, Name: b.Name, Input: b.Input})
		}
	}
	res.Text, res.Reasoning = strings.Join(text, ""), strings.Join(think, "\n")
	if len(res.Calls) > maxCalls {
		return res, &ProtocolError{Msg: fmt.Sprintf("the message has %d tool calls (at most %d are read)", len(res.Calls), maxCalls)}
	}
	return c.finishMessage(res)
}

// requestError is a request the transport cannot put on the wire (a
// ProtocolError would blame the server).
type requestError struct{ err error }

func (e *requestError) Error() string { return "request: " + e.err.Error() }
func (e *requestError) Unwrap() error { return e.err }

// anthropicStatus is the HTTP status an Anthropic error type stands for,
// for error events inside a stream (which arrive with the stream's 200).
func anthropicStatus(typ string) int {
	return map[string]int{
		"invalid_request_error": http.StatusBadRequest, "authentication_error": http.StatusUnauthorized,
		"permission_error": http.StatusForbidden, "not_found_error": http.StatusNotFound,
		"request_too_large": http.StatusRequestEntityTooLarge, "rate_limit_error": http.StatusTooManyRequests,
		"api_error": http.StatusInternalServerError, "overloaded_error": 529,
	}[typ]
}
