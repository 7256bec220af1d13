package llm_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"deskpilot/agent/llm"
	"deskpilot/agent/llm/llmtest"
)

// A chat server's native tool_calls (Holo3.1 served by vLLM) and its
// reasoning_content come back as Calls and Reasoning, streamed (the
// arguments in pieces, by index) or whole, as OpenAI's chat completions
// reference writes them.
func TestChatToolCallsAndReasoning(t *testing.T) {
	stream := []string{
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"The Continue button "}}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"reasoning_content":"is at the bottom."}}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"click","arguments":""}}]}}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"x\": 932, "}}]}}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"y\": 880}"}}]}}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	}
	whole := `{"id":"c2","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"reasoning_content":"think","tool_calls":[{"id":"call_1","type":"function","function":{"name":"write","arguments":"{\"text\": \"hi\"}"}}]}}],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"stream":true`) {
			w.Header().Set("Content-Type", "text/event-stream")
			for _, c := range stream {
				fmt.Fprintf(w, "data: %s\n\n", c)
			}
			fmt.Fprint(w, "data: [DONE]\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, whole)
	}))
	defer srv.Close()
	for _, noStream := range []bool{false, true} {
		c := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "m", NoStream: noStream})
		res, err := c.Complete(t.Context(), textRequest(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if noStream {
			if len(res.Calls) != 1 || res.Calls[0].Name != "write" || string(res.Calls[0].Input) != `{"text": "hi"}` || res.Reasoning != "think" {
				t.Errorf("whole: %+v", res)
			}
			continue
		}
		if len(res.Calls) != 1 || res.Calls[0].ID != "call_abc" || string(res.Calls[0].Input) != `{"x": 932, "y": 880}` ||
			res.Reasoning != "The Continue button is at the bottom." || res.Finish != "tool_calls" {
			t.Errorf("stream: %+v", res)
		}
	}
}

// A structured-output schema goes out as response_format; a server that
// refuses it gets the request again without, once for the client.
func TestChatSchemaFallback(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Status: 400, Message: "response_format json_schema is not supported by this model"},
		llmtest.Reply{Text: "ok"}, llmtest.Reply{Text: "ok again"})
	c := llm.New(llm.Config{BaseURL: srv.URL, Model: "m"})
	req := textRequest()
	req.Schema = &llm.JSONSchema{Name: "step", Schema: []byte(`{"type": "object"}`)}
	res, err := c.Complete(t.Context(), req, nil)
	if err != nil || res.Text != "ok" || res.Attempts != 2 {
		t.Fatalf("res %+v err %v", res, err)
	}
	if _, err := c.Complete(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if !strings.Contains(string(reqs[0].Body), `"response_format":{"json_schema":{"name":"step"`) ||
		strings.Contains(string(reqs[1].Body), "response_format") || strings.Contains(string(reqs[2].Body), "response_format") {
		t.Errorf("bodies:\n%s\n%s\n%s", reqs[0].Body, reqs[1].Body, reqs[2].Body)
	}
	var ae *llm.APIError
	_, err = llm.New(llm.Config{BaseURL: srv.URL, Model: "m"}).Complete(t.Context(), llm.Request{
		Messages: []llm.Message{{Role: "user", Parts: []llm.Part{{Text: "x"}}}}, Computer: &llm.ComputerTool{Type: "computer"}}, nil)
	if err == nil || errors.As(err, &ae) || !strings.Contains(err.Error(), "no computer tool") {
		t.Errorf("a computer tool over chat: %v", err)
	}
}

// A call whose input is larger than any reply a step needs is refused,
// on every vendor wire, before anything reads it.
func TestVendorOversizedCall(t *testing.T) {
	huge := `{"action": "type", "text": "` + strings.Repeat("A", 5<<20) + `"}`
	for _, w := range wires() {
		t.Run(w.provider, func(t *testing.T) {
			srv := llmtest.NewVendor(t, w.wire, llmtest.Turn{Calls: []llmtest.Call{{Name: "computer", Input: huge}}})
			_, err := vendorClient(w.provider, srv.URL, false).Complete(t.Context(), textRequest(), nil)
			var pe *llm.ProtocolError
			if !errors.As(err, &pe) {
				t.Errorf("err = %v, want a ProtocolError", err)
			}
		})
	}
}
