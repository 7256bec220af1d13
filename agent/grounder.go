package agent

import (
	"context"
	"fmt"
	"image"
	"sync/atomic"
	"unicode/utf8"

	"deskpilot/agent/dialect"
	"deskpilot/agent/llm"
	"deskpilot/agent/script"
	"deskpilot/vision"
)

// Grounder is a grounding model (--grounder): the planner, in the code
// dialect, describes an element — click("the Save button"), locate(...) —
// and the agent asks this model where it is on a fresh screenshot, sent at
// the grounder's own image size, reads the point in the grounder's own
// space and maps it onto the screen with a vision.Mapper built from that
// space. The action then goes through the same guard as any other.
type Grounder struct {
	Model   Model            // the grounder's endpoint
	Name    string           // its model name, for observations and traces
	Dialect dialect.Grounder // how it is asked and how its reply is read
}

// groundMaxTokens bounds a grounder's reply: a point, or a short thought and
// one action.
const groundMaxTokens = 512

// maxGroundings is how many times one block may ask the grounder. Each call is
// a model call (seconds and tokens) that the block's time limit does not count,
// so a loop of locate() calls ends here instead of running up the bill.
const maxGroundings = 16

// groundReplyCut is how much of a grounder's reply the action log keeps.
const groundReplyCut = 300

// groundUsage counts the grounder's tokens. Grounding runs on the script's
// goroutine, the count is read on the loop's.
type groundUsage struct{ in, out atomic.Int64 }

func (g *groundUsage) add(u llm.Usage) {
	g.in.Add(int64(u.Input))
	g.out.Add(int64(u.Output))
}

func (g *groundUsage) load() Usage {
	return Usage{Input: int(g.in.Load()), Output: int(g.out.Load())}
}

// add returns the sum of two counts.
func (u Usage) add(v Usage) Usage {
	return Usage{Input: u.Input + v.Input, Output: u.Output + v.Output}
}

// locator asks the run's grounder (Agent.Grounder) where described elements
// are on the screen now, at most maxGroundings times a block, and counts the
// grounder's tokens. The run's constructor wires it. ground runs on the
// script's goroutine; grounded is read on the loop's.
type locator struct {
	a        *Agent
	cfg      Config                   // MaxSide
	attEnc   vision.Encoder           // encodes the grounder's screenshot
	ownRects func() []image.Rectangle // deskpilot's windows, masked on it
	screen   vision.Capturer          // the display as the run captures it (secrets masked)
	redact   func(string) string      // the run's redactor, on the description sent

	grounded   groundUsage  // the grounder's tokens
	groundings atomic.Int32 // grounder calls in the block running now
}

// execBlock runs one block of code, with a fresh count of groundings.
func (r *runState) execBlock(ctx context.Context, code string) script.Result {
	r.locator.groundings.Store(0)
	return r.exec.Exec(ctx, code)
}

// groundFn is the desktop builtins' grounder; nil when none is configured.
func (r *locator) groundFn() func(ctx context.Context, description string) (script.Grounding, error) {
	if r.a.Grounder == nil {
		return nil
	}
	return r.ground
}

// ground asks the grounder where the described element is on the screen now.
// What goes wrong is an error for the planner, who may describe the element
// again or give coordinates: a failed call, a reply without a point (its
// reply is kept in the Grounding), a point outside the grounder's space.
func (r *locator) ground(ctx context.Context, description string) (script.Grounding, error) {
	g := r.a.Grounder
	if n := r.groundings.Add(1); n > maxGroundings {
		return script.Grounding{Grounder: g.Name}, fmt.Errorf("the grounder was asked %d times in this block already, the most one block may; act on what you found and go on in the next block", maxGroundings)
	}
	sp := g.Dialect.Space(r.a.Display.Size(), r.cfg.MaxSide)
	m := vision.Mapper{Display: r.a.Display, Image: sp.Image, Mode: sp.Mode}
	res := script.Grounding{Grounder: g.Name, Space: fmt.Sprintf("%dx%d image (%s)", sp.Image.X, sp.Image.Y, sp.Mode)}
	frame, err := r.screen.Capture(ctx)
	if err != nil {
		return res, fmt.Errorf("screenshot for the grounder: %w", err)
	}
	obs := vision.Observer{Mapper: m, Encoder: r.attEnc}
	o, err := obs.Observe(frame, vision.Overlay{Mask: r.ownRects()})
	if err != nil {
		return res, fmt.Errorf("screenshot for the grounder: %w", err)
	}
	system, user := g.Dialect.GroundingPrompt(r.redact(description), sp)
	var msgs []llm.Message
	if system != "" {
		msgs = append(msgs, textMsg("system", system))
	}
	msgs = append(msgs, llm.Message{Role: "user", Parts: []llm.Part{{Image: o.Data, ImageMIME: o.Format.MIME()}, {Text: user}}})
	zero := 0.0
	resp, err := g.Model.Complete(ctx, llm.Request{Messages: msgs, MaxTokens: groundMaxTokens, Temperature: &zero}, nil)
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		return res, fmt.Errorf("the grounder %s could not be asked where %q is: %w; give x and y instead", g.Name, description, err)
	}
	r.grounded.add(resp.Usage)
	res.Reply = clip(resp.Text, groundReplyCut)
	p, err := g.Dialect.ParsePoint(resp.Text, sp)
	if err != nil {
		// The planner cannot fix the grounder's format: it is told what the
		// grounder said, not how the reply should have looked.
		return res, &NoPointError{Grounder: g.Name, Description: description, Reply: clip(resp.Text, 200), Err: err}
	}
	res.Point = p
	if res.At, err = m.ToScreen(p); err != nil {
		return res, fmt.Errorf("the grounder %s answered a point for %q outside its %s: %w", g.Name, description, res.Space, err)
	}
	return res, nil
}

// NoPointError is a grounder's reply without a point for a description. It
// unwraps to the reader's error (dialect.ErrNoPoint when the reply holds no
// point at all).
type NoPointError struct {
	Grounder, Description, Reply string
	Err                          error
}

func (e *NoPointError) Error() string {
	return fmt.Sprintf("the grounder %s found no point for %q (it answered %q); describe the element differently, or give x and y",
		e.Grounder, e.Description, e.Reply)
}

func (e *NoPointError) Unwrap() error { return e.Err }

// clip cuts s to at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
