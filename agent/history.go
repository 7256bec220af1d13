package agent

import (
	"slices"

	"deskpilot/agent/dialect"
	"deskpilot/agent/llm"
)

// conversation is a run's message history, laid out as the dialect's model
// family was trained to read it (dialect.History): where the system prompt
// goes, where screenshots sit in a user turn, and what happens to the older
// ones. It lives on the loop goroutine.
type conversation struct {
	layout dialect.History
	keep   int // screenshots kept in a request, at least
	chunk  int // older screenshots leave this many at a time
	msgs   []llm.Message
	system bool // msgs[0] is the system message
}

func newConversation(layout dialect.History, keep, chunk int) *conversation {
	return &conversation{layout: layout, keep: keep, chunk: max(chunk, 1)}
}

// start opens the conversation with the system prompt, the text of the first
// user turn ("" = none) and the first screenshot.
func (c *conversation) start(prompt, first string, shot llm.Part) {
	if c.layout.PromptInUser {
		if c.layout.System != "" {
			c.add("system", c.layout.System)
			c.system = true
		}
		c.add("user", prompt)
	} else {
		c.add("system", prompt)
		c.system = true
	}
	c.user(first, nil, shot)
}

// add appends a message with one text part.
func (c *conversation) add(role, text string) {
	c.msgs = append(c.msgs, textMsg(role, text))
}

// user appends a user turn: its text ("" = none), images attached during the
// step (zoom, screenshot) and the screenshot, placed as the layout says.
func (c *conversation) user(text string, attached []llm.Part, shot llm.Part) {
	imgs := append(slices.Clone(attached), shot)
	var parts []llm.Part
	switch {
	case c.layout.SeparateImage:
		if text != "" {
			c.add("user", text)
		}
		parts = imgs
	case c.layout.ImageFirst:
		parts = imgs
		if text != "" {
			parts = append(parts, llm.Part{Text: text})
		}
	default:
		if text != "" {
			parts = append(parts, llm.Part{Text: text})
		}
		parts = append(parts, imgs...)
	}
	c.msgs = append(c.msgs, llm.Message{Role: "user", Parts: parts})
}

// request is the messages to send now: the newest screenshots kept, older
// ones dropped or replaced by a note as the layout says. They leave in chunks:
// between two chunk boundaries every request is the previous one plus the new
// turns, so a provider's prefix cache (OpenAI, Anthropic, vLLM) serves all but
// the new tail. A screenshot that left is gone from the history too (it never
// comes back), so a long run holds no more than keep+chunk-1 of them.
func (c *conversation) request() []llm.Message {
	c.msgs = pruneImages(c.msgs, c.kept(), c.layout.DropOldImages)
	return slices.Clone(c.msgs)
}

// kept is how many of the history's screenshots to keep: all of them until
// there are keep+chunk, then keep.
func (c *conversation) kept() int {
	n := 0
	for _, m := range c.msgs {
		for _, p := range m.Parts {
			if p.IsImage() {
				n++
			}
		}
	}
	if n >= c.keep+c.chunk {
		return c.keep
	}
	return n
}

// withoutSystem is request without the system message (the step-limit call
// brings its own).
func (c *conversation) withoutSystem() []llm.Message {
	msgs := c.request()
	if c.system && len(msgs) > 0 {
		return msgs[1:]
	}
	return msgs
}
