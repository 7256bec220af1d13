package llm

import (
	"encoding/json"
	"errors"
	"testing"
)

// The readers of the vendors' replies take any bytes: no panic, a
// *ProtocolError for what is not a reply, and every call's input JSON.
func FuzzFromResponse(f *testing.F) {
	for _, s := range []string{
		`{"id": "resp_1", "status": "completed", "output": [{"type": "computer_call", "call_id": "c", "action": {"type": "click", "x": 1, "y": 2}, "pending_safety_checks": [{"id": "s", "code": "x", "message": "m"}]}], "usage": {"input_tokens": 3, "output_tokens": 4}}`,
		`{"id": "resp_2", "output": [{"type": "message", "content": [{"type": "output_text", "text": "hi"}]}, {"type": "reasoning", "summary": [{"text": "r"}]}]}`,
		`{"id": "", "output": 5}`, `[`, `{"id": "x", "output": [1, 2]}`,
	} {
		f.Add([]byte(s))
	}
	c := New(Config{Provider: ProviderResponses, BaseURL: "http://x"})
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := c.fromResponse(b)
		checkWire(t, b, res, err)
	})
}

func FuzzFromMessage(f *testing.F) {
	for _, s := range []string{
		`{"id": "msg_1", "content": [{"type": "text", "text": "I'll click."}, {"type": "tool_use", "id": "toolu_1", "name": "computer", "input": {"action": "left_click", "coordinate": [1, 2]}}], "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 2}}`,
		`{"id": "msg_2", "content": [{"type": "thinking", "thinking": "t"}], "stop_reason": "max_tokens"}`,
		`{"content": []}`, `{"id": "m", "content": [{"type": "tool_use", "input": 7}]}`,
	} {
		f.Add([]byte(s))
	}
	c := New(Config{Provider: ProviderAnthropic, BaseURL: "http://x"})
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := c.fromMessage(b)
		checkWire(t, b, res, err)
	})
}

// FuzzMessageEvents feeds Messages stream events, each line "type data".
func FuzzMessageEvents(f *testing.F) {
	f.Add("content_block_start", `{"index": 0, "content_block": {"type": "tool_use", "id": "t", "name": "computer"}}`,
		"content_block_delta", `{"index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"action\": "}}`)
	f.Add("content_block_delta", `{"index": 3, "delta": {"type": "text_delta", "text": "x"}}`, "message_delta", `{"delta": {"stop_reason": "end_turn"}}`)
	f.Fuzz(func(t *testing.T, typ1, data1, typ2, data2 string) {
		a := messageAccumulator{limit: 1 << 10}
		for _, ev := range [][2]string{{typ1, data1}, {typ2, data2}} {
			if _, err := a.add(ev[0], []byte(ev[1])); err != nil {
				var pe *ProtocolError
				if !errors.As(err, &pe) {
					t.Fatalf("error %v is not a ProtocolError", err)
				}
				return
			}
		}
		res := a.response()
		if len(res.Text) > 1<<10 {
			t.Fatalf("text of %d bytes passed the limit", len(res.Text))
		}
		for _, c := range res.Calls {
			if !json.Valid(c.Input) {
				t.Fatalf("call input %q is not JSON", c.Input)
			}
		}
	})
}

func checkWire(t *testing.T, b []byte, res Response, err error) {
	t.Helper()
	if err != nil {
		var pe *ProtocolError
		if !errors.As(err, &pe) {
			t.Fatalf("%q: error %v is not a ProtocolError", b, err)
		}
		return
	}
	for _, c := range res.Calls {
		if !json.Valid(c.Input) {
			t.Fatalf("%q: call input %q is not JSON", b, c.Input)
		}
	}
}
