package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"

	"deskpilot/agent/llm"
	"deskpilot/agent/llm/llmtest"
)

// wires are the vendor transports with the server that speaks each.
func wires() []struct {
	provider string
	wire     llmtest.Wire
} {
	return []struct {
		provider string
		wire     llmtest.Wire
	}{
		{llm.ProviderResponses, llmtest.Responses},
		{llm.ProviderAnthropic, llmtest.Anthropic},
		{llm.ProviderGemini, llmtest.Gemini},
	}
}

func vendorClient(provider, url string, noStream bool) *llm.Client {
	return llm.New(llm.Config{Provider: provider, BaseURL: url, Model: "m", APIKey: "sk-test-secret-key",
		NoStream: noStream, Backoff: time.Millisecond, Timeout: 5 * time.Second,
		Sleep: func(context.Context, time.Duration) error { return nil }})
}

// A call of each vendor's documented shape comes back as a ToolCall with
// its id and input, the text streams, usage and the response id are read.
func TestVendorTransportsReadCallsAndText(t *testing.T) {
	calls := map[llmtest.Wire]llmtest.Call{
		llmtest.Responses: {ID: "call_zw3", Input: `{"action": {"type": "click", "button": "left", "x": 156, "y": 50}}`,
			Checks: []llmtest.Check{{ID: "cu_sc_1", Code: "malicious_instructions", Message: "We've detected instructions"}}},
		llmtest.Anthropic: {ID: "toolu_01A", Name: "computer", Input: `{"action": "left_click", "coordinate": [500, 300]}`},
		llmtest.Gemini:    {Name: "click_at", Input: `{"x": 60, "y": 100}`, Signature: "sig-1"},
	}
	for _, w := range wires() {
		for _, noStream := range []bool{false, true} {
			t.Run(w.provider+map[bool]string{true: "/whole", false: "/stream"}[noStream], func(t *testing.T) {
				srv := llmtest.NewVendor(t, w.wire, llmtest.Turn{Text: "I will click the button.", Calls: []llmtest.Call{calls[w.wire]}})
				c := vendorClient(w.provider, srv.URL, noStream)
				var deltas []string
				res, err := c.Complete(t.Context(), llm.Request{Messages: []llm.Message{
					{Role: "system", Parts: []llm.Part{{Text: "You operate a desktop."}}},
					{Role: "user", Parts: []llm.Part{{Text: "Click OK"}, {Image: pngOf(t, 40, 30), ImageMIME: "image/png"}}},
				}, Computer: computerFor(w.provider)}, func(d string) { deltas = append(deltas, d) })
				if err != nil {
					t.Fatalf("Complete: %v", err)
				}
				if res.Text != "I will click the button." || strings.Join(deltas, "") != res.Text {
					t.Errorf("text = %q, deltas %q", res.Text, deltas)
				}
				if len(res.Calls) != 1 {
					t.Fatalf("calls = %+v, want 1", res.Calls)
				}
				got := res.Calls[0]
				var in map[string]any
				if err := json.Unmarshal(got.Input, &in); err != nil {
					t.Fatalf("input %s: %v", got.Input, err)
				}
				switch w.wire {
				case llmtest.Responses:
					if got.ID != "call_zw3" || len(got.Checks) != 1 || got.Checks[0].Code != "malicious_instructions" || in["action"] == nil {
						t.Errorf("call = %+v", got)
					}
				case llmtest.Anthropic:
					if got.ID != "toolu_01A" || got.Name != "computer" || in["action"] != "left_click" {
						t.Errorf("call = %+v", got)
					}
				case llmtest.Gemini:
					if got.Name != "click_at" || in["x"] != 60.0 || string(got.Signature) != "sig-1" {
						t.Errorf("call = %+v", got)
					}
				}
				if res.ID == "" || res.Usage.Input == 0 || res.Usage.Output == 0 {
					t.Errorf("id %q usage %+v", res.ID, res.Usage)
				}
				req := srv.Requests()[0]
				if len(req.Images) != 1 || req.Images[0] != image.Pt(40, 30) {
					t.Errorf("images sent = %v, want one 40x30", req.Images)
				}
				if strings.Contains(string(req.Body), "sk-test-secret-key") {
					t.Error("the API key is in the request body")
				}
			})
		}
	}
}

func computerFor(provider string) *llm.ComputerTool {
	switch provider {
	case llm.ProviderResponses:
		return &llm.ComputerTool{Type: "computer"}
	case llm.ProviderAnthropic:
		return &llm.ComputerTool{Type: "computer_20251124", Display: image.Pt(1280, 720), EnableZoom: true}
	}
	return &llm.ComputerTool{Environment: "ENVIRONMENT_DESKTOP"}
}

// The second request answers the first one's call: Responses continues by
// previous_response_id with the computer_call_output alone (its safety
// check acknowledged); Anthropic resends the tool_use with a tool_result
// first in the user turn and cache breakpoints; Gemini resends the function
// call with its signature and a function response with the screenshot.
func TestVendorTransportsSendResultsBack(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.provider, func(t *testing.T) {
			srv := llmtest.NewVendor(t, w.wire, llmtest.Turn{Text: "done"})
			c := vendorClient(w.provider, srv.URL, false)
			call := llm.ToolCall{ID: "call_1", Name: "computer", Input: json.RawMessage(`{"type":"computer_call","call_id":"call_1","action":{"type":"screenshot"}}`),
				Checks: []llm.SafetyCheck{{ID: "sc_1", Code: "irrelevant_domain", Message: "x"}}, Signature: []byte("sig")}
			if w.wire == llmtest.Gemini {
				call.Name, call.Input = "click_at", json.RawMessage(`{"x":1,"y":2}`)
			}
			msgs := []llm.Message{
				{Role: "system", Parts: []llm.Part{{Text: "sys"}}},
				{Role: "user", Parts: []llm.Part{{Text: "task"}}},
				{Role: "assistant", ID: "resp_prev", Parts: []llm.Part{{Text: "looking"}, {Call: &call}}},
				{Role: "user", Parts: []llm.Part{
					{Result: &llm.ToolResult{CallID: call.ID, Name: call.Name, Acknowledged: call.Checks}},
					{Text: "clicked"}, {Image: pngOf(t, 20, 10), ImageMIME: "image/png"}}},
			}
			if _, err := c.Complete(t.Context(), llm.Request{Messages: msgs, Computer: computerFor(w.provider)}, nil); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			req := srv.Requests()[0]
			body := string(req.Body)
			switch w.wire {
			case llmtest.Responses:
				if req.JSON["previous_response_id"] != "resp_prev" || req.JSON["instructions"] != "sys" || req.JSON["truncation"] != "auto" {
					t.Errorf("continuation fields: %s", body)
				}
				if strings.Contains(body, `"task"`) || !strings.Contains(body, `"computer_call_output"`) ||
					!strings.Contains(body, `"acknowledged_safety_checks":[{"id":"sc_1"`) || !strings.Contains(body, `"detail":"original"`) {
					t.Errorf("input: %s", body)
				}
			case llmtest.Anthropic:
				if !strings.Contains(body, `"tool_use_id":"call_1"`) || !strings.Contains(body, `"type":"tool_use"`) ||
					strings.Count(body, `"cache_control"`) != 2 || req.Header.Get("anthropic-beta") != "computer-use-2025-11-24" {
					t.Errorf("body: %s\nbeta %q", body, req.Header.Get("anthropic-beta"))
				}
				if req.Header.Get("X-Api-Key") != "sk-test-secret-key" {
					t.Errorf("x-api-key = %q", req.Header.Get("X-Api-Key"))
				}
			case llmtest.Gemini:
				if !strings.Contains(body, `"functionResponse"`) || !strings.Contains(body, `"safety_acknowledgement":"true"`) ||
					!strings.Contains(body, `"thoughtSignature"`) || !strings.Contains(body, `"computerUse"`) {
					t.Errorf("body: %s", body)
				}
			}
			if len(req.Images) != 1 {
				t.Errorf("images = %v, want the screenshot", req.Images)
			}
		})
	}
}

// Faults behave the same on every transport: a 429 and an overload event in
// the stream are retried, a malformed body is a ProtocolError, a server that
// never answers is a TimeoutError, and cancelling mid-stream ends the call
// at once with context.Canceled.
func TestVendorTransportsFaults(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.provider+"/retried", func(t *testing.T) {
			srv := llmtest.NewVendor(t, w.wire, llmtest.Turn{Status: 429, RetryAfter: "0"},
				llmtest.Turn{Text: "half of it then", StreamError: true}, llmtest.Turn{Text: "fine"})
			res, err := vendorClient(w.provider, srv.URL, false).Complete(t.Context(), textRequest(), nil)
			if err != nil || res.Text != "fine" || res.Attempts != 3 {
				t.Errorf("res %+v err %v, want fine after 3 attempts", res, err)
			}
		})
		t.Run(w.provider+"/malformed", func(t *testing.T) {
			srv := llmtest.NewVendor(t, w.wire, llmtest.Turn{Text: "x y z", MalformedJSON: true})
			_, err := vendorClient(w.provider, srv.URL, true).Complete(t.Context(), textRequest(), nil)
			var pe *llm.ProtocolError
			if !errors.As(err, &pe) {
				t.Errorf("err = %v, want a ProtocolError", err)
			}
		})
		t.Run(w.provider+"/bad request", func(t *testing.T) {
			srv := llmtest.NewVendor(t, w.wire, llmtest.Turn{Status: 400, Message: "bad image sk-test-secret-key"})
			_, err := vendorClient(w.provider, srv.URL, false).Complete(t.Context(), textRequest(), nil)
			var ae *llm.APIError
			if !errors.As(err, &ae) || ae.Status != 400 || strings.Contains(err.Error(), "sk-test-secret-key") {
				t.Errorf("err = %v, want a 400 APIError without the key", err)
			}
		})
		t.Run(w.provider+"/timeout", func(t *testing.T) {
			srv := llmtest.NewVendor(t, w.wire, llmtest.Turn{Hang: true})
			c := llm.New(llm.Config{Provider: w.provider, BaseURL: srv.URL, Model: "m", APIKey: "k", Timeout: 200 * time.Millisecond})
			_, err := c.Complete(t.Context(), textRequest(), nil)
			var te *llm.TimeoutError
			if !errors.As(err, &te) {
				t.Errorf("err = %v, want a TimeoutError", err)
			}
		})
		t.Run(w.provider+"/stop mid-stream", func(t *testing.T) {
			srv := llmtest.NewVendor(t, w.wire, llmtest.Turn{Text: "a b c d e f", Stall: true, After: 2})
			ctx, cancel := context.WithCancel(t.Context())
			got := make(chan string, 16)
			done := make(chan error, 1)
			go func() {
				_, err := vendorClient(w.provider, srv.URL, false).Complete(ctx, textRequest(), func(d string) { got <- d })
				done <- err
			}()
			<-got // the stream is flowing
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
		})
		t.Run(w.provider+"/endless", func(t *testing.T) {
			srv := llmtest.NewVendor(t, w.wire, llmtest.Turn{Text: "word ", Endless: true})
			c := llm.New(llm.Config{Provider: w.provider, BaseURL: srv.URL, Model: "m", APIKey: "k", MaxReplyBytes: 4096, MaxReplyTime: 300 * time.Millisecond})
			res, err := c.Complete(t.Context(), textRequest(), nil)
			if err != nil || res.Cut == "" || len(res.Text) > 4096 {
				t.Errorf("res cut %q len %d err %v, want a cut reply", res.Cut, len(res.Text), err)
			}
		})
		t.Run(w.provider+"/unknown events", func(t *testing.T) {
			srv := llmtest.NewVendor(t, w.wire, llmtest.Turn{Text: "still fine", Unknown: true})
			res, err := vendorClient(w.provider, srv.URL, false).Complete(t.Context(), textRequest(), nil)
			if err != nil || res.Text != "still fine" {
				t.Errorf("res %+v err %v", res, err)
			}
		})
	}
}

func textRequest() llm.Request {
	return llm.Request{Messages: []llm.Message{{Role: "user", Parts: []llm.Part{{Text: "hi"}}}}, MaxTokens: 32}
}

func TestProviderFor(t *testing.T) {
	for url, want := range map[string]string{
		"https://api.anthropic.com/v1":                            llm.ProviderAnthropic,
		"https://generativelanguage.googleapis.com/v1beta":        llm.ProviderGemini,
		"https://generativelanguage.googleapis.com/v1beta/openai": llm.ProviderChat,
		"https://api.openai.com/v1":                               llm.ProviderChat,
		"http://localhost:11434/v1":                               llm.ProviderChat,
		"::not a url":                                             llm.ProviderChat,
	} {
		if got := llm.ProviderFor(url); got != want {
			t.Errorf("ProviderFor(%q) = %q, want %q", url, got, want)
		}
	}
	if err := func() error {
		_, err := llm.New(llm.Config{Provider: "carrier-pigeon", BaseURL: "http://x"}).Complete(t.Context(), textRequest(), nil)
		return err
	}(); err == nil || !strings.Contains(err.Error(), "providers: chat, responses, anthropic, gemini") {
		t.Errorf("unknown provider: %v", err)
	}
}

// pngOf is a w x h PNG.
func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
