package llmtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// callID is a call's id, or a made-up one.
func callID(c Call, prefix string, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("%s%d", prefix, i+1)
}

// input decodes a call's JSON input; invalid JSON is kept as a string (a
// hostile server's), so the client sees what was sent.
func input(c Call) any {
	var v any
	if c.Input == "" {
		return map[string]any{}
	}
	if err := json.Unmarshal([]byte(c.Input), &v); err != nil {
		return json.RawMessage(c.Input)
	}
	return v
}

// responsesItems are a turn's output items.
func responsesItems(tn Turn, id int) []map[string]any {
	var items []map[string]any
	if tn.Reasoning != "" {
		items = append(items, map[string]any{"type": "reasoning", "id": fmt.Sprintf("rs_%d", id),
			"summary": []any{map[string]any{"type": "summary_text", "text": tn.Reasoning}}})
	}
	if tn.Text != "" {
		items = append(items, map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", id), "role": "assistant",
			"status": "completed", "content": []any{map[string]any{"type": "output_text", "text": tn.Text, "annotations": []any{}}}})
	}
	for i, c := range tn.Calls {
		item := map[string]any{}
		if m, ok := input(c).(map[string]any); ok {
			for k, v := range m {
				item[k] = v
			}
		}
		checks := []any{}
		for _, ch := range c.Checks {
			checks = append(checks, map[string]any{"id": ch.ID, "code": ch.Code, "message": ch.Message})
		}
		item["type"], item["id"], item["call_id"] = "computer_call", fmt.Sprintf("cu_%d_%d", id, i), callID(c, "call_", i)
		item["pending_safety_checks"], item["status"] = checks, "completed"
		items = append(items, item)
	}
	return items
}

func responseObject(tn Turn, req VendorRequest, id int, status string, items []map[string]any) map[string]any {
	u := usageOf(tn, req, len(pieces(tn.Text)))
	if items == nil {
		items = []map[string]any{}
	}
	return map[string]any{"id": fmt.Sprintf("resp_%d", id), "object": "response", "created_at": 1700000000,
		"status": status, "model": req.JSON["model"], "output": items,
		"previous_response_id": req.JSON["previous_response_id"],
		"usage":                map[string]any{"input_tokens": u.Prompt, "output_tokens": u.Completion, "total_tokens": u.Prompt + u.Completion}}
}

// whole is the non-streamed answer.
func (v *Vendor) whole(req VendorRequest, tn Turn, id int) []byte {
	var body any
	switch v.Wire {
	case Responses:
		status := tn.Stop
		if status == "" {
			status = "completed"
		}
		body = responseObject(tn, req, id, status, responsesItems(tn, id))
	case Anthropic:
		body = anthropicMessage(tn, req, id, anthropicBlocks(tn))
	default:
		body = geminiChunk(tn, req, id, geminiParts(tn), true)
	}
	b, _ := json.Marshal(body)
	return b
}

// streamResponses plays a response as Responses SSE events.
func (v *Vendor) streamResponses(es *eventStream, req VendorRequest, tn Turn, id int) {
	seq := 0
	ev := func(typ string, fields map[string]any) bool {
		fields["type"], fields["sequence_number"] = typ, seq
		seq++
		return es.send(typ, fields)
	}
	if !ev("response.created", map[string]any{"response": responseObject(tn, req, id, "in_progress", nil)}) {
		return
	}
	items := responsesItems(tn, id)
	errEvent := func() {
		ev("error", map[string]any{"code": "server_error", "message": firstOf(tn.Message, "llmtest: the server had an error"), "param": nil})
	}
	ps := pieces(tn.Text)
	after := Reply{After: tn.After}.after(len(ps))
	for i, it := range items {
		if !ev("response.output_item.added", map[string]any{"output_index": i, "item": it}) {
			return
		}
		if it["type"] == "message" {
			for j := 0; j <= len(ps); j++ {
				if j == after && es.fault(tn, errEvent) {
					return
				}
				for tn.Endless && j < len(ps) {
					if !ev("response.output_text.delta", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0, "delta": ps[j]}) {
						return
					}
				}
				if j < len(ps) && !ev("response.output_text.delta", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0, "delta": ps[j]}) {
					return
				}
			}
			ev("response.output_text.done", map[string]any{"item_id": it["id"], "output_index": i, "content_index": 0, "text": tn.Text})
		}
		if !ev("response.output_item.done", map[string]any{"output_index": i, "item": it}) {
			return
		}
	}
	if tn.Text == "" && es.fault(tn, errEvent) {
		return
	}
	if tn.Unknown {
		ev("response.llmtest_future_event", map[string]any{"payload": map[string]any{"x": 1}})
	}
	status, final := "completed", "response.completed"
	if tn.Stop == "incomplete" {
		status, final = "incomplete", "response.incomplete"
	}
	ev(final, map[string]any{"response": responseObject(tn, req, id, status, items)})
}

func firstOf(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

func anthropicBlocks(tn Turn) []map[string]any {
	var blocks []map[string]any
	if tn.Reasoning != "" {
		blocks = append(blocks, map[string]any{"type": "thinking", "thinking": tn.Reasoning, "signature": "sig"})
	}
	if tn.Text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": tn.Text})
	}
	for i, c := range tn.Calls {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": callID(c, "toolu_", i), "name": firstOf(c.Name, "computer"), "input": input(c)})
	}
	return blocks
}

func anthropicStop(tn Turn) string {
	switch {
	case tn.Stop != "":
		return tn.Stop
	case len(tn.Calls) > 0:
		return "tool_use"
	}
	return "end_turn"
}

func anthropicMessage(tn Turn, req VendorRequest, id int, blocks []map[string]any) map[string]any {
	u := usageOf(tn, req, len(pieces(tn.Text)))
	if blocks == nil {
		blocks = []map[string]any{}
	}
	return map[string]any{"id": fmt.Sprintf("msg_%02d", id), "type": "message", "role": "assistant", "model": req.JSON["model"],
		"content": blocks, "stop_reason": anthropicStop(tn), "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.Prompt, "output_tokens": u.Completion,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
}

// streamAnthropic plays a message as Messages SSE events.
func (v *Vendor) streamAnthropic(es *eventStream, req VendorRequest, tn Turn, id int) {
	start := anthropicMessage(tn, req, id, nil)
	start["stop_reason"] = nil
	u := usageOf(tn, req, len(pieces(tn.Text)))
	start["usage"] = map[string]any{"input_tokens": u.Prompt, "output_tokens": 1}
	if !es.send("message_start", map[string]any{"type": "message_start", "message": start}) {
		return
	}
	errEvent := func() {
		es.send("error", map[string]any{"type": "error", "error": map[string]any{"type": firstOf(tn.ErrorType, "overloaded_error"),
			"message": firstOf(tn.Message, "Overloaded")}})
	}
	idx := 0
	block := func(b map[string]any, deltas []map[string]any) bool {
		if !es.send("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": b}) {
			return false
		}
		for _, d := range deltas {
			if !es.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": d}) {
				return false
			}
		}
		ok := es.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
		return ok
	}
	if tn.Reasoning != "" && !block(map[string]any{"type": "thinking", "thinking": ""},
		[]map[string]any{{"type": "thinking_delta", "thinking": tn.Reasoning}, {"type": "signature_delta", "signature": "sig"}}) {
		return
	}
	es.send("", `{"type": "ping"}`)
	ps := pieces(tn.Text)
	after := Reply{After: tn.After}.after(len(ps))
	if tn.Text != "" {
		if !es.send("content_block_start", map[string]any{"type": "content_block_start", "index": idx, "content_block": map[string]any{"type": "text", "text": ""}}) {
			return
		}
		for j := 0; j <= len(ps); j++ {
			if j == after && es.fault(tn, errEvent) {
				return
			}
			for tn.Endless && j < len(ps) {
				if !es.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx, "delta": map[string]any{"type": "text_delta", "text": ps[j]}}) {
					return
				}
			}
			if j < len(ps) && !es.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
				"delta": map[string]any{"type": "text_delta", "text": ps[j]}}) {
				return
			}
		}
		es.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
		idx++
	}
	for i, c := range tn.Calls {
		// The input streams as partial JSON in two halves, as the API does.
		in := c.Input
		if in == "" {
			in = "{}"
		}
		half := len(in) / 2
		if !block(map[string]any{"type": "tool_use", "id": callID(c, "toolu_", i), "name": firstOf(c.Name, "computer"), "input": map[string]any{}},
			[]map[string]any{{"type": "input_json_delta", "partial_json": in[:half]}, {"type": "input_json_delta", "partial_json": in[half:]}}) {
			return
		}
	}
	if tn.Text == "" && es.fault(tn, errEvent) {
		return
	}
	if tn.Unknown {
		es.send("llmtest_future_event", map[string]any{"type": "llmtest_future_event"})
	}
	es.send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": anthropicStop(tn), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.Completion}})
	es.send("message_stop", map[string]any{"type": "message_stop"})
}

func geminiParts(tn Turn) []map[string]any {
	var parts []map[string]any
	if tn.Reasoning != "" {
		parts = append(parts, map[string]any{"text": tn.Reasoning, "thought": true})
	}
	if tn.Text != "" {
		parts = append(parts, map[string]any{"text": tn.Text})
	}
	for _, c := range tn.Calls {
		fc := map[string]any{"name": c.Name, "args": input(c)}
		if c.ID != "" {
			fc["id"] = c.ID
		}
		p := map[string]any{"functionCall": fc}
		if c.Signature != "" {
			p["thoughtSignature"] = base64.StdEncoding.EncodeToString([]byte(c.Signature))
		}
		parts = append(parts, p)
	}
	return parts
}

// geminiChunk is one GenerateContentResponse; last carries the finish reason
// and the usage.
func geminiChunk(tn Turn, req VendorRequest, id int, parts []map[string]any, last bool) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	out := map[string]any{"candidates": []any{cand}, "modelVersion": "llmtest", "responseId": fmt.Sprintf("gen_%d", id)}
	if last {
		cand["finishReason"] = firstOf(tn.Stop, "STOP")
		u := usageOf(tn, req, len(pieces(tn.Text)))
		out["usageMetadata"] = map[string]any{"promptTokenCount": u.Prompt, "candidatesTokenCount": u.Completion, "totalTokenCount": u.Prompt + u.Completion}
	}
	return out
}

// streamGemini plays a response as streamGenerateContent SSE chunks: the
// text piece by piece, then the calls and the finish reason.
func (v *Vendor) streamGemini(es *eventStream, req VendorRequest, tn Turn, id int) {
	errEvent := func() {
		es.send("", map[string]any{"error": map[string]any{"code": 503, "message": firstOf(tn.Message, "The model is overloaded."), "status": "UNAVAILABLE"}})
	}
	if tn.Reasoning != "" && !es.send("", geminiChunk(tn, req, id, []map[string]any{{"text": tn.Reasoning, "thought": true}}, false)) {
		return
	}
	ps := pieces(tn.Text)
	after := Reply{After: tn.After}.after(len(ps))
	for j := 0; j <= len(ps); j++ {
		if j == after && es.fault(tn, errEvent) {
			return
		}
		for tn.Endless && j < len(ps) {
			if !es.send("", geminiChunk(tn, req, id, []map[string]any{{"text": ps[j]}}, false)) {
				return
			}
		}
		if j < len(ps) && !es.send("", geminiChunk(tn, req, id, []map[string]any{{"text": ps[j]}}, false)) {
			return
		}
	}
	if tn.Unknown {
		es.send("", geminiChunk(tn, req, id, []map[string]any{{"llmtestFuturePart": map[string]any{"x": 1}}}, false))
	}
	var calls []map[string]any
	for _, p := range geminiParts(tn) {
		if _, ok := p["functionCall"]; ok {
			calls = append(calls, p)
		}
	}
	if calls == nil {
		calls = []map[string]any{}
	}
	es.send("", geminiChunk(tn, req, id, calls, true))
}

// RequestText is every text of the request joined with newlines.
func (r VendorRequest) RequestText() string { return strings.Join(r.Texts, "\n") }
