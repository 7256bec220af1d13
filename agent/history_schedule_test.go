package agent

import (
	"fmt"
	"strings"
	"testing"

	"deskpilot/agent/dialect"
	"deskpilot/agent/llm"
)

// images counts the image parts of msgs and returns the URL of the newest
// screenshot among them (an "s…" stand-in; "z…" are attachments).
func images(msgs []llm.Message) (n int, newest string) {
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.IsImage() {
				n++
				if strings.HasPrefix(p.ImageURL, "s") {
					newest = p.ImageURL
				}
			}
		}
	}
	return n, newest
}

// The schedule's invariants over a long run whose screen sometimes changes,
// sometimes not, with zoom attachments now and then: a request never holds
// more than keep+chunk-1 images; the model always sees the screen as it is
// now, either as the turn's own image or, when the screen is unchanged, as
// the note pointing to the newest screenshot of the request, which is that
// same picture; and a still screen's requests each extend the previous one.
func TestScheduleInvariants(t *testing.T) {
	const keep, chunk, steps = 3, 3, 120
	for _, layout := range []struct {
		name  string
		h     dialect.History
		elide bool
	}{
		{"code", dialect.History{}, true},
		{"image first", dialect.History{ImageFirst: true}, true},
		{"qwen: images dropped, never elided", dialect.History{ImageFirst: true, DropOldImages: true}, false},
		{"ui-tars: separate images, never elided", dialect.History{SeparateImage: true, DropOldImages: true}, false},
	} {
		t.Run(layout.name, func(t *testing.T) {
			c := newConversation(layout.h, keep, chunk)
			screen := 0 // the picture now on screen
			c.start("PROMPT", "first", shot(screen))
			prev := renderMsgs(c.request())
			notes, extended, still := 0, 0, 0
			for step := 1; step <= steps; step++ {
				// The screen changes on two steps of every seven.
				changes := step%7 == 2 || step%7 == 5
				if changes {
					screen++
				}
				var att []llm.Part
				if step%11 == 0 {
					att = []llm.Part{{ImageURL: fmt.Sprintf("z%d", step)}}
				}
				c.add("assistant", fmt.Sprintf("reply %d", step))
				c.user(fmt.Sprintf("obs %d", step), att, shot(screen))
				req := c.request()
				n, newest := images(req)
				if n > keep+chunk-1 {
					t.Fatalf("step %d: %d images in the request, bound %d", step, n, keep+chunk-1)
				}
				turn := req[len(req)-1]
				last := turn.Parts[len(turn.Parts)-1] // text, then the screenshot
				if layout.h.ImageFirst {
					last = turn.Parts[len(att)] // the attachments, the screenshot, then text
				}
				switch {
				case last.ImageURL == shot(screen).ImageURL:
				case last.Text == unchangedNote:
					notes++
					if !layout.elide {
						t.Fatalf("step %d: layout %q got the note instead of its screenshot", step, layout.name)
					}
					if newest != shot(screen).ImageURL {
						t.Fatalf("step %d: the note points to %q, the screen shows %q", step, newest, shot(screen).ImageURL)
					}
				default:
					t.Fatalf("step %d: the turn neither shows the screen nor says it is unchanged: %+v", step, turn.Parts)
				}
				got := renderMsgs(req)
				if strings.HasPrefix(got, prev) {
					extended++
				}
				if !changes && att == nil {
					still++
				}
				prev = got
			}
			if layout.elide {
				// Only a change of screen brings a new image, so images leave
				// at most once per chunk changes: most requests extend the last.
				if notes < still/2 {
					t.Errorf("%d of %d still steps sent the note", notes, still)
				}
				if extended < steps*8/10 {
					t.Errorf("%d of %d requests extended the previous one", extended, steps)
				}
			} else if notes != 0 {
				t.Errorf("%d notes in a layout that drops images", notes)
			}
		})
	}
}

// A screenshot equal to one that has left the request is sent again as an
// image: the note never points at a picture the model no longer has.
func TestUnchangedNoteNeedsItsImage(t *testing.T) {
	c := newConversation(dialect.History{}, 1, 1)
	c.start("PROMPT", "first", shot(0))
	c.add("assistant", "zoom")
	// A zoom attachment pushes the screenshot out (keep 1).
	c.user("obs", []llm.Part{{ImageURL: "z"}, {ImageURL: "z2"}}, llm.Part{Text: "no screenshot"})
	c.request()
	c.add("assistant", "look")
	c.user("obs", nil, shot(0))
	req := c.request()
	turn := req[len(req)-1]
	if last := turn.Parts[len(turn.Parts)-1]; last.ImageURL != "s0" {
		t.Fatalf("the screenshot whose twin left the request: got %+v, want the image again", last)
	}
}

// Encoded screenshots (the bytes the agent sends) compare by content.
func TestSamePictureByBytes(t *testing.T) {
	a := llm.Part{Image: []byte("png-1"), ImageMIME: "image/png"}
	b := llm.Part{Image: []byte("png-1"), ImageMIME: "image/png"}
	d := llm.Part{Image: []byte("png-2"), ImageMIME: "image/png"}
	c := newConversation(dialect.History{}, 3, 3)
	c.start("PROMPT", "first", a)
	c.add("assistant", "x")
	c.user("same", nil, b)
	c.add("assistant", "y")
	c.user("changed", nil, d)
	req := c.request()
	if got := req[3].Parts[len(req[3].Parts)-1]; got.Text != unchangedNote {
		t.Errorf("an identical screenshot was sent again: %+v", got)
	}
	if got := req[5].Parts[len(req[5].Parts)-1]; string(got.Image) != "png-2" {
		t.Errorf("a changed screenshot was not sent: %+v", got)
	}
}
