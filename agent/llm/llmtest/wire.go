package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// The fixed identity of every reply, so recorded wire traffic is deterministic.
const (
	replyID      = "chatcmpl-llmtest"
	replyCreated = 1700000000
)

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type wireDelta struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
}

type wireChunkChoice struct {
	Index        int       `json:"index"`
	Delta        wireDelta `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
}

type wireChunk struct {
	ID      string            `json:"id"`
	Object  string            `json:"object"`
	Created int64             `json:"created"`
	Model   string            `json:"model"`
	Choices []wireChunkChoice `json:"choices"`
	Usage   *wireUsage        `json:"usage"`
}

// stream answers with server-sent events.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, req Request, rp Reply, text string) {
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(v any) bool {
		if !s.wait(r, rp.Delay) {
			return false
		}
		var data []byte
		if raw, ok := v.(string); ok {
			data = []byte(raw)
		} else {
			data, _ = json.Marshal(v)
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	chunk := func(d wireDelta, finish *string) wireChunk {
		return wireChunk{ID: replyID, Object: "chat.completion.chunk", Created: replyCreated, Model: req.Model,
			Choices: []wireChunkChoice{{Delta: d, FinishReason: finish}}}
	}
	deltas := split(text)
	after := rp.after(len(deltas))
	if !send(chunk(wireDelta{Role: "assistant", Content: ptr("")}, nil)) {
		return
	}
	for rp.Endless && len(deltas) > 0 {
		for i := range deltas {
			if !send(chunk(wireDelta{Content: &deltas[i]}, nil)) {
				return
			}
		}
	}
	for i := 0; i <= len(deltas); i++ {
		if i == after && s.fault(w, r, rp, send) {
			return
		}
		if i < len(deltas) && !send(chunk(wireDelta{Content: &deltas[i]}, nil)) {
			return
		}
	}
	if !rp.NoFinish && !send(chunk(wireDelta{}, ptr(rp.finish()))) {
		return
	}
	if req.IncludeUsage {
		u := rp.usage(req, len(deltas))
		c := wireChunk{ID: replyID, Object: "chat.completion.chunk", Created: replyCreated, Model: req.Model,
			Choices: []wireChunkChoice{}, Usage: &u}
		if !send(c) {
			return
		}
	}
	send("[DONE]")
}

// fault plays the reply's mid-stream fault, if it has one, and reports whether it did.
func (s *Server) fault(w http.ResponseWriter, r *http.Request, rp Reply, send func(any) bool) bool {
	switch {
	case rp.CutStream:
		panic(http.ErrAbortHandler) // the server drops the connection mid-body
	case rp.Stall:
		s.wait(r, -1)
	case rp.MalformedJSON:
		send(`{"id": "` + replyID + `", "choices": [{"index": 0, "delta": {"content": "x`)
	case rp.StreamError:
		var code any
		if rp.Status != 0 {
			code = rp.Status
		}
		msg := rp.Message
		if msg == "" {
			msg = "llmtest: error event"
		}
		send(map[string]any{"error": map[string]any{"message": msg, "type": "server_error", "code": code}})
	default:
		return false
	}
	return true
}

// complete answers with one JSON completion.
func (s *Server) complete(w http.ResponseWriter, req Request, rp Reply, text string) {
	u := rp.usage(req, len(split(text)))
	body, _ := json.Marshal(map[string]any{
		"id": replyID, "object": "chat.completion", "created": replyCreated, "model": req.Model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": text},
			"finish_reason": rp.finish(),
		}},
		"usage": u,
	})
	if rp.MalformedJSON {
		body = []byte(`{"id": "` + replyID + `", "choices": [`)
	}
	w.Header().Set("Content-Type", "application/json")
	if rp.CutStream {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body[:len(body)/2])
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		panic(http.ErrAbortHandler)
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// split cuts text into stream deltas, each ending after a space or newline.
func split(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexAny(text, " \n")
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

func (rp Reply) after(n int) int {
	switch {
	case rp.After > 0:
		return min(rp.After, n)
	case n == 0:
		return 0
	}
	return max(n/2, 1)
}

func (rp Reply) finish() string {
	if rp.Finish != "" {
		return rp.Finish
	}
	return "stop"
}

func (rp Reply) usage(req Request, pieces int) wireUsage {
	u := Usage{Completion: pieces}
	if rp.Usage != nil {
		u = *rp.Usage
	} else {
		for _, m := range req.Messages {
			for _, p := range m.Parts {
				if p.Type == "image_url" {
					u.Prompt += 85
				}
				u.Prompt += len(p.Text) / 4
			}
		}
	}
	return wireUsage{PromptTokens: u.Prompt, CompletionTokens: u.Completion, TotalTokens: u.Prompt + u.Completion}
}

func ptr[T any](v T) *T { return &v }
