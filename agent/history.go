package agent

import (
	"bytes"
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
	// last is the newest screenshot sent as an image; a user turn whose
	// screenshot is the same picture sends unchangedNote instead (see user).
	last llm.Part
}

func newConversation(layout dialect.History, keep, chunk int) *conversation {
	return &conversation{layout: layout, keep: keep, chunk: max(chunk, 1)}
}

// unchangedNote stands in a user turn for a screenshot that is, pixel for
// pixel, the newest one the request already holds.
const unchangedNote = "[screenshot not repeated: the screen is exactly as in the newest screenshot above]"

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
//
// A screenshot that is the same picture as the newest one sent (the same
// encoded bytes: same pixels, cursor and marks), while that one is still in
// the history, is sent as unchangedNote instead: the model learns nothing
// from a second copy, the request gains no image, and so no older image has
// to leave for it. A run that waits, prints or thinks on a still screen then
// sends requests that each extend the previous one, which a provider's prefix
// cache serves whole. Layouts that drop old images (the families trained on a
// screenshot in every turn) always get the screenshot.
func (c *conversation) user(text string, attached []llm.Part, shot llm.Part) {
	if c.elides() && c.holds(c.last) && samePicture(shot, c.last) {
		shot = llm.Part{Text: unchangedNote}
	} else if shot.IsImage() {
		c.last = shot
	}
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

// elides reports whether the layout lets an unchanged screenshot be a note.
func (c *conversation) elides() bool {
	return !c.layout.DropOldImages && !c.layout.SeparateImage
}

// holds reports whether the history still holds the image part p (the same
// bytes or URL, not a copy): it has not been pruned.
func (c *conversation) holds(p llm.Part) bool {
	if !p.IsImage() {
		return false
	}
	for _, m := range c.msgs {
		for _, q := range m.Parts {
			if len(p.Image) > 0 && len(q.Image) == len(p.Image) && &q.Image[0] == &p.Image[0] {
				return true
			}
			if p.Image == nil && q.Image == nil && q.ImageURL == p.ImageURL {
				return true
			}
		}
	}
	return false
}

// samePicture reports whether a and b are the same encoded image.
func samePicture(a, b llm.Part) bool {
	if !a.IsImage() || !b.IsImage() {
		return false
	}
	if a.Image != nil || b.Image != nil {
		return a.ImageMIME == b.ImageMIME && bytes.Equal(a.Image, b.Image)
	}
	return a.ImageURL == b.ImageURL
}

// request is the messages to send now: the newest screenshots kept, older
// ones dropped or replaced by a note as the layout says. They leave in chunks:
// between two chunk boundaries every request is the previous one plus the new
// turns, so a provider's prefix cache (OpenAI, Anthropic, vLLM) serves all but
// the new tail. A screenshot that left is gone from the history too (it never
// comes back), so a long run holds no more than keep+chunk-1 of them.
//
// On a screen that changes at every step no schedule that keeps the newest
// keep screenshots does better at that bound: a request that drops some loses
// the bytes from the first one dropped to its end, keep-1 screenshots of the
// request before included, and drops at most chunk. Keeping older "anchor"
// screenshots instead makes every request lose two (docs/benchmarks.md, "the
// ceiling, and the schedules tried").
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
