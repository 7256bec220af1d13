package agent

import (
	"cmp"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"deskpilot/a11y"
	"deskpilot/agent/script"
	"deskpilot/vision"
)

// Grounding in the observation: set-of-marks (Config.Marks) and the "a11y" and
// "ocr" layers (Config.ObserveA11y, ObserveOCR), all computed from the frame
// the observation shows, with one walk of the accessibility tree and one OCR
// read (its cache skips what did not change) per observation.

// Limits of what an observation adds.
const (
	// maxMarks is the most numbered boxes a screenshot carries.
	maxMarks = 150
	// markName is the most characters of a mark's name listed.
	markName = 40
	// minMarkSide is the smallest width and height of a marked element.
	minMarkSide = 4
	// minWordConf is the least OCR confidence of a word that gets a mark.
	minWordConf = 0.6
	// wordPad widens a word's box, in screen pixels, so its frame does not
	// cover the letters.
	wordPad = 3
	// a11yTableChars and ocrLayerChars budget the layers (about 4 characters
	// a token).
	a11yTableChars = 4000
	ocrLayerChars  = 3000
)

// layers computes what an observation adds to its screenshot: set-of-marks
// and the a11y and ocr layers (look). The run's constructor wires it; it
// runs on the loop's goroutine.
type layers struct {
	a        *Agent        // the engines (Elements, Text) and the display
	cfg      Config        // Marks, ObserveA11y, ObserveOCR
	mapper   vision.Mapper // positions written as the model's points
	onScreen grounding     // the marks of the newest screenshot, for click_mark
	// elements is the tree as the run reads it (secrets hidden, their fields
	// followed: agent/secrets.go); nil when there is none.
	elements script.ElementFinder
}

// markRoleWord is the role of a mark on a word read by OCR.
const markRoleWord = "word"

// grounding holds the marks of the newest screenshot: the loop sets them,
// click_mark reads them from the code's goroutine.
type grounding struct {
	mu    sync.Mutex
	marks []script.Mark
	// seen is when the screen was last known to show the agent's actions:
	// the newest observation, or a wait for the screen's answer since.
	seen time.Time
}

// saw records that the screen showed everything the agent did until t.
func (g *grounding) saw(t time.Time) {
	g.mu.Lock()
	g.seen = t
	g.mu.Unlock()
}

func (g *grounding) set(marks []script.Mark) {
	g.mu.Lock()
	g.marks = marks
	g.mu.Unlock()
}

func (g *grounding) get() []script.Mark {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.marks
}

// groundTools are the grounding builtins (script.Ground) over the agent's
// engines: deskpilot's own windows are never searched, click_mark reads the
// marks of the newest screenshot.
func (r *runState) groundTools(d script.DesktopDeps) []script.Tool {
	return script.Ground(d, script.GroundDeps{
		Text: r.a.Text, Elements: r.elements, Exclude: r.ownRects,
		Marks:  func() ([]script.Mark, bool) { return r.layers.onScreen.get(), r.cfg.Marks },
		Settle: r.screenAnswered,
	})
}

// screenAnswered waits, before a grounding builtin reads the screen, until
// the screen shows the app's answer to the agent's last primitive of the
// block: find_text right after the click that opens a menu must read the
// menu. Without a primitive since the screen was last seen it returns at
// once.
func (r *runState) screenAnswered(ctx context.Context) error {
	r.input.mu.Lock()
	last := r.input.acted
	r.input.mu.Unlock()
	shown := &r.layers.onScreen
	shown.mu.Lock()
	seen := shown.seen
	shown.mu.Unlock()
	if !last.After(seen) {
		return nil
	}
	if err := r.screenAnswer(ctx, last); err != nil {
		return err
	}
	shown.saw(time.Now())
	return nil
}

// screenAnswer waits until the whole screen (deskpilot's windows aside) shows
// an answer to the primitive that ended at acted: a change from the frame
// the step started from, then two equal frames in a row; at least keyGap
// after acted, at most clickAnswerTimeout (an action that changes nothing
// costs that once).
func (r *runState) screenAnswer(ctx context.Context, acted time.Time) error {
	// awaitAnswer keeps only the last frame, so each capture goes into the
	// frame before it: two buffers, whatever the number of polls.
	var frames [2]*image.RGBA
	n := 0
	return awaitAnswer(ctx, acted, r.frame, r.ownIgnore(), func(ctx context.Context) (*image.RGBA, error) {
		f, err := vision.CaptureInto(ctx, r.a.Screen, frames[n%2])
		if err != nil {
			return nil, fmt.Errorf("screenshot: %w", err)
		}
		frames[n%2] = f
		n++
		return f, nil
	})
}

// look computes what an observation of frame adds to the screenshot: the
// set-of-marks boxes to draw (root coordinates) and the text that lists them,
// then the a11y and ocr layers, each as configured. own are deskpilot's
// windows (root coordinates), left out of all of it. An engine that fails
// becomes a line of the text; the error is ctx's only.
func (r *layers) look(ctx context.Context, frame *image.RGBA, own []image.Rectangle) ([]vision.BoxMark, string, error) {
	r.onScreen.saw(time.Now()) // the frame shows every primitive so far
	c := r.cfg
	if !c.Marks && !c.ObserveA11y && !c.ObserveOCR {
		return nil, "", nil
	}
	var elems []a11y.Element
	var treeNote string
	if c.Marks || c.ObserveA11y {
		var err error
		if elems, treeNote, err = r.lookElements(ctx, own); err != nil {
			return nil, "", err
		}
	}
	windows := windowRects(elems)
	var text script.ScreenText
	var textNote string
	if c.Marks || c.ObserveOCR {
		blank := own
		if !c.ObserveOCR {
			blank = slices.Concat(own, windows) // their controls are marked from the tree
		}
		var err error
		if text, textNote, err = r.lookText(ctx, frame, blank); err != nil {
			return nil, "", err
		}
	}
	var b strings.Builder
	var boxes []vision.BoxMark
	if c.Marks {
		marks := r.marksOf(elems, windows, text, frame)
		r.onScreen.set(marks)
		boxes = make([]vision.BoxMark, len(marks))
		for i, m := range marks {
			boxes[i] = vision.BoxMark{N: m.N, Box: m.Box}
		}
		writeMarks(&b, marks, treeNote, textNote)
	}
	if c.ObserveA11y {
		r.writeTable(&b, elems, treeNote)
	}
	if c.ObserveOCR {
		r.writeLayer(&b, text, textNote, frame)
	}
	return boxes, b.String(), nil
}

// lookElements reads the visible elements outside own; note says why there are
// none, or what the walk left out.
func (r *layers) lookElements(ctx context.Context, own []image.Rectangle) ([]a11y.Element, string, error) {
	if r.elements == nil {
		return nil, "unavailable: no accessibility engine in this deskpilot", nil
	}
	els, note, err := r.elements.Elements(ctx, a11y.Query{})
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		return nil, "unavailable: " + err.Error(), nil
	}
	out := els[:0:0]
	for _, e := range els {
		if !inRects(e.Center(), own) {
			out = append(out, e)
		}
	}
	return out, strings.ReplaceAll(note.String(), "\n", "; "), nil
}

// lookText reads the text of frame with the blank areas (root coordinates)
// painted white on a copy first: deskpilot's own windows, and the windows
// whose controls the tree already gives.
func (r *layers) lookText(ctx context.Context, frame *image.RGBA, blank []image.Rectangle) (script.ScreenText, string, error) {
	if r.a.Text == nil {
		return nil, "unavailable: reading text on the screen (OCR) is not available in this deskpilot", nil
	}
	shift := frame.Rect.Min.Sub(r.a.Display.Min)
	src := frame
	for _, b := range blank {
		b = b.Add(shift).Intersect(frame.Rect)
		if b.Empty() {
			continue
		}
		if src == frame { // the frame is the observation's: paint a copy
			src = &image.RGBA{Pix: slices.Clone(frame.Pix), Stride: frame.Stride, Rect: frame.Rect}
		}
		draw.Draw(src, b, image.NewUniform(color.White), image.Point{}, draw.Src)
	}
	t, err := r.a.Text.ReadText(ctx, src)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		return nil, "unavailable: " + err.Error(), nil
	}
	return t, "", nil
}

// windowRects are the top-level windows among elems: the areas of the
// applications that have an accessibility tree.
func windowRects(elems []a11y.Element) []image.Rectangle {
	var out []image.Rectangle
	for _, e := range elems {
		if isWindowRole(e.Role) {
			out = append(out, e.Bounds)
		}
	}
	return out
}

// isWindowRole reports the AT-SPI roles of top-level windows.
func isWindowRole(role string) bool {
	switch role {
	case "frame", "dialog", "window", "alert", "file chooser":
		return true
	}
	return false
}

// inRects reports whether p lies in one of rs.
func inRects(p image.Point, rs []image.Rectangle) bool {
	for _, r := range rs {
		if p.In(r) {
			return true
		}
	}
	return false
}

// marksOf numbers the controls of the screen: the interactive elements of the
// tree, then the words read outside the windows of apps with a tree (frame
// pixels), each in reading order; at most maxMarks.
func (r *layers) marksOf(elems []a11y.Element, windows []image.Rectangle, text script.ScreenText, frame *image.RGBA) []script.Mark {
	display := r.a.Display
	var marks []script.Mark
	seen := map[image.Rectangle]bool{}
	for _, e := range elems {
		b := e.Bounds.Intersect(display)
		if !e.Interactive || isWindowRole(e.Role) || b.Dx() < minMarkSide || b.Dy() < minMarkSide ||
			2*area(b) > area(display) || seen[b] {
			continue
		}
		seen[b] = true
		marks = append(marks, script.Mark{Role: e.Role, Name: e.Name, Box: b})
	}
	var words []script.Mark
	if text != nil {
		shift := display.Min.Sub(frame.Rect.Min)
		for _, w := range text.Words() {
			b := w.Box.Add(shift).Inset(-wordPad).Intersect(display)
			c := image.Pt((b.Min.X+b.Max.X)/2, (b.Min.Y+b.Max.Y)/2)
			if w.Conf < minWordConf || !hasWordRune(w.Text) || b.Empty() || inRects(c, windows) {
				continue
			}
			words = append(words, script.Mark{Role: markRoleWord, Name: w.Text, Box: b})
		}
	}
	readingOrder(marks)
	readingOrder(words)
	marks = append(marks, words...)
	if len(marks) > maxMarks {
		marks = marks[:maxMarks]
	}
	for i := range marks {
		marks[i].N = i + 1
	}
	return marks
}

// readingOrder sorts marks top to bottom, then left to right, rows being
// boxes whose tops lie within 8 pixels.
func readingOrder(marks []script.Mark) {
	slices.SortStableFunc(marks, func(a, b script.Mark) int {
		if d := a.Box.Min.Y - b.Box.Min.Y; d > 8 || d < -8 {
			return cmp.Compare(a.Box.Min.Y, b.Box.Min.Y)
		}
		return cmp.Compare(a.Box.Min.X, b.Box.Min.X)
	})
}

func area(r image.Rectangle) int { return r.Dx() * r.Dy() }

func hasWordRune(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// writeMarks lists the marks for the observation.
func writeMarks(b *strings.Builder, marks []script.Mark, treeNote, textNote string) {
	if len(marks) == 0 {
		b.WriteString("Marks: none; no control was found on the screen.")
		for _, n := range []string{treeNote, textNote} {
			if n != "" {
				b.WriteString(" " + n + ".")
			}
		}
		b.WriteByte('\n')
		return
	}
	b.WriteString("Marks on the screenshot (click_mark(n) clicks the centre of box n):\n")
	for _, m := range marks {
		fmt.Fprintf(b, "[%d] %s %q\n", m.N, m.Role, a11y.CleanText(m.Name, markName))
	}
	if len(marks) == maxMarks {
		fmt.Fprintf(b, "(only the first %d controls are marked)\n", maxMarks)
	}
}

// writeTable adds the a11y layer: the visible elements as a table.
func (r *layers) writeTable(b *strings.Builder, elems []a11y.Element, note string) {
	b.WriteString("Accessible elements (centre and size in your coordinates):")
	if len(elems) == 0 {
		if note == "" {
			note = "none"
		}
		b.WriteString(" " + note + "\n")
		return
	}
	b.WriteByte('\n')
	table, _ := a11y.Linearize(elems, a11y.TableOptions{MaxChars: a11yTableChars, Format: r.boxText})
	b.WriteString(table)
	if note != "" {
		b.WriteString("Note: " + note + "\n")
	}
}

// writeLayer adds the ocr layer: the screen's text lines with their centres.
func (r *layers) writeLayer(b *strings.Builder, text script.ScreenText, note string, frame *image.RGBA) {
	b.WriteString("Text on the screen ((x, y) is the centre of each line, in your coordinates):")
	if text == nil {
		b.WriteString(" " + note + "\n")
		return
	}
	shift := r.a.Display.Min.Sub(frame.Rect.Min)
	layer := text.Layer(ocrLayerChars, func(p image.Point) string {
		p = p.Add(shift)
		s, err := script.PointText(r.mapper, vision.ScreenPoint{X: p.X, Y: p.Y})
		if err != nil {
			return "?"
		}
		return s
	})
	if layer == "" {
		b.WriteString(" none read\n")
		return
	}
	b.WriteByte('\n')
	b.WriteString(layer)
}

// boxText writes a root rectangle's centre and size in the model's space.
func (r *layers) boxText(rect image.Rectangle) (string, string) {
	c := image.Pt((rect.Min.X+rect.Max.X)/2, (rect.Min.Y+rect.Max.Y)/2)
	center, err := script.PointText(r.mapper, vision.ScreenPoint{X: c.X, Y: c.Y})
	if err != nil {
		center = "?"
	}
	return center, script.SizeText(r.mapper, rect)
}

// screenNow ends the text of a turn that comes with the screenshot.
const screenNow = "This is the screen now:"

// withLayers adds notes (the marks and layers of the observation) to a
// turn's text, before the words that introduce the screenshot. A turn of the
// screenshot alone (dialects trained so) stays so.
func withLayers(text, notes string) string {
	if notes == "" || text == "" {
		return text
	}
	if rest, ok := strings.CutSuffix(text, screenNow); ok {
		return rest + notes + screenNow
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + strings.TrimSuffix(notes, "\n")
}
