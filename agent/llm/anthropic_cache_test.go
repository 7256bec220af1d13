package llm_test

import (
	"encoding/json"
	"testing"

	"deskpilot/agent/llm"
	"deskpilot/agent/llm/llmtest"
)

// The Messages request marks two prompt-caching breakpoints on its stable
// prefix, as Anthropic's prompt caching guide places them: the last system
// block (the tools come before it and are cached with it) and the last
// block of the newest user turn, so the next request, which repeats all of
// it, reads the whole conversation so far from the cache. No other block
// carries one (the API allows four; older turns need none).
func TestAnthropicCacheBreakpoints(t *testing.T) {
	srv := llmtest.NewVendor(t, llmtest.Anthropic, llmtest.Turn{Text: "ok"})
	shot := llm.Part{Image: pngOf(t, 4, 3), ImageMIME: "image/png"}
	req := llm.Request{MaxTokens: 64, Messages: []llm.Message{
		{Role: "system", Parts: []llm.Part{{Text: "You operate a desktop."}}},
		{Role: "user", Parts: []llm.Part{{Text: "Open the file."}, shot}},
		{Role: "assistant", Parts: []llm.Part{{Text: "I will click it."}}},
		{Role: "user", Parts: []llm.Part{{Text: "done"}, shot}},
	}}
	if _, err := vendorClient(llm.ProviderAnthropic, srv.URL, false).Complete(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	var body struct {
		System []struct {
			Cache json.RawMessage `json:"cache_control"`
		} `json:"system"`
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type  string          `json:"type"`
				Cache json.RawMessage `json:"cache_control"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.System) == 0 || string(body.System[len(body.System)-1].Cache) != `{"type":"ephemeral"}` {
		t.Errorf("the system prompt's last block has no ephemeral breakpoint: %+v", body.System)
	}
	var marked []string
	for i, m := range body.Messages {
		for j, b := range m.Content {
			if b.Cache != nil {
				marked = append(marked, m.Role+"/"+b.Type)
				if i != len(body.Messages)-1 || j != len(m.Content)-1 {
					t.Errorf("message %d block %d (%s %s) carries a breakpoint; only the newest user turn's last block should", i, j, m.Role, b.Type)
				}
			}
		}
	}
	if len(marked) != 1 || marked[0] != "user/image" {
		t.Errorf("breakpoints on %v, want one on the newest user turn's screenshot", marked)
	}
}
