package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"
)

// geminiTransport speaks Gemini's generateContent (streamGenerateContent
// with SSE when streaming) through google.golang.org/genai. The API keeps no
// state: every request carries the whole conversation, function calls in
// model turns (with their thought signatures) and function responses in
// user turns, each with its screenshot as an inline part. The client is made
// per attempt around the attempt's HTTP client (genai takes no middleware)
// with the key and base URL given here, so genai reads no environment.
type geminiTransport struct{ c *Client }

func (geminiTransport) kind() string { return "generateContent response" }

func (geminiTransport) streamError(err error) ([]byte, bool) {
	var ae genai.APIError
	if errors.As(err, &ae) {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": ae.Code, "message": ae.Message, "status": ae.Status}})
		return b, true
	}
	return nil, false
}

// geminiBase splits a base URL into genai's base and API version: the
// preset's OpenAI-compatible ".../v1beta/openai" and a bare ".../v1beta"
// both give the host and "v1beta".
func geminiBase(raw string) (base, version string) {
	base = trimSuffixes(raw, "/openai")
	for _, v := range []string{"/v1beta", "/v1alpha", "/v1"} {
		if strings.HasSuffix(base, v) {
			return strings.TrimSuffix(base, v) + "/", strings.TrimPrefix(v, "/")
		}
	}
	return base + "/", "v1beta"
}

func (t geminiTransport) send(ctx context.Context, r Request, onDelta func(string), ex *exchange, sent *sentFeatures) (Response, error) {
	c := t.c
	if c.cfg.APIKey == "" {
		return Response{}, &requestError{errors.New("the gemini provider needs an API key (api_key_env)")}
	}
	base, version := geminiBase(c.cfg.BaseURL)
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey: c.cfg.APIKey, Backend: genai.BackendGeminiAPI, HTTPClient: ex.client(c.cfg.HTTPClient),
		HTTPOptions: genai.HTTPOptions{BaseURL: base, APIVersion: version},
	})
	if err != nil {
		return Response{}, &requestError{err}
	}
	contents, cfg, err := geminiRequest(r)
	if err != nil {
		return Response{}, &requestError{err}
	}
	if c.cfg.NoStream {
		resp, err := client.Models.GenerateContent(ctx, c.cfg.Model, contents, cfg)
		if err != nil {
			return Response{}, err
		}
		acc := geminiAccumulator{limit: c.cfg.MaxReplyBytes}
		acc.add(resp)
		res, err := c.finishGemini(acc)
		if err == nil && res.Text != "" {
			onDelta(res.Text)
		}
		return res, err
	}
	acc := geminiAccumulator{limit: c.cfg.MaxReplyBytes}
	for resp, err := range client.Models.GenerateContentStream(ctx, c.cfg.Model, contents, cfg) {
		if err != nil {
			return acc.response(), err
		}
		if d := acc.add(resp); d != "" {
			sent.delivered = true
			onDelta(d)
		}
		if acc.cut {
			res := acc.response()
			res.Finish, res.Cut = "length", fmt.Sprintf("the reply was longer than %d bytes", acc.limit)
			return res, nil
		}
	}
	return c.finishGemini(acc)
}

// geminiRequest translates r into contents and a config.
func geminiRequest(r Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	cfg := &genai.GenerateContentConfig{StopSequences: r.Stop}
	if r.MaxTokens > 0 {
		cfg.MaxOutputTokens = int32(min(r.MaxTokens, 1<<30))
	}
	if r.Temperature != nil {
		t := float32(*r.Temperature)
		cfg.Temperature = &t
	}
	if ct := r.Computer; ct != nil {
		env := genai.Environment(ct.Environment)
		if env == "" {
			env = genai.EnvironmentDesktop
		}
		cfg.Tools = []*genai.Tool{{ComputerUse: &genai.ComputerUse{Environment: env, ExcludedPredefinedFunctions: ct.Excluded}}}
	}
	var contents []*genai.Content
	var sys []*genai.Part
	for _, m := range r.Messages {
		switch m.Role {
		case "system":
			sys = append(sys, &genai.Part{Text: joinText(m.Parts)})
		case "assistant":
			contents = append(contents, &genai.Content{Role: genai.RoleModel, Parts: modelParts(m.Parts)})
		default:
			parts, err := userParts(m.Parts)
			if err != nil {
				return nil, nil, err
			}
			contents = append(contents, &genai.Content{Role: genai.RoleUser, Parts: parts})
		}
	}
	if len(sys) > 0 {
		cfg.SystemInstruction = &genai.Content{Parts: sys}
	}
	return contents, cfg, nil
}

func modelParts(ps []Part) []*genai.Part {
	var out []*genai.Part
	for _, p := range ps {
		switch {
		case p.Call != nil:
			var args map[string]any
			_ = json.Unmarshal(p.Call.Input, &args)
			out = append(out, &genai.Part{FunctionCall: &genai.FunctionCall{ID: p.Call.ID, Name: p.Call.Name, Args: args},
				ThoughtSignature: p.Call.Signature})
		case p.Text != "":
			out = append(out, &genai.Part{Text: p.Text})
		}
	}
	return out
}

// userParts converts a user turn: a function response per result, its
// text as the response's output (or error) and its images as the
// response's parts; then the turn's other content.
func userParts(ps []Part) ([]*genai.Part, error) {
	plain, groups := splitResults(ps)
	var out []*genai.Part
	for _, g := range groups {
		fr := &genai.FunctionResponse{ID: g.result.CallID, Name: g.result.Name, Response: map[string]any{}}
		var text []string
		for _, p := range g.parts {
			if !p.IsImage() {
				text = append(text, p.Text)
				continue
			}
			data, mime, err := imageBytes(p)
			if err != nil {
				return nil, err
			}
			fr.Parts = append(fr.Parts, &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: mime, Data: data}})
		}
		key := "output"
		if g.result.Error {
			key = "error"
		}
		fr.Response[key] = strings.Join(text, "\n")
		if len(g.result.Acknowledged) > 0 {
			fr.Response["safety_acknowledgement"] = "true"
		}
		out = append(out, &genai.Part{FunctionResponse: fr})
	}
	for _, p := range plain {
		if !p.IsImage() {
			out = append(out, &genai.Part{Text: p.Text})
			continue
		}
		data, mime, err := imageBytes(p)
		if err != nil {
			return nil, err
		}
		out = append(out, &genai.Part{InlineData: &genai.Blob{MIMEType: mime, Data: data}})
	}
	return out, nil
}

// imageBytes is an image part's bytes and media type (Gemini takes inline
// data, not URLs).
func imageBytes(p Part) ([]byte, string, error) {
	if p.Image != nil {
		return p.Image, p.ImageMIME, nil
	}
	mediaType, data, ok := strings.Cut(strings.TrimPrefix(p.ImageURL, "data:"), ";base64,")
	if !ok || !strings.HasPrefix(p.ImageURL, "data:") {
		return nil, "", errors.New("the gemini provider sends images inline: give a data URL or bytes")
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, "", fmt.Errorf("image data URL: %w", err)
	}
	return b, mediaType, nil
}

// geminiAccumulator folds streamed (or whole) responses.
type geminiAccumulator struct {
	limit   int
	id      string
	text    strings.Builder
	think   strings.Builder
	calls   []ToolCall
	finish  string
	blocked string
	usage   Usage
	chunks  int
	cut     bool // the text reached limit
}

// add folds one response and returns the text it adds.
func (a *geminiAccumulator) add(r *genai.GenerateContentResponse) string {
	if r == nil {
		return ""
	}
	a.chunks++
	if r.ResponseID != "" {
		a.id = r.ResponseID
	}
	if u := r.UsageMetadata; u != nil {
		a.usage = Usage{Input: int(u.PromptTokenCount), Output: int(u.CandidatesTokenCount + u.ThoughtsTokenCount)}
	}
	if f := r.PromptFeedback; f != nil && f.BlockReason != "" {
		a.blocked = string(f.BlockReason)
	}
	if len(r.Candidates) == 0 || r.Candidates[0] == nil {
		return ""
	}
	cand := r.Candidates[0]
	if cand.FinishReason != "" {
		a.finish = string(cand.FinishReason)
	}
	if cand.Content == nil {
		return ""
	}
	var added strings.Builder
	for _, p := range cand.Content.Parts {
		switch {
		case p == nil:
		case p.FunctionCall != nil:
			args, _ := json.Marshal(p.FunctionCall.Args)
			if p.FunctionCall.Args == nil {
				args = []byte("{}")
			}
			a.calls = append(a.calls, ToolCall{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Input: args, Signature: p.ThoughtSignature})
		case p.Thought:
			if a.think.Len() < a.limit {
				a.think.WriteString(p.Text)
			}
		case p.Text != "":
			d := p.Text
			if a.text.Len()+len(d) > a.limit {
				d, a.cut = cutUTF8(d, a.limit-a.text.Len()), true
			}
			a.text.WriteString(d)
			added.WriteString(d)
		}
	}
	return added.String()
}

func (a *geminiAccumulator) response() Response {
	return Response{ID: a.id, Text: a.text.String(), Reasoning: a.think.String(), Calls: a.calls, Usage: a.usage, Finish: a.finish}
}

// finishGemini checks a folded reply: a finish reason must have come, a
// blocked prompt is an error, and the finish reason is mapped.
func (c *Client) finishGemini(a geminiAccumulator) (Response, error) {
	res := a.response()
	if a.blocked != "" {
		return res, &APIError{Status: 400, Message: "the prompt was blocked: " + a.blocked}
	}
	if len(res.Calls) > maxCalls {
		return res, &ProtocolError{Msg: fmt.Sprintf("the response has %d function calls (at most %d are read)", len(res.Calls), maxCalls)}
	}
	switch res.Finish {
	case "":
		if a.chunks == 0 {
			return res, &ProtocolError{Msg: "the response has no candidates"}
		}
		return res, &cutError{delivered: len(res.Text)}
	case string(genai.FinishReasonMaxTokens):
		res.Finish = "length"
	case string(genai.FinishReasonStop):
		res.Finish = "stop"
		if len(res.Calls) > 0 {
			res.Finish = "tool_calls"
		}
	default:
		if len(res.Calls) == 0 && res.Text == "" {
			return res, &APIError{Status: 400, Message: "the model stopped without an answer: " + res.Finish}
		}
	}
	c.capText(&res)
	return res, nil
}
