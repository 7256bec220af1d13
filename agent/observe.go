package agent

import (
	"context"
	"fmt"
	"image"
	"slices"
	"strings"
	"time"

	"deskpilot/actions"
	"deskpilot/agent/dialect"
	"deskpilot/agent/llm"
	"deskpilot/agent/script"
	"deskpilot/vision"
)

// touchesScreen reports whether any action may have changed the screen: a
// builtin whose kind acts on the desktop (script.Kind.Acts). After the others
// the screen is looked at once, without waiting for it to settle.
func (r *runState) touchesScreen(acts []actions.Record) bool {
	for _, a := range acts {
		if r.exec.Kind(a.Name).Acts() {
			return true
		}
	}
	return false
}

// settleInterval is the time between the captures that watch the screen settle after
// a step's actions. Apps answer a click within a frame or two; a slower change (an app
// starting) is the model's to wait for.
const settleInterval = 15 * time.Millisecond

// SettleOptions are the settings the agent watches the screen settle with
// after a step's actions (ignore: regions that count neither way, such as
// deskpilot's own windows). `deskpilot bench` measures settle_ms with them.
func SettleOptions(ignore []image.Rectangle) vision.SettleOptions {
	return vision.SettleOptions{Interval: settleInterval, Patience: 1, Ignore: ignore}
}

// observeStep settles the screen after the step's actions and builds the
// observation: the text the dialect's model is sent (its Historian's phrasing
// of the step), the images attached during the step and the new screenshot.
// notes reach every dialect (format help, a cut reply); hints only the code
// dialect's full text.
func (r *runState) observeStep(ctx context.Context, res script.Result, notes, hints []string, start time.Time) (observation, error) {
	frame, changed, settle, err := r.afterStep(ctx, r.touchesScreen(res.Actions))
	if err != nil {
		return observation{}, err
	}
	r.marks = marksFor(res.Actions)
	v, err := r.observe(ctx, frame)
	if err != nil {
		return observation{}, err
	}
	attached, labels, sent, err := r.encodeAttachments(res.Attachments)
	if err != nil {
		return observation{}, err
	}
	paused := pauseNotes(r.session.gate.takeNotes())
	problems := slices.Concat(notes, paused)
	if res.Err != nil {
		problems = append(problems, "Your last action failed: "+r.stepError(res.Err))
	}
	full := r.stepText(res, slices.Concat(paused, notes, hints), changed, settle, labels)
	// A secret's value can come back in what the code printed (a file, a
	// page): neither the model nor anyone watching sees it.
	text := r.redact(withLayers(r.hist.Observation(dialect.Outcome{Task: r.task, Text: full, Output: res.Output, Problems: problems}), v.notes))
	shown := text
	if shown == "" {
		shown = screenshotOnly
	}
	ev := v.observed(r.step, shown)
	ev.Changed, ev.Duration, ev.Settle, ev.Attachments = changed, r.a.now().Sub(start), settle, sent
	ev.Output = r.redact(res.Output)
	if res.Err != nil {
		ev.Error = r.redact(res.Err.Error())
	}
	r.disp.emit(ev)
	return observation{text: text, attached: attached, shot: v.part()}, nil
}

// stepError is a step's error as the model reads it. A model that wrote the
// program (the code dialect, pyautogui) gets it whole, with the line and the
// source; the others never saw the program deskpilot compiled from their
// reply, so they get the message alone.
func (r *runState) stepError(e *script.Error) string {
	if _, modules := r.dialect.(dialect.Moduler); modules || r.dialect.Name() == dialect.Default {
		return e.Error()
	}
	msg, _, _ := strings.Cut(e.Msg, "\n")
	if e.Kind == script.KindRuntime {
		msg = strings.TrimPrefix(msg, fmt.Sprintf("error at line %d: ", e.Line))
	}
	return msg
}

// screenshotOnly is the observation event's text when the model was sent the
// screenshot alone (families trained on screenshot-only turns).
const screenshotOnly = "[the screenshot alone, as the dialect's model expects]"

// stepText is the code dialect's observation of a step: output, actions,
// error, notes, whether the screen changed and what images come with it.
func (r *runState) stepText(res script.Result, notes []string, changed bool, settle time.Duration, attached []string) string {
	var b strings.Builder
	if res.Output != "" {
		b.WriteString("Printed output:\n")
		b.WriteString(res.Output)
		if !strings.HasSuffix(res.Output, "\n") {
			b.WriteByte('\n')
		}
	}
	b.WriteString(describeActions(res.Actions))
	if res.Err != nil {
		fmt.Fprintf(&b, "Error: %s\nFix the problem and try again; if it keeps failing, try a different approach.\n", res.Err.Error())
	}
	for _, n := range notes {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	if res.Final == nil {
		if changed {
			fmt.Fprintf(&b, "Screen changed: yes (settled after %d ms).\n", settle.Milliseconds())
		} else if r.touchesScreen(res.Actions) {
			fmt.Fprintf(&b, "Screen changed: no (watched for %d ms). If you expected a change it may still come: wait(1) and look again; otherwise try something different.\n", settle.Milliseconds())
		} else {
			b.WriteString("Screen changed: no.\n")
		}
	}
	for _, l := range attached {
		fmt.Fprintf(&b, "Attached image: %s.\n", l)
	}
	b.WriteString(screenNow)
	return b.String()
}

// pauseNotes tells the model the person had the desktop, with what they said
// on resume.
func pauseNotes(said []string) []string {
	var out []string
	for _, n := range said {
		s := "Note: the agent was paused and the person may have used the desktop meanwhile; then they let you continue."
		if n != "" {
			s += fmt.Sprintf(" They said: %q.", n)
		}
		out = append(out, s+" Things may have moved: look at the new screenshot before acting.")
	}
	return out
}

// encodeAttachments encodes the images tools attached during the step: as
// message parts, their labels, and as the trace records them.
func (r *runState) encodeAttachments(atts []script.Attachment) (parts []llm.Part, labels []string, sent []Attachment, err error) {
	for _, at := range atts {
		data, err := r.attEnc.Encode(at.Image)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("encode %s: %w", at.Label, err)
		}
		parts = append(parts, llm.Part{Image: data, ImageMIME: r.attEnc.Format.MIME()})
		labels = append(labels, at.Label)
		sent = append(sent, Attachment{Label: at.Label, Data: data, Format: r.attEnc.Format.Ext()})
	}
	return parts, labels, sent, nil
}

// afterStep takes the frame that shows the step's effect: when the step acted on
// the desktop it waits for the screen to settle; otherwise one capture. deskpilot's
// own windows (its live view changes all the time) count neither for settling nor
// for "changed".
func (r *runState) afterStep(ctx context.Context, acted bool) (*image.RGBA, bool, time.Duration, error) {
	before := r.frame
	r.reuse.kept = false
	r.ownBefore = r.ownRects()
	ignore := r.ownIgnore()
	if !acted {
		f, err := vision.CaptureInto(ctx, r.screen, r.reuse.spare)
		if err != nil {
			return nil, false, 0, fmt.Errorf("screenshot: %w", err)
		}
		same := vision.Same(before, f, ignore)
		if same && before == r.reuse.seen && r.masksNothing() {
			// Nothing changed: before stays the frame (outside deskpilot's
			// windows, which the view masks, it is f), and f's buffer is
			// the next capture's.
			r.reuse.spare, r.reuse.kept = f, true
			return before, false, 0, nil
		}
		r.frame, r.reuse.spare = f, nil
		return f, !same, 0, nil
	}
	sr, err := vision.Settle(ctx, r.screen, before, SettleOptions(ignore))
	if err != nil {
		return nil, false, 0, fmt.Errorf("settle: %w", err)
	}
	r.frame = sr.Frame
	return sr.Frame, sr.Changed, sr.Elapsed, nil
}

// masksNothing reports whether no secret's field is painted over the
// captures, nor looked for on them: a frame is then never written to once
// captured, so afterStep may keep one.
func (r *runState) masksNothing() bool {
	return !r.fields.byOCR() && !r.fields.tracked() && len(r.fields.boxes()) == 0
}

// ownIgnore is deskpilot's own windows in the coordinates of a frame of the
// target display: areas that count neither for settling nor for "changed".
func (r *runState) ownIgnore() []image.Rectangle {
	var ignore []image.Rectangle
	for _, w := range r.ownRects() {
		ignore = append(ignore, w.Sub(r.a.Display.Min))
	}
	return ignore
}

// marksFor draws the step's pointer actions (those with a gesture at their
// point) on the next screenshot (the last three).
func marksFor(acts []actions.Record) []vision.Mark {
	var marks []vision.Mark
	for _, x := range acts {
		if x.Screen == nil || x.Error != "" || x.Gesture == "" {
			continue
		}
		mk := vision.Mark{Kind: vision.MarkClick, At: image.Pt(x.Screen[0], x.Screen[1]), Label: x.Name}
		if x.To != nil {
			mk.Kind, mk.To = vision.MarkDrag, image.Pt(x.To[0], x.To[1])
		}
		marks = append(marks, mk)
	}
	if len(marks) > 3 {
		marks = marks[len(marks)-3:]
	}
	return marks
}
