package agent

import (
	"context"
	"errors"
	"fmt"
	"image"
	"slices"

	"deskpilot/agent/script"
	"deskpilot/agent/trace"
	"deskpilot/vision"
)

// replayCheck compares the screen with a replay's recording: before a step's
// code runs (Console.Step) and where played code calls checkpoint. The run's
// constructor wires it; runs that replay nothing have none. Its methods run
// on the loop's or the script's goroutine, one at a time.
type replayCheck struct {
	a      *Agent    // the screen, the display and the pointer compared
	replay *replayer // the recording, and what the checks decided
	// exec tells the catalogue's kind of a recorded action (pointer
	// actions' points are compared).
	exec interface{ Kind(name string) script.Kind }
	// ownIgnore lists deskpilot's own windows in frame pixels, never
	// compared.
	ownIgnore func() []image.Rectangle
	// screen is the display as the run captures it: secrets masked, as
	// they were on the recorded frames.
	screen vision.Capturer
}

// target is one point a recorded pointer action aimed at, in the pixels of
// the recorded frame.
type target struct {
	action string
	at     image.Point
}

// check compares the screen now with the frame recorded step saw and the
// neighbourhood of each point its pointer actions aimed at. It returns the
// check and, for targets found elsewhere, where the replayed code's screen
// points should go. A Go error means the screen could not be captured.
func (r *replayCheck) check(ctx context.Context, step int) (Check, map[vision.ScreenPoint]vision.ScreenPoint, error) {
	now, err := r.screen.Capture(ctx)
	if err != nil {
		return Check{Step: step, Need: 1 - r.replay.tolerance()}, nil, fmt.Errorf("checkpoint: screenshot: %w", err)
	}
	c, moves := r.checkFrame(step, now)
	return c, moves, nil
}

// checkFrame is check against now, a capture of the screen: a takeover
// compares one capture with every recorded step it may resume at.
func (r *replayCheck) checkFrame(step int, now *image.RGBA) (Check, map[vision.ScreenPoint]vision.ScreenPoint) {
	p := r.replay
	c := Check{Step: step, Need: 1 - p.tolerance()}
	st, ok := p.rec.Trace.Step(step)
	if !ok || st.Frame == "" {
		c.Note = fmt.Sprintf("no frame was recorded for step %d: not checked", step)
		return c, nil
	}
	rec, _, _, err := trace.DecodeFrame(p.rec.Trace.Dir, st.Frame)
	if err != nil {
		c.Note, c.Diverged = fmt.Sprintf("the recorded frame cannot be read: %v", err), true
		return c, nil
	}
	rb := rec.Bounds()
	if rb.Size() != now.Rect.Size() {
		c.Note, c.Diverged = fmt.Sprintf("the screen is %dx%d; it was %dx%d when recorded", now.Rect.Dx(), now.Rect.Dy(), rb.Dx(), rb.Dy()), true
		return c, nil
	}
	// Everything below is in the pixels of the frames (both start at the
	// display's top-left corner); org turns them into root coordinates now.
	org := r.a.Display.Min
	rec = offsetTo(rec, now.Rect.Min)
	// deskpilot's windows now, the pointer, and what was masked when the
	// frame was recorded (the app's own window) are not compared.
	at, pointer := r.pointerAt(now.Rect.Min)
	ignore := append(r.checkIgnore(now.Rect.Min, at, pointer), vision.MaskedAreas(rec)...)
	compare := func(ignore []image.Rectangle) (Check, map[vision.ScreenPoint]vision.ScreenPoint) {
		c := c
		lk := vision.Compare(now, rec, ignore)
		c.Screen = lk.Score
		if !lk.Diff.Empty() {
			c.Differs = lk.Diff.Sub(now.Rect.Min).Add(org)
		}
		moves := map[vision.ScreenPoint]vision.ScreenPoint{}
		for _, tg := range r.targets(st, now.Rect.Min) {
			tc, found := checkTarget(now, rec, tg, ignore, c.Need)
			tc.At = tc.At.Sub(now.Rect.Min).Add(org)
			if found != nil {
				f := found.Sub(now.Rect.Min).Add(org)
				tc.Found = &f
				moves[vision.ScreenPoint(tc.At)] = vision.ScreenPoint(f)
			}
			c.Targets = append(c.Targets, tc)
		}
		c.Diverged = r.diverges(&c)
		return c, moves
	}
	checked, moves := compare(ignore)
	// A screen that differs may differ only by the control the pointer
	// lights up: compared again without it.
	if checked.Diverged && pointer {
		if h := hoverArea(now, rec, at, pointerSprite(at)); !h.Empty() {
			checked, moves = compare(append(ignore, h))
			checked.Hover = h.Sub(now.Rect.Min).Add(org)
		}
	}
	return checked, moves
}

// diverges decides a check: a target that is neither in place nor found
// diverges; a moved target diverges unless the replay adapts; a screen that
// looks too different diverges, unless the replay adapts and either every
// target of the step is located or an earlier step was adapted (once the
// layout has moved, the screen as a whole cannot look as recorded).
func (r *replayCheck) diverges(c *Check) bool {
	p := r.replay
	adapt := p.rec.Adapt
	for _, t := range c.Targets {
		inPlace := t.Score >= c.Need
		if !inPlace && (t.Found == nil || !adapt) {
			return true
		}
	}
	if c.Screen >= c.Need {
		return false
	}
	p.mu.Lock()
	moved := p.adapted
	p.mu.Unlock()
	c.Relaxed = adapt && (len(c.Targets) > 0 || moved)
	return !c.Relaxed
}

// checkTarget compares the neighbourhood of one target and, when it does
// not look as recorded, searches the screen for it: with the neighbourhood
// first, then with larger ones while a smaller one is plain or fits several
// places (the middle of an empty text field). found is where the target is
// now (frame pixels) when it moved.
func checkTarget(now *image.RGBA, rec image.Image, tg target, ignore []image.Rectangle, need float64) (TargetCheck, *image.Point) {
	tc := TargetCheck{Action: tg.action, At: tg.at}
	patch := square(tg.at, targetSide).Intersect(now.Rect)
	if patch.Empty() {
		tc.Why = "it is off the screen"
		return tc, nil
	}
	tc.Score = vision.Compare(now.SubImage(patch), subImage(rec, patch), ignore).Score
	if tc.Score >= need {
		return tc, nil // in place
	}
	for side := targetSide; side <= searchSide; side *= 2 {
		r := square(tg.at, side).Intersect(now.Rect)
		m, err := vision.FindTemplate(now, subImage(rec, r))
		if errors.Is(err, vision.ErrFlatTemplate) {
			tc.Why = "its neighbourhood is plain, so it cannot be searched for"
			continue
		}
		if err != nil {
			tc.Why = err.Error()
			return tc, nil
		}
		at := m.At.Add(tg.at.Sub(r.Min))
		tc.Match = m.Score
		switch {
		case m.Score < matchMin:
			tc.Why = fmt.Sprintf("not found elsewhere (best match %.2f)", m.Score)
			return tc, nil
		case m.Next > m.Score-matchMargin:
			tc.Why = fmt.Sprintf("it fits more than one place (matches %.2f and %.2f)", m.Score, m.Next)
		case at == tg.at:
			tc.Why = "it is in place but looks different"
			return tc, nil
		default:
			tc.Why = ""
			return tc, &at
		}
	}
	return tc, nil
}

// square is the square of side s centred on c.
func square(c image.Point, s int) image.Rectangle {
	return image.Rect(c.X-s/2, c.Y-s/2, c.X+s/2, c.Y+s/2)
}

// targets are the points step's pointer actions aimed at, in frame pixels
// (the frames' top-left corner at min), each once.
func (r *replayCheck) targets(st trace.Step, min image.Point) []target {
	org := image.Point{}
	if s := r.replay.rec.Trace.Start.Screen; s != nil {
		org = image.Pt(s.X, s.Y)
	}
	var out []target
	add := func(name string, p *[2]int) {
		if p == nil {
			return
		}
		t := target{name, image.Pt(p[0], p[1]).Sub(org).Add(min)}
		if !slices.ContainsFunc(out, func(o target) bool { return o.at == t.at }) {
			out = append(out, t)
		}
	}
	for _, a := range st.Actions {
		if a.Error != "" || r.exec.Kind(a.Name) != script.KindPointer {
			continue
		}
		add(a.Name, a.Screen)
		add(a.Name, a.To)
	}
	return out
}

// checkIgnore is what a check does not compare, in the pixels of a frame
// whose top-left corner is min: deskpilot's own windows and the pointer's
// image when it is on the display (at, from pointerAt).
func (r *replayCheck) checkIgnore(min, at image.Point, pointer bool) []image.Rectangle {
	var out []image.Rectangle
	for _, w := range r.ownIgnore() {
		out = append(out, w.Add(min))
	}
	if pointer {
		out = append(out, pointerSprite(at))
	}
	return out
}

// pointerAt is the pointer's hotspot in the pixels of a frame whose
// top-left corner is min, when it is on the display.
func (r *replayCheck) pointerAt(min image.Point) (image.Point, bool) {
	if r.a.Cursor == nil {
		return image.Point{}, false
	}
	c, err := r.a.Cursor()
	if err != nil || !c.In(r.a.Display) {
		return image.Point{}, false
	}
	return c.Sub(r.a.Display.Min).Add(min), true
}

// pointerSprite is where the pointer's image may lie when its hotspot is at:
// an arrow hangs right and down.
func pointerSprite(at image.Point) image.Rectangle {
	return image.Rect(at.X-4, at.Y-4, at.X+28, at.Y+36)
}

// subImage is the part r of img (whose bounds r lies in).
func subImage(img image.Image, r image.Rectangle) image.Image {
	if s, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	}); ok {
		return s.SubImage(r)
	}
	return vision.Crop(toRGBA(img), r)
}

// offsetTo returns img with its top-left corner at min (a decoded frame
// starts at (0, 0); a capture may not).
func offsetTo(img image.Image, min image.Point) image.Image {
	if img.Bounds().Min == min {
		return img
	}
	out := toRGBA(img)
	out.Rect = out.Rect.Sub(out.Rect.Min).Add(min)
	return out
}

// toRGBA copies img into a new RGBA image with the same bounds.
func toRGBA(img image.Image) *image.RGBA {
	if m, ok := img.(*image.RGBA); ok {
		return vision.Crop(m, m.Rect)
	}
	b := img.Bounds()
	out := image.NewRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			out.Set(x, y, img.At(x, y))
		}
	}
	return out
}
