package script

import (
	"deskpilot/actions"

	"context"
	"image"
	"strings"
	"time"

	"go.starlark.net/starlark"
)

// Tool is one builtin function the model's code can call: its metadata (the
// catalogue, Builtins, declares deskpilot's) and its implementation Fn. Tools
// are registered with New; the Executor renders them as Python-style stubs
// (Stubs) and binds them as Starlark globals that code cannot reassign.
type Tool struct {
	// Name is the Starlark name, a lowercase identifier such as "click". It
	// must be unique, not a keyword and not a Starlark universe name ("len").
	Name string
	// Group orders the stubs: groups appear in the order of their first tool,
	// tools within a group in registration order. "" is the group "other".
	Group string
	// Params are the parameters in call order, shown in the stub and used by
	// Call.Bind. Optional parameters (with a Default) follow required ones.
	Params []Param
	// Returns is the Python return type shown in the stub; "" means "None".
	Returns string
	// Doc is the docstring: a summary line, then any detail. The stub adds an
	// "Args:" section from the Params' Doc.
	Doc string
	// Kind says what the tool acts on; the zero value acts on nothing.
	Kind Kind
	// Risk names the confirmation policy entry covering the tool ("" = none).
	Risk string

	// The traits below say what the tool does, for whoever handles its calls
	// or their records (the guard, the observation's marks, the trace's
	// overlay, the dataset's redaction, what may leave the machine): they ask
	// the tool, never a list of names. docs/contracts.md lists each builtin's.

	// Target says how the tool finds the screen point it acts at (or, for
	// locate, finds): actions.TargetXY from its x and y parameters (x1, y1
	// and x2, y2 for a drag), TargetText, TargetElement, TargetMark or
	// TargetGrounder; "" = it has none. Its action record carries the point
	// it used (Record.Screen) and how it was found (Record.Target).
	Target actions.Target
	// Grounded says that, with a grounder configured, the tool also takes a
	// description of an element instead of x, y (a drag one for each end):
	// the grounder finds the point, and the record's Target says so.
	Grounded bool
	// Gesture is what a pointer tool does at its point; "" = nothing.
	Gesture actions.Gesture
	// Types says what the tool types at the keyboard focus: the text of its
	// argument (TypesText) or a stored secret (TypesSecret); "" = nothing.
	Types actions.Typing
	// Sends names the parameters whose values leave the machine: sent to a
	// web server, a search engine, the desktop's browser or a model; nil =
	// none leaves.
	Sends []string
	// Fn runs the tool. It is called on the Starlark thread's goroutine, one
	// call at a time per Executor. A returned error ends the block with a
	// runtime error whose text the model reads; the Executor prefixes it with
	// "Name: " unless it already starts so. Fn returning nil means None. A
	// panic in Fn becomes a runtime error, never a crash.
	Fn func(c *Call, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)
}

// Traits returns what the tool's action records carry of its traits
// (Call.Log stamps them).
func (t *Tool) Traits() actions.Traits {
	return actions.Traits{Target: t.Target, Gesture: t.Gesture, Types: t.Types}
}

// Param is one parameter of a Tool.
type Param struct {
	Name string // identifier, e.g. "button"
	// Type is the Python type shown in the stub ("int", "str", "float",
	// "bool", "Any", "str | None"); "" shows no annotation. Values are
	// checked by the Args getters, not by Type.
	Type string
	// Default is a Starlark literal, e.g. `"left"`, `3` or `None`, shown in
	// the stub and used when the argument is omitted; "" means required.
	Default string
	// Doc is the one-line description in the stub's Args section.
	Doc string
	// MaxLen is the largest argument the parameter takes: a string's length
	// in characters, any other value's size as its repr would be, in bytes.
	// A larger argument is refused before the builtin runs (in the code's
	// own process, so it never crosses to the agent), with an error naming
	// the limit. Every parameter of the catalogue sets one.
	MaxLen int
}

// Attachment is an image a tool wants the model to see in the next
// observation (screenshot, zoom). Image holds the pixels to show, at the
// size the model should see them; the agent encodes it.
type Attachment struct {
	Label string // one line shown with the image, e.g. "zoom of (10, 20)-(110, 80)"
	Image *image.RGBA
}

// Call is what a Tool's Fn gets besides its arguments: the block's context
// and the means to log actions, sleep and attach images. A Call is valid
// only during the Fn call that received it.
type Call struct {
	// Ctx is cancelled when the block is cancelled (Exec's ctx or
	// Executor.Cancel) or runs out of time; blocking work must honour it.
	Ctx context.Context
	// Name is the name of the tool being called.
	Name string

	r      *run
	tool   *Tool
	args   starlark.Tuple
	kwargs []starlark.Tuple
}

// Log appends a to the block's action log (Result.Actions), stamped with the
// traits of the tool a names (Tool.Traits); a Target a sets is kept, as the
// call's own.
func (c *Call) Log(a actions.Record) {
	if t := c.r.exec.tool(a.Name); t != nil {
		tr := t.Traits()
		if a.Target != "" {
			tr.Target = a.Target
		}
		a.Traits = tr
	}
	c.r.mu.Lock()
	c.r.actions = append(c.r.actions, a)
	c.r.mu.Unlock()
}

// Attach adds an image to the block's attachments (Result.Attachments).
func (c *Call) Attach(a Attachment) {
	c.r.mu.Lock()
	c.r.attached = append(c.r.attached, a)
	c.r.mu.Unlock()
}

// Sleep waits for d without counting it against the block's time limit. It
// returns early with an error when the block is cancelled or ended.
func (c *Call) Sleep(d time.Duration) error {
	if err := c.Ctx.Err(); err != nil {
		return c.stopped()
	}
	if d <= 0 {
		return nil
	}
	defer c.Untimed()()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-c.Ctx.Done():
		return c.stopped()
	}
}

// stopped is the error a blocking call returns once the block was stopped.
func (c *Call) stopped() error {
	if cause := context.Cause(c.Ctx); cause != nil && cause != context.Canceled {
		return cause
	}
	return errCancelled
}

// Untimed stops the block's time-limit clock until the returned function is
// called, for work that waits on something other than the code: a person
// (ask_user, a paused run), the network, a held key. Calls may nest.
func (c *Call) Untimed() (resume func()) {
	c.r.clock.pause()
	done := false
	return func() {
		if !done {
			done = true
			c.r.clock.resume()
		}
	}
}

// TimeLeft is how long the block may still run (time untimed spans take
// does not count); ok is false when the block has no time limit. In a
// sandbox the code's process says so with each call.
func (c *Call) TimeLeft() (left time.Duration, ok bool) { return c.r.clock.remaining() }

// Now returns the current time from Options.Now (time.Now by default).
func (c *Call) Now() time.Time { return c.r.now() }

// Tool is the builtin being called: its catalogue entry.
func (c *Call) Tool() *Tool { return c.tool }

// ArgsText renders the call's arguments as the model wrote them, e.g.
// `640, 400, button="right"`; each value is cut to 200 characters.
func (c *Call) ArgsText() string {
	parts := make([]string, 0, len(c.args)+len(c.kwargs))
	for _, v := range c.args {
		parts = append(parts, shortRepr(v))
	}
	for _, kv := range c.kwargs {
		parts = append(parts, string(kv[0].(starlark.String))+"="+shortRepr(kv[1]))
	}
	return strings.Join(parts, ", ")
}

// shortRepr is v's Starlark repr, middle-cut to at most 200 bytes.
func shortRepr(v starlark.Value) string {
	s := v.String()
	const limit = 200
	if len(s) <= limit {
		return s
	}
	head, tail := cutUTF8(s, limit/2), s[len(s)-limit/2:]
	for len(tail) > 0 && !startsRune(tail) {
		tail = tail[1:]
	}
	return head + "…" + tail
}
