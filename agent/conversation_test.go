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

func TestConversationLayouts(t *testing.T) {
	shot := func(i int) llm.Part { return llm.Part{ImageURL: fmt.Sprintf("s%d", i)} }
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
			c := newConversation(tt.layout, tt.keep)
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
