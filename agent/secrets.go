package agent

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"slices"
	"sync"

	"go.starlark.net/starlark"

	"deskpilot/a11y"
	"deskpilot/agent/script"
	"deskpilot/agent/secret"
	"deskpilot/vision"
)

// Secrets in a run (docs: README, "Secrets"): every text that leaves the
// loop (events, hence the trace, the terminal and the app; the model's
// messages; tool results handed to the code) passes the run's
// secret.Redactor. Where a secret is typed, the field is found before the
// first key (its accessible element, else after typing the words OCR reads
// that match it or its bullets) and painted over in every frame taken from
// then on, and a value read back from it reaches the code and the model as
// [secret:NAME].

// SecretFilter returns the Redactor the agent's runs use: Agent.Redactor, or
// one of its own holding Secrets and Redact. Safe from any goroutine.
func (a *Agent) SecretFilter() *secret.Redactor {
	a.redMu.Lock()
	defer a.redMu.Unlock()
	r := a.Redactor
	if r == nil {
		if a.ownRed == nil {
			a.ownRed = &secret.Redactor{}
		}
		r = a.ownRed
	}
	r.AddSecrets(a.Secrets)
	for _, k := range a.Redact {
		r.AddKey(k)
	}
	return r
}

// redact hides the run's secrets in s.
func (r *runState) redact(s string) string { return r.red.Text(s) }

// redactEvent returns e with every text in it redacted; TextDelta goes
// through the run's stream filter instead (deliver).
func (r *runState) redactEvent(e Event) Event {
	t := r.red.Text
	switch e := e.(type) {
	case RunStarted:
		e.Task, e.Model = t(e.Task), t(e.Model)
		return e
	case ModelReplied:
		e.Text = t(e.Text)
		return e
	case CodeParsed:
		e.Code, e.Thought = t(e.Code), t(e.Thought)
		return e
	case ActionDone:
		e.Action.Args, e.Action.Result, e.Action.Error = t(e.Action.Args), t(e.Action.Result), t(e.Action.Error)
		return e
	case Observed:
		e.Text, e.Error = t(e.Text), t(e.Error)
		if len(e.Attachments) > 0 {
			atts := slices.Clone(e.Attachments)
			for i := range atts {
				atts[i].Label = t(atts[i].Label)
			}
			e.Attachments = atts
		}
		return e
	case Paused:
		e.Reason = t(e.Reason)
		return e
	case Finished:
		e.Answer, e.Error = t(e.Answer), t(e.Error)
		return e
	}
	return e
}

// streamDelta passes a piece of the model's reply through the run's stream
// filter: what could start a secret waits for the next piece.
func (r *runState) streamDelta(e TextDelta) TextDelta {
	if e.Reset {
		r.stream.Reset()
	}
	e.Text = r.stream.Push(e.Text)
	return e
}

// maskColour paints the fields secrets were typed into.
var maskColour = color.RGBA{R: 0x30, G: 0x30, B: 0x38, A: 0xff}

// fieldPad widens a masked field, in screen pixels, over its border and
// caret.
const fieldPad = 3

// field is a place on the screen that may show a secret.
type field struct {
	name string          // the secret typed there; "" for a password field
	id   string          // the accessible element (a11y.Element.ID); "" when found by OCR
	box  image.Rectangle // root coordinates; empty while it is not on the screen
}

// secretFields are the run's fields to mask. Safe for concurrent use: the
// code's goroutine adds fields while the loop captures.
type secretFields struct {
	mu     sync.Mutex
	fields []field
	ocr    []string // secrets typed where no accessible element was found: looked for by OCR
}

// add records a field, or updates the one of the same element.
func (s *secretFields) add(f field) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, g := range s.fields {
		if f.id != "" && g.id == f.id {
			if f.name != "" {
				s.fields[i].name = f.name
			}
			s.fields[i].box = f.box
			return
		}
		if f.id == "" && g.id == "" && g.box == f.box {
			return
		}
	}
	s.fields = append(s.fields, f)
}

// lookByText notes that the secret called name is to be looked for by OCR.
func (s *secretFields) lookByText(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.ocr, name) {
		s.ocr = append(s.ocr, name)
	}
}

// byOCR reports whether secrets are looked for by OCR.
func (s *secretFields) byOCR() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ocr) > 0
}

// tracked reports whether a field follows an accessible element.
func (s *secretFields) tracked() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.ContainsFunc(s.fields, func(f field) bool { return f.id != "" })
}

// boxes are the areas to paint over, root coordinates.
func (s *secretFields) boxes() []image.Rectangle {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []image.Rectangle
	for _, f := range s.fields {
		if !f.box.Empty() {
			out = append(out, f.box.Inset(-fieldPad))
		}
	}
	return out
}

// element hides what an accessible element gives away of a secret: the text
// of a field a secret was typed into becomes its placeholder (what it held
// is kept secret too), a password field's place is masked, and every text
// is redacted. It also moves the field's mask along with the element.
func (s *secretFields) element(e a11y.Element, red *secret.Redactor) a11y.Element {
	id := e.ID()
	s.mu.Lock()
	for i, f := range s.fields {
		if f.id == "" || f.id != id {
			continue
		}
		s.fields[i].box = e.Bounds
		if f.name != "" {
			red.AddReadBack(f.name, e.Text)
			if e.Name == e.Text {
				e.Name = secret.Placeholder(f.name)
			}
			e.Text = secret.Placeholder(f.name)
		}
	}
	s.mu.Unlock()
	if e.Role == passwordRole {
		s.add(field{id: id, box: e.Bounds})
		e.Text = ""
	}
	e.Name, e.Text, e.Description = red.Text(e.Name), red.Text(e.Text), red.Text(e.Description)
	return e
}

// gone empties the boxes of tracked fields a whole walk of the tree did not
// find: their element is not on the screen.
func (s *secretFields) gone(seen map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.fields {
		if f.id != "" && !seen[f.id] {
			s.fields[i].box = image.Rectangle{}
		}
	}
}

// passwordRole is the AT-SPI role of a field that shows bullets.
const passwordRole = "password text"

// paint masks the fields on frame, a capture of display (root coordinates).
func (s *secretFields) paint(frame *image.RGBA, display image.Rectangle) {
	if frame == nil {
		return
	}
	shift := frame.Rect.Min.Sub(display.Min)
	for _, b := range s.boxes() {
		b = b.Add(shift).Intersect(frame.Rect)
		if !b.Empty() {
			draw.Draw(frame, b, image.NewUniform(maskColour), image.Point{}, draw.Src)
		}
	}
}

// maskedScreen is the target display as the run captures it for the model,
// the trace, OCR and the grounder: the fields of typed secrets painted over.
type maskedScreen struct {
	r *runState
}

func (m maskedScreen) Capture(ctx context.Context) (*image.RGBA, error) {
	f, err := m.r.a.Screen.Capture(ctx)
	if err == nil {
		m.r.fields.paint(f, m.r.a.Display)
	}
	return f, err
}

func (m maskedScreen) CaptureInto(ctx context.Context, dst *image.RGBA) (*image.RGBA, error) {
	f, err := vision.CaptureInto(ctx, m.r.a.Screen, dst)
	if err == nil {
		m.r.fields.paint(f, m.r.a.Display)
	}
	return f, err
}

// secretElements is the accessibility tree as the run reads it (secretFields.element).
type secretElements struct {
	inner script.ElementFinder
	r     *runState
}

func (s secretElements) Elements(ctx context.Context, q a11y.Query) ([]a11y.Element, a11y.Note, error) {
	els, note, err := s.inner.Elements(ctx, q)
	whole := err == nil && isZeroQuery(q) && len(note.Cut) == 0
	seen := map[string]bool{}
	for i := range els {
		seen[els[i].ID()] = true
		els[i] = s.r.fields.element(els[i], s.r.red)
	}
	if whole {
		s.r.fields.gone(seen)
	}
	return els, note, err
}

func isZeroQuery(q a11y.Query) bool {
	return q.Name == "" && q.Role == "" && len(q.States) == 0 && q.Within.Empty() && !q.Interactive
}

// elementsOf is the tree the run reads; nil when there is none.
func (r *runState) elementsOf() script.ElementFinder {
	if r.a.Elements == nil {
		return nil
	}
	return secretElements{inner: r.a.Elements, r: r}
}

// beforeTyping runs before type_text and type_secret type (name is the
// secret's, "" for type_text): it finds the field the keys go to, the
// focused accessible element, and masks it from now on when a secret goes
// there or it is a password field. The function it returns runs after the
// keys: a secret typed where the tree shows no field is looked for by OCR.
func (r *runState) beforeTyping(ctx context.Context, name string) func(context.Context) {
	var focused *a11y.Element
	if r.a.Elements != nil {
		focused = r.focusedField(ctx)
	}
	switch {
	case focused != nil && name != "":
		r.fields.add(field{name: name, id: focused.ID(), box: focused.Bounds})
	case focused != nil && focused.Role == passwordRole:
		r.fields.add(field{id: focused.ID(), box: focused.Bounds})
	}
	if name == "" || focused != nil {
		return nil
	}
	return func(ctx context.Context) {
		r.fields.lookByText(name)
		if err := r.screenAnswered(ctx); err != nil {
			return
		}
		if f, err := r.screen.Capture(ctx); err == nil {
			r.maskText(ctx, f)
		}
	}
}

// focusedField is the focused element that takes text, or nil.
func (r *runState) focusedField(ctx context.Context) *a11y.Element {
	els, _, err := r.a.Elements.Elements(ctx, a11y.Query{States: []string{"focused"}})
	if err != nil {
		return nil
	}
	var best *a11y.Element
	for i, e := range els {
		if !e.Has("editable") && e.Role != passwordRole {
			continue
		}
		if best == nil || e.Depth > best.Depth {
			best = &els[i]
		}
	}
	return best
}

// maskText finds on frame (of the target display) the words OCR
// reads that show a secret typed where no accessible field was found, or
// the bullets that stand for one, and masks them from now on.
func (r *runState) maskText(ctx context.Context, frame *image.RGBA) {
	if r.a.Text == nil || !r.fields.byOCR() {
		return
	}
	text, err := r.a.Text.ReadText(ctx, frame)
	if err != nil {
		return
	}
	shift := r.a.Display.Min.Sub(frame.Rect.Min)
	for _, w := range text.Words() {
		name, ok := r.red.Find(w.Text)
		if !ok && !secret.Masked(w.Text) {
			continue
		}
		if !ok {
			name = ""
		}
		r.fields.add(field{name: name, box: w.Box.Add(shift)})
	}
}

// lookForSecrets refreshes the masks before an observation: the tracked
// fields' places from a walk of the tree (unless the observation walks it
// anyway), and what OCR reads on frame of secrets typed where the tree had
// none. It then paints frame again with what it found.
func (r *runState) lookForSecrets(ctx context.Context, frame *image.RGBA) {
	if r.fields.tracked() && r.a.Elements != nil && !r.cfg.Marks && !r.cfg.ObserveA11y {
		_, _, _ = r.elements.Elements(ctx, a11y.Query{})
	}
	r.maskText(ctx, frame)
	r.fields.paint(frame, r.a.Display)
}

// checkLaunch refuses a command line that carries a secret: the program
// could send it anywhere.
func (r *runState) checkLaunch(line string) error {
	if err := r.red.CheckText("launch", "its command line", line); err != nil {
		return fmt.Errorf("launch: %w", err)
	}
	return nil
}

// checkSends makes every tool whose arguments leave the machine (the
// catalogue's Sends: an address, a search query, a question for a model)
// refuse a call that would send a secret in one of them, before it runs; the
// model reads why. The catalogue decides which: no list of names here.
func (r *runState) checkSends(ts []script.Tool) []script.Tool {
	for i := range ts {
		t := ts[i]
		if len(t.Sends) == 0 {
			continue
		}
		fn := t.Fn
		ts[i].Fn = func(c *script.Call, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := r.checkSendArgs(&t, args, kwargs); err != nil {
				return nil, err
			}
			return fn(c, args, kwargs)
		}
	}
	return ts
}

// checkSendArgs refuses args (bound to t's parameters as Bind does) when one
// that t sends holds a secret.
func (r *runState) checkSendArgs(t *script.Tool, args starlark.Tuple, kwargs []starlark.Tuple) error {
	check := func(name string, v starlark.Value) error {
		if !slices.Contains(t.Sends, name) {
			return nil
		}
		text := v.String()
		if s, ok := v.(starlark.String); ok {
			text = string(s)
		}
		return r.red.CheckArg(t.Name, name, text)
	}
	for i, v := range args {
		if i < len(t.Params) {
			if err := check(t.Params[i].Name, v); err != nil {
				return err
			}
		}
	}
	for _, kv := range kwargs {
		if k, ok := kv[0].(starlark.String); ok {
			if err := check(string(k), kv[1]); err != nil {
				return err
			}
		}
	}
	return nil
}
