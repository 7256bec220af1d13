package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"
)

// chatTransport speaks Chat Completions (POST /chat/completions) through
// openai-go's ChatCompletionService.
type chatTransport struct{ c *Client }

func (chatTransport) kind() string { return "chat completion" }

func (chatTransport) streamError(err error) ([]byte, bool) {
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		return se.Event.Data, true
	}
	return nil, false
}

func (t chatTransport) send(ctx context.Context, r Request, onDelta func(string), ex *exchange, sent *sentFeatures) (Response, error) {
	if r.Computer != nil {
		return Response{}, &requestError{errors.New("the chat transport has no computer tool: use provider responses, anthropic or gemini")}
	}
	c := t.c
	params := c.params(r, sent)
	mw := option.WithMiddleware(ex.middleware)
	if c.cfg.NoStream {
		res, err := c.single(ctx, params, mw)
		if err == nil && res.Text != "" {
			onDelta(res.Text)
		}
		return res, err
	}
	return c.stream(ctx, params, onDelta, sent, ex, mw)
}

// params translates r into openai-go's request parameters.
func (c *Client) params(r Request, sent *sentFeatures) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: c.cfg.Model, Messages: messages(r.Messages)}
	if r.Temperature != nil {
		p.Temperature = openai.Float(*r.Temperature)
	}
	if r.MaxTokens > 0 {
		if c.completionLimit.Load() {
			p.MaxCompletionTokens = openai.Int(int64(r.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(r.MaxTokens))
			sent.maxTokens = true
		}
	}
	if len(r.Stop) > 0 {
		p.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: r.Stop}
	}
	if !c.cfg.NoStream && !c.noStreamOptions.Load() {
		p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
		sent.streamOptions = true
	}
	if s := r.Schema; s != nil && !c.noSchema.Load() {
		var schema map[string]any
		_ = json.Unmarshal(s.Schema, &schema)
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: s.Name, Schema: schema, Strict: param.NewOpt(s.Strict)},
		}}
		sent.schema = true
	}
	return p
}

// messages converts validated messages. Text-only messages go out with a plain
// string as content, which every server accepts; user messages with images (or
// several parts) go out as an array of parts. An assistant message's tool calls
// go out as its tool_calls, and the results answering them as tool messages
// (their images follow in a user message: tool messages hold text only).
func messages(ms []Message) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(ms))
	for _, m := range ms {
		switch {
		case m.Role == "assistant" && hasCalls(m.Parts):
			out = append(out, assistantCalls(m.Parts))
			continue
		case m.Role == "user" && hasResults(m.Parts):
			out = append(out, toolMessages(m.Parts)...)
			continue
		}
		if m.Role != "user" || onlyText(m.Parts) && len(m.Parts) == 1 {
			text := joinText(m.Parts)
			switch m.Role {
			case "system":
				out = append(out, openai.SystemMessage(text))
			case "assistant":
				out = append(out, openai.AssistantMessage(text))
			default:
				out = append(out, openai.UserMessage(text))
			}
			continue
		}
		out = append(out, openai.UserMessage(contentParts(m.Parts)))
	}
	return out
}

func contentParts(ps []Part) []openai.ChatCompletionContentPartUnionParam {
	parts := make([]openai.ChatCompletionContentPartUnionParam, 0, len(ps))
	for _, p := range ps {
		if p.IsImage() {
			parts = append(parts, openai.ImageContentPart(
				openai.ChatCompletionContentPartImageImageURLParam{URL: partURL(p), Detail: "auto"}))
		} else {
			parts = append(parts, openai.TextContentPart(p.Text))
		}
	}
	return parts
}

func hasCalls(ps []Part) bool {
	for _, p := range ps {
		if p.Call != nil {
			return true
		}
	}
	return false
}

func hasResults(ps []Part) bool {
	for _, p := range ps {
		if p.Result != nil {
			return true
		}
	}
	return false
}

// assistantCalls is an assistant message with its text and tool_calls.
func assistantCalls(ps []Part) openai.ChatCompletionMessageParamUnion {
	text, cs := calls(ps)
	var a openai.ChatCompletionAssistantMessageParam
	if len(text) > 0 {
		a.Content.OfString = param.NewOpt(strings.Join(text, "\n"))
	}
	for _, tc := range cs {
		args := string(tc.Input)
		if args == "" {
			args = "{}"
		}
		a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID: tc.ID, Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: args},
			}})
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}
}

// toolMessages are the tool messages answering calls, then a user message
// with the plain parts and every image of the results.
func toolMessages(ps []Part) []openai.ChatCompletionMessageParamUnion {
	plain, groups := splitResults(ps)
	var out []openai.ChatCompletionMessageParamUnion
	var rest []Part
	for _, g := range groups {
		var text []string
		for _, p := range g.parts {
			if p.IsImage() {
				rest = append(rest, p)
			} else if p.Text != "" {
				text = append(text, p.Text)
			}
		}
		t := strings.Join(text, "\n")
		if t == "" {
			t = "done"
		}
		out = append(out, openai.ToolMessage(t, g.result.CallID))
	}
	rest = append(plain, rest...)
	if len(rest) > 0 {
		out = append(out, openai.UserMessage(contentParts(rest)))
	}
	return out
}

func onlyText(ps []Part) bool {
	for _, p := range ps {
		if p.IsImage() {
			return false
		}
	}
	return true
}

// joinText joins the text parts of a system or assistant message with newlines.
func joinText(ps []Part) string {
	texts := make([]string, 0, len(ps))
	for _, p := range ps {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n")
}

// single makes a non-streaming request.
func (c *Client) single(ctx context.Context, p openai.ChatCompletionNewParams, mw option.RequestOption) (Response, error) {
	cc, err := c.chat.New(ctx, p, mw)
	if err != nil {
		return Response{}, err
	}
	res, err := fromCompletion(cc)
	c.capText(&res)
	return res, err
}

// capText cuts a whole reply's text at MaxReplyBytes.
func (c *Client) capText(res *Response) {
	if len(res.Text) > c.cfg.MaxReplyBytes {
		res.Text = cutUTF8(res.Text, c.cfg.MaxReplyBytes)
		res.Cut, res.Finish = fmt.Sprintf("the reply was longer than %d bytes", c.cfg.MaxReplyBytes), "length"
	}
}

// fromCompletion reads a whole (non-streamed) completion.
func fromCompletion(cc *openai.ChatCompletion) (Response, error) {
	res := Response{Usage: Usage{Input: int(cc.Usage.PromptTokens), Output: int(cc.Usage.CompletionTokens)}}
	for _, ch := range cc.Choices {
		if ch.Index != 0 {
			continue
		}
		res.Text = ch.Message.Content
		res.Finish = ch.FinishReason
		res.Reasoning = extraString(ch.Message.JSON.ExtraFields, "reasoning_content")
		for _, tc := range ch.Message.ToolCalls {
			res.Calls = append(res.Calls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Input: rawArgs(tc.Function.Arguments)})
		}
		return res, nil
	}
	return res, &ProtocolError{Msg: "reply has no choices"}
}

// rawArgs is a function call's arguments as a JSON value: the object the
// model wrote, or its text as a JSON string when it is not JSON (the dialect
// then says so to the model).
func rawArgs(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// extraString reads a string field openai-go does not model (reasoning_content).
func extraString[F interface{ Raw() string }](fields map[string]F, key string) string {
	f, ok := fields[key]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal([]byte(f.Raw()), &s) != nil {
		return ""
	}
	return s
}

// toolDeltas gathers streamed tool_calls by their index.
type toolDeltas struct {
	order []int64
	calls map[int64]*struct{ id, name, args strings.Builder }
}

func (d *toolDeltas) add(tc openai.ChatCompletionChunkChoiceDeltaToolCall) {
	if d.calls == nil {
		d.calls = map[int64]*struct{ id, name, args strings.Builder }{}
	}
	c, ok := d.calls[tc.Index]
	if !ok {
		c = &struct{ id, name, args strings.Builder }{}
		d.calls[tc.Index] = c
		d.order = append(d.order, tc.Index)
	}
	c.id.WriteString(tc.ID)
	c.name.WriteString(tc.Function.Name)
	c.args.WriteString(tc.Function.Arguments)
}

func (d *toolDeltas) list() []ToolCall {
	var out []ToolCall
	for _, i := range d.order {
		c := d.calls[i]
		out = append(out, ToolCall{ID: c.id.String(), Name: c.name.String(), Input: rawArgs(c.args.String())})
	}
	return out
}

// stream makes a streaming request, forwarding each content delta of choice 0. The
// text is accumulated here rather than with openai.ChatCompletionAccumulator, which
// rejects chunks whose id changes mid-stream, as some local servers' ids do.
func (c *Client) stream(ctx context.Context, p openai.ChatCompletionNewParams, onDelta func(string),
	sent *sentFeatures, ex *exchange, mw option.RequestOption) (Response, error) {
	s := c.chat.NewStreaming(ctx, p, mw)
	defer s.Close()
	var res Response
	var text, reasoning strings.Builder
	var tools toolDeltas
	chunks := 0
	limit := c.cfg.MaxReplyBytes
	for res.Cut == "" && s.Next() {
		ch := s.Current()
		chunks++
		if ch.JSON.Usage.Valid() {
			res.Usage = Usage{Input: int(ch.Usage.PromptTokens), Output: int(ch.Usage.CompletionTokens)}
		}
		for _, choice := range ch.Choices {
			if choice.Index != 0 {
				continue
			}
			if d := choice.Delta.Content; d != "" {
				if text.Len()+len(d) > limit {
					d = cutUTF8(d, limit-text.Len())
					res.Cut = fmt.Sprintf("the reply was longer than %d bytes", limit)
				}
				text.WriteString(d)
				sent.delivered = true
				onDelta(d)
			}
			if r := extraString(choice.Delta.JSON.ExtraFields, "reasoning_content"); r != "" && reasoning.Len() < limit {
				reasoning.WriteString(r)
			}
			for _, tc := range choice.Delta.ToolCalls {
				tools.add(tc)
			}
			if choice.FinishReason != "" {
				res.Finish = choice.FinishReason
			}
		}
	}
	res.Text, res.Reasoning, res.Calls = text.String(), reasoning.String(), tools.list()
	if res.Cut != "" {
		res.Finish = "length"
		return res, nil
	}
	if err := s.Err(); err != nil {
		return res, err
	}
	if chunks == 0 && ex.json != nil {
		// The server ignored stream:true and sent one JSON completion.
		var cc openai.ChatCompletion
		if err := json.Unmarshal(ex.json.Bytes(), &cc); err != nil {
			return res, &ProtocolError{Msg: "reply is not valid JSON", Err: err}
		}
		res, err := fromCompletion(&cc)
		c.capText(&res)
		if err == nil && res.Text != "" {
			onDelta(res.Text)
		}
		return res, err
	}
	if res.Finish == "" {
		return res, &cutError{delivered: text.Len()}
	}
	return res, nil
}
