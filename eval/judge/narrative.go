package judge

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"strings"

	"deskpilot/agent/convo"
	"deskpilot/agent/trace"
	"deskpilot/vision"
)

// Attempt is one attempt of a task, as the judge is told of it.
type Attempt struct {
	// N is the attempt's number, from 1.
	N int
	// Trace is the attempt's trace folder; "" when it left none.
	Trace string
	// Answer is its final answer, Exit its exit code (0 answered, 1 failed,
	// 3 step limit), Error what stopped its run ("" when nothing did).
	Answer string
	Exit   int
	Error  string
}

// Sizes of a narrative's images.
const (
	// CropW and CropH are the size of a crop around a step's target, in
	// screen pixels: enough to read a field or a line of a terminal
	// around the point acted on.
	CropW, CropH = 480, 320
	// DefaultImageSteps is how many of an attempt's steps (the last ones)
	// carry their before and after crops; earlier steps are told in text.
	DefaultImageSteps = 5
)

// image is one picture of a narrative: its name in the judge's trace and
// its PNG bytes.
type picture struct {
	name string
	png  []byte
}

// narrative is one attempt's behaviour narrative: text and pictures in the
// order the judge reads them.
type narrative struct {
	parts []part
}

// part is a text or a picture.
type part struct {
	text string
	pic  *picture
}

func (n *narrative) say(format string, args ...any) {
	n.parts = append(n.parts, part{text: fmt.Sprintf(format, args...)})
}

func (n *narrative) show(p picture) { n.parts = append(n.parts, part{pic: &p}) }

// buildNarrative tells what attempt a did, step by step, from its trace:
// the actions with their results, the effect the agent measured (the
// screen changed during the step, or not) and, for the last imageSteps
// steps, crops of the screen before and after around the step's target.
func buildNarrative(a Attempt, imageSteps int) *narrative {
	n := &narrative{}
	n.say("=== Attempt %d ===\n", a.N)
	if a.Trace == "" {
		n.say("No trace was recorded for this attempt.\n%s", ending(a))
		return n
	}
	t, err := trace.Read(a.Trace)
	if err != nil {
		n.say("Its trace could not be read (%v).\n%s", err, ending(a))
		return n
	}
	var steps []trace.Step
	for _, s := range t.Steps {
		if s.Number >= 1 {
			steps = append(steps, s)
		}
	}
	n.say("%d steps.\n", len(steps))
	origin := image.Point{}
	if sc := t.Start.Screen; sc != nil {
		origin = image.Pt(sc.X, sc.Y)
	}
	var target *image.Point // the last point acted on: typing goes there
	for i, s := range steps {
		for _, act := range s.Actions {
			if act.Screen != nil {
				p := image.Pt(act.Screen[0], act.Screen[1]).Sub(origin)
				target = &p
			}
		}
		n.say("\nStep %d:\n%s", s.Number, stepText(s))
		if i >= len(steps)-imageSteps && s.Observation != nil {
			n.crops(t, a.N, s, target)
		}
	}
	n.say("\n%s", ending(a))
	return n
}

// stepText is what a step did and what followed, in words.
func stepText(s trace.Step) string {
	var b strings.Builder
	if len(s.Actions) == 0 {
		b.WriteString("  did: no action")
		if s.Answer != "" {
			b.WriteString(" (gave its final answer)")
		}
		b.WriteString("\n")
	}
	for _, a := range s.Actions {
		fmt.Fprintf(&b, "  did: %s(%s)", a.Name, cut(a.Args, 200))
		if a.Screen != nil {
			fmt.Fprintf(&b, " at screen (%d, %d)", a.Screen[0], a.Screen[1])
		}
		switch {
		case a.Error != "":
			fmt.Fprintf(&b, " → error: %s", cut(a.Error, 200))
		case a.Result != "":
			fmt.Fprintf(&b, " → %s", cut(a.Result, 200))
		}
		b.WriteString("\n")
	}
	o := s.Observation
	if o == nil {
		b.WriteString("  effect: unknown (the step did not finish)\n")
		return b.String()
	}
	if o.Changed {
		b.WriteString("  effect: changed (the screen changed during the step)\n")
	} else {
		b.WriteString("  effect: no_change (the screen did not change during the step)\n")
	}
	if o.Error != "" {
		fmt.Fprintf(&b, "  error: %s\n", cut(oneLine(o.Error), 300))
	}
	if txt := strings.TrimSpace(o.Text); txt != "" {
		fmt.Fprintf(&b, "  observation: %s\n", cut(oneLine(txt), 300))
	}
	return b.String()
}

// crops shows the screen before and after step s around target, or around
// the region that changed when that lies elsewhere (typing into a field
// changes the screen away from the click that focused it); the whole
// screen, scaled down, when the run had acted on no point yet and nothing
// changed.
func (n *narrative) crops(t *trace.Trace, attempt int, s trace.Step, target *image.Point) {
	if s.Frame == "" || s.Observation.Frame == "" {
		return
	}
	var frames [2]*image.RGBA
	for i, rel := range []string{s.Frame, s.Observation.Frame} {
		img, _, _, err := trace.DecodeFrame(t.Dir, rel)
		if err != nil {
			n.say("  (no image of the screen: %v)\n", err)
			return
		}
		frames[i] = toRGBA(img)
	}
	before, after := frames[0], frames[1]
	changed, count := diffRect(before, after)
	if count > 0 {
		n.say("  pixels changed: %d, within (%d, %d)-(%d, %d) of the screen\n", count, changed.Min.X, changed.Min.Y, changed.Max.X, changed.Max.Y)
	} else {
		n.say("  pixels changed: none\n")
	}
	region, where := cropRegion(before.Bounds(), target, changed)
	for _, f := range []struct {
		which string
		img   *image.RGBA
	}{{"before", before}, {"after", after}} {
		data, err := cropPNG(f.img, region)
		if err != nil {
			n.say("  (%s: no image: %v)\n", f.which, err)
			continue
		}
		n.say("  screen %s the step, %s:\n", f.which, where)
		n.show(picture{name: fmt.Sprintf("a%d-s%d-%s.png", attempt, s.Number, f.which), png: data})
	}
}

// cropRegion is the part of the screen a step's crops show, and its
// description: CropW x CropH around the target, unless the change lies
// outside that; then the changed region (at least CropW x CropH); the
// whole screen without either.
func cropRegion(bounds image.Rectangle, target *image.Point, changed image.Rectangle) (image.Rectangle, string) {
	around := func(c image.Point) image.Rectangle {
		return shiftInto(image.Rect(0, 0, CropW, CropH).Add(c.Sub(image.Pt(CropW/2, CropH/2))), bounds)
	}
	if target != nil {
		r := around(*target)
		if changed.Empty() || changed.Overlaps(r) {
			return r, fmt.Sprintf("%dx%d pixels around the point acted on (%d, %d), from (%d, %d)", r.Dx(), r.Dy(), target.X, target.Y, r.Min.X, r.Min.Y)
		}
	}
	if !changed.Empty() {
		c := image.Pt((changed.Min.X+changed.Max.X)/2, (changed.Min.Y+changed.Max.Y)/2)
		r := around(c).Union(changed).Intersect(bounds)
		return r, fmt.Sprintf("the %dx%d pixels around where the screen changed, from (%d, %d)", r.Dx(), r.Dy(), r.Min.X, r.Min.Y)
	}
	return bounds, "the whole screen"
}

// cropPNG encodes region of img as PNG, scaled down to fit CropW x CropH
// when larger.
func cropPNG(img *image.RGBA, region image.Rectangle) ([]byte, error) {
	out := vision.Crop(img, region)
	if region.Dx() > CropW || region.Dy() > CropH {
		fit := vision.ScaledSize(region.Dx(), region.Dy(), CropW)
		if fit.Y > CropH {
			fit = image.Pt(max(fit.X*CropH/fit.Y, 1), CropH)
		}
		out = vision.Downscale(out, fit)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// diffRect is the smallest rectangle holding every pixel that differs
// between a and b (of the same bounds), and how many differ.
func diffRect(a, b *image.RGBA) (image.Rectangle, int) {
	if a.Bounds() != b.Bounds() {
		return a.Bounds(), a.Bounds().Dx() * a.Bounds().Dy()
	}
	var r image.Rectangle
	n := 0
	w := a.Bounds().Dx()
	for y := range a.Bounds().Dy() {
		ra, rb := a.Pix[y*a.Stride:][:4*w], b.Pix[y*b.Stride:][:4*w]
		if bytes.Equal(ra, rb) {
			continue
		}
		for x := range w {
			if ra[4*x] != rb[4*x] || ra[4*x+1] != rb[4*x+1] || ra[4*x+2] != rb[4*x+2] {
				n++
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r, n
}

func toRGBA(img image.Image) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rectangle{Max: b.Size()})
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	return out
}

// shiftInto moves r inside bounds, shrinking it only when it is larger.
func shiftInto(r, bounds image.Rectangle) image.Rectangle {
	if d := bounds.Min.X - r.Min.X; d > 0 {
		r = r.Add(image.Pt(d, 0))
	}
	if d := bounds.Min.Y - r.Min.Y; d > 0 {
		r = r.Add(image.Pt(0, d))
	}
	if d := r.Max.X - bounds.Max.X; d > 0 {
		r = r.Sub(image.Pt(d, 0))
	}
	if d := r.Max.Y - bounds.Max.Y; d > 0 {
		r = r.Sub(image.Pt(0, d))
	}
	return r.Intersect(bounds)
}

// ending is how the attempt ended, in words.
func ending(a Attempt) string {
	how := map[int]string{0: "it gave a final answer", 1: "it failed", 3: "it reached the step limit", 130: "it was stopped"}[a.Exit]
	if how == "" {
		how = fmt.Sprintf("it ended with exit code %d", a.Exit)
	}
	s := "End: " + how
	if a.Answer != "" {
		s += fmt.Sprintf("; its final answer: %q", cut(a.Answer, 500))
	}
	if a.Error != "" {
		s += "; what went wrong: " + cut(oneLine(a.Error), 300)
	}
	return s + ".\n"
}

// convoParts turns the narrative into message parts.
func (n *narrative) convoParts() []convo.Part {
	var out []convo.Part
	for _, p := range n.parts {
		if p.pic != nil {
			out = append(out, convo.Part{Image: p.pic.png, ImageMIME: "image/png"})
			continue
		}
		if k := len(out) - 1; k >= 0 && !out[k].IsImage() {
			out[k].Text += p.text
			continue
		}
		out = append(out, convo.Part{Text: p.text})
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cut shortens s to n bytes at a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
