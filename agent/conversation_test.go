package agent

import (
	"fmt"
	"strings"
	"testing"

	"deskpilot/agent/dialect"
	"deskpilot/agent/llm"
)

// renderMsgs writes messages as role: parts, an image as its URL.
func renderMsgs(msgs []llm.Message) string {
	var lines []string
	for _, m := range msgs {
		var parts []string
		for _, p := range m.Parts {
			if p.ImageURL != "" {
				parts = append(parts, "<"+p.ImageURL+">")
			} else {
				parts = append(parts, p.Text)
			}
		}
		lines = append(lines, m.Role+": "+strings.Join(parts, " | "))
	}
	return strings.Join(lines, "\n")
}

// shot is a stand-in screenshot.
func shot(i int) llm.Part { return llm.Part{ImageURL: fmt.Sprintf("s%d", i)} }

func TestConversationLayouts(t *testing.T) {
	tests := []struct {
		name   string
		layout dialect.History
		keep   int
		want   string
	}{
		{"code: system prompt, text then image, older images noted", dialect.History{}, 2,
			"system: PROMPT\nuser: first | " + prunedNote + "\nassistant: a1\nuser: obs1 | " + prunedNote + "\nassistant: a2\nuser: <z> | <s2>"},
		{"ui-tars: prompt in the first user turn, images alone, old ones dropped",
			dialect.History{PromptInUser: true, System: "You are a helpful assistant.", SeparateImage: true, DropOldImages: true}, 2,
			"system: You are a helpful assistant.\nuser: PROMPT\nuser: first\nassistant: a1\nuser: obs1\nassistant: a2\nuser: <z> | <s2>"},
		{"ui-tars keeping more", dialect.History{PromptInUser: true, SeparateImage: true, DropOldImages: true}, 3,
			"user: PROMPT\nuser: first\nassistant: a1\nuser: obs1\nuser: <s1>\nassistant: a2\nuser: <z> | <s2>"},
		{"qwen: image first, old ones dropped", dialect.History{ImageFirst: true, DropOldImages: true}, 1,
			"system: PROMPT\nuser: first\nassistant: a1\nuser: obs1\nassistant: a2\nuser: <s2>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newConversation(tt.layout, tt.keep, 1)
			c.start("PROMPT", "first", shot(0))
			c.add("assistant", "a1")
			c.user("obs1", nil, shot(1))
			c.add("assistant", "a2")
			c.user("", []llm.Part{{ImageURL: "z"}}, shot(2))
			if got := renderMsgs(c.request()); got != tt.want {
				t.Errorf("request:\n%s\nwant:\n%s", got, tt.want)
			}
			all, rest := c.request(), c.withoutSystem()
			if rest[0].Role == "system" || (all[0].Role == "system") != (len(rest) == len(all)-1) {
				t.Errorf("withoutSystem:\n%s", renderMsgs(rest))
			}
			if c.msgs[len(c.msgs)-1].Parts[len(c.msgs[len(c.msgs)-1].Parts)-1].ImageURL != "s2" {
				t.Errorf("the history itself lost an image: request must prune a copy")
			}
		})
	}
}

// Screenshots leave in chunks: between boundaries each request begins with the
// previous one, byte for byte (what a provider's prompt cache needs), and the
// request never holds fewer than keep nor more than keep+chunk-1 screenshots.
func TestImagesLeaveInChunks(t *testing.T) {
	const keep, chunk = 3, 4
	c := newConversation(dialect.History{}, keep, chunk)
	c.start("PROMPT", "first", shot(0))
	prev := ""
	stable := 0
	for step := 1; step <= 40; step++ {
		c.add("assistant", fmt.Sprintf("reply %d", step))
		c.user(fmt.Sprintf("obs %d", step), nil, shot(step))
		req := c.request()
		n := 0
		for _, m := range req {
			for _, p := range m.Parts {
				if p.IsImage() {
					n++
				}
			}
		}
		if total := step + 1; n < min(keep, total) || n > keep+chunk-1 {
			t.Fatalf("step %d: %d screenshots in the request", step, n)
		}
		got := renderMsgs(req)
		if strings.HasPrefix(got, prev) {
			stable++
		}
		prev = got
	}
	// The prefix breaks once per chunk, so at least (chunk-1)/chunk of the
	// requests extend the one before.
	if stable < 40*(chunk-1)/chunk-1 {
		t.Errorf("%d of 40 requests extended the previous one", stable)
	}
}
