package agent

import (
	"fmt"
	"slices"
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

// walkShot is the screenshot of step i on a screen that changes at every
// step: size bytes, none equal to another step's.
func walkShot(i, size int) llm.Part {
	b := make([]byte, size)
	for j := range b {
		b[j] = byte(i*131 + j*7)
	}
	copy(b, fmt.Sprintf("shot %d;", i))
	return llm.Part{Image: b, ImageMIME: "image/png"}
}

// renderBytes is a request as its bytes, parts in order with images as
// their encoded bytes, and where each image starts: its own offset, or its
// message's when the message holds only images (it goes with them).
func renderBytes(msgs []llm.Message) (body []byte, at map[*byte]int) {
	at = map[*byte]int{}
	for _, m := range msgs {
		start := len(body)
		alone := !slices.ContainsFunc(m.Parts, func(p llm.Part) bool { return !p.IsImage() })
		body = append(body, m.Role...)
		body = append(body, 0)
		for _, p := range m.Parts {
			if len(p.Image) > 0 {
				at[&p.Image[0]] = len(body)
				if alone {
					at[&p.Image[0]] = start
				}
				body = append(body, p.Image...)
			} else {
				body = append(body, p.Text...)
			}
			body = append(body, 1)
		}
	}
	return body, at
}

// The schedule on a screen that changes at every step, walked for 500 steps
// with screenshots that dominate the request's bytes, as they do in a real
// one (a few hundred KB against a few hundred bytes of text a step). At every
// step: the request holds at most keep+chunk-1 images; the newest keep
// screenshots are all there, the turn's own last; each screenshot that left
// the request is, in the layouts that keep its place, the note saying so;
// and the request repeats the one before it up to the first screenshot that
// left, at least, and whole when none left. Images leave on one step in
// chunk, so the mean share of a request repeated as the next one's prefix is
// about 1 - 1/chunk. No schedule that keeps the newest keep screenshots can
// do better at this bound: a step that drops images loses the bytes from the
// first of them to the end, keep-1 kept screenshots included, and drops at
// most chunk of them (docs/benchmarks.md, "A ceiling").
func TestScheduleLongWalk(t *testing.T) {
	const steps, size = 500, 20_000
	layouts := []struct {
		name      string
		h         dialect.History
		keepChunk [][2]int // the defaults (keep 3 or 5, chunk = keep), then others
	}{
		{"code", dialect.History{}, [][2]int{{3, 3}, {2, 4}, {1, 5}, {3, 1}}},
		{"image first", dialect.History{ImageFirst: true}, [][2]int{{3, 3}}},
		{"qwen", dialect.History{ImageFirst: true, DropOldImages: true}, [][2]int{{5, 5}, {3, 3}}},
		{"ui-tars", dialect.History{PromptInUser: true, System: "SYS", SeparateImage: true, DropOldImages: true}, [][2]int{{5, 5}, {1, 5}}},
	}
	for _, l := range layouts {
		for _, kc := range l.keepChunk {
			keep, chunk := kc[0], kc[1]
			t.Run(fmt.Sprintf("%s/keep=%d/chunk=%d", l.name, keep, chunk), func(t *testing.T) {
				walkSchedule(t, l.h, keep, chunk, steps, size)
			})
		}
	}
}

func walkSchedule(t *testing.T, h dialect.History, keep, chunk, steps, size int) {
	c := newConversation(h, keep, chunk)
	sent := []llm.Part{walkShot(0, size)}
	c.start(strings.Repeat("PROMPT ", 300), "first", sent[0])
	prev, prevAt := renderBytes(c.request())
	var shares []float64
	breaks := 0
	for step := 1; step <= steps; step++ {
		c.add("assistant", fmt.Sprintf("Thought: step %d.\n```python\nprint(%d)\n```", step, step))
		s := walkShot(step, size)
		sent = append(sent, s)
		c.user(fmt.Sprintf("Output: %d\nScreen changed: yes", step), nil, s)
		req := c.request()
		n, notes := 0, 0
		for _, m := range req {
			for _, p := range m.Parts {
				if p.IsImage() {
					n++
				}
				if p.Text == prunedNote {
					notes++
				}
			}
		}
		if n > keep+chunk-1 {
			t.Fatalf("step %d: %d images in the request, bound %d", step, n, keep+chunk-1)
		}
		for i := max(0, len(sent)-keep); i < len(sent); i++ {
			if !c.holds(sent[i]) {
				t.Fatalf("step %d: screenshot %d, one of the newest %d, is not in the request", step, i, keep)
			}
		}
		if turn := req[len(req)-1]; !slices.ContainsFunc(turn.Parts, func(p llm.Part) bool { return len(p.Image) > 0 && &p.Image[0] == &s.Image[0] }) {
			t.Fatalf("step %d: the last turn lacks its screenshot: %d parts", step, len(turn.Parts))
		}
		if !h.DropOldImages && n+notes != len(sent) {
			t.Fatalf("step %d: %d images and %d notes for %d screenshots sent", step, n, notes, len(sent))
		}
		body, at := renderBytes(req)
		// The first screenshot of prev that left this request.
		left := len(prev)
		for p, off := range prevAt {
			if _, ok := at[p]; !ok {
				left = min(left, off)
			}
		}
		common := commonLen(prev, body)
		if common < left {
			t.Fatalf("step %d: the request repeats %d bytes of the one before, which holds %d before its first screenshot that left", step, common, left)
		}
		if left < len(prev) {
			breaks++
		}
		shares = append(shares, float64(common)/float64(len(prev)))
		prev, prevAt = body, at
	}
	if most := (steps + chunk - 1) / chunk; breaks > most {
		t.Errorf("%d requests dropped screenshots, want at most one in %d (%d)", breaks, chunk, most)
	}
	late := shares[9:]
	var sum float64
	for _, s := range late {
		sum += s
	}
	mean := sum / float64(len(late))
	slices.Sort(late)
	t.Logf("prefix share over steps 10-%d: mean %.3f, median %.4f, p10 %.3f; %d requests dropped screenshots",
		steps, mean, late[len(late)/2], late[len(late)/10], breaks)
	if want := 1 - 1/float64(chunk) - 0.02; mean < want {
		t.Errorf("mean prefix share %.3f, want at least %.3f (1 - 1/chunk, less 0.02)", mean, want)
	}
}

func commonLen(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
