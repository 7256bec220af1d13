package script

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"strconv"
	"strings"
	"time"

	"deskpilot/a11y"
	"deskpilot/actions"
	"deskpilot/vision"

	"go.starlark.net/starlark"
)

// TextReader reads the text on a frame of the screen (OCR). The wiring adapts
// vision/ocr to it, so this package links no OCR engine. ReadText honours ctx
// and may be called from any goroutine.
type TextReader interface {
	ReadText(ctx context.Context, frame *image.RGBA) (ScreenText, error)
}

// ScreenText is the text read on one frame, with boxes in the frame's pixels.
// It is immutable.
type ScreenText interface {
	// Find returns where text was read, best first (vision/ocr's Text.Find).
	Find(text string, exact bool) []TextMatch
	// Closest returns the n words or phrases read that come closest to text,
	// for saying what there is when Find finds nothing.
	Closest(text string, n int) []TextMatch
	// Words returns every word read, in reading order.
	Words() []TextWord
	// Layer renders the text lines for an observation, most useful first
	// when they do not fit maxChars: one "(pos) text" line each, pos being
	// the line's centre (frame pixels) as format writes it.
	Layer(maxChars int, format func(image.Point) string) string
}

// TextMatch is a place where text was read.
type TextMatch struct {
	Text  string          // what was read there
	Box   image.Rectangle // frame pixels
	Score float64         // 1 = the text as asked, whole words; down to 0.6
	Line  string          // the whole line, for context
}

// TextWord is one word read.
type TextWord struct {
	Text string
	Box  image.Rectangle // frame pixels
	Conf float64         // 0..1
}

// ElementFinder reads the accessible elements visible on the driven display;
// *atspi.Client fits. Elements honours ctx and is bounded in time; its error
// is an *a11y.UnavailableError when there is no tree to read.
type ElementFinder interface {
	Elements(ctx context.Context, q a11y.Query) ([]a11y.Element, a11y.Note, error)
}

// Mark is one numbered box of a set-of-marks screenshot.
type Mark struct {
	N    int             // the number drawn, from 1
	Role string          // the element's role, "word" for text read by OCR
	Name string          // its name, or the word
	Box  image.Rectangle // root coordinates
}

// GroundDeps are what the grounding builtins need besides DesktopDeps. A nil
// engine makes its builtins fail with a clear error.
type GroundDeps struct {
	// Text reads the screen's text for find_text and click_text.
	Text TextReader
	// Elements reads the accessibility tree for find_elements and
	// click_element.
	Elements ElementFinder
	// Exclude returns areas of the screen, root coordinates, that are not
	// the desktop's to search (deskpilot's own windows); nil = none.
	Exclude func() []image.Rectangle
	// Marks returns the marks of the newest screenshot and whether
	// set-of-marks is on; nil = off.
	Marks func() ([]Mark, bool)
	// Settle, called before a builtin reads the screen or the tree, waits
	// until the screen shows the answer to what the block did so far (a
	// menu opened by the click before); nil = no wait.
	Settle func(ctx context.Context) error
}

// Limits of the grounding builtins.
const (
	// MaxElements is the most elements find_elements returns.
	MaxElements = 200
	// maxQueryRunes bounds a text or name asked for.
	maxQueryRunes = 256
	// closestShown is how many near misses a "not found" names.
	closestShown = 5
)

// errNoText and errNoTree are the errors of builtins whose engine is missing.
var (
	errNoText = errors.New("reading text on the screen (OCR) is not available in this deskpilot")
	errNoTree = &a11y.UnavailableError{Reason: "no accessibility engine in this deskpilot"}
)

// Ground returns the grounding tools of the catalogue (group "grounding"):
// find_text, click_text, find_elements, click_element and click_mark. They
// capture with d.Frames, click with d.Input through d.Guard as click does,
// and give positions in d.Mapper's coordinates: whole numbers, or fractions
// with four decimals in a space of fractions (CoordUnit). Each call logs an
// actions.Record whose Result says what was found, or what came closest.
func Ground(d DesktopDeps, g GroundDeps) []Tool {
	gr := &ground{desktop: &desktop{d}, GroundDeps: g}
	return []Tool{
		gr.value("find_text", gr.findText),
		gr.desktop.tool("click_text", gr.clickText),
		gr.value("find_elements", gr.findElements),
		gr.desktop.tool("click_element", gr.clickElement),
		gr.desktop.tool("click_mark", gr.clickMark),
	}
}

type ground struct {
	*desktop
	GroundDeps
}

// value binds the catalogue's builtin name to a body that returns a value.
func (g *ground) value(name string, body func(c *Call, a *Args) (starlark.Value, error)) Tool {
	return Builtin(name, func(c *Call, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		a, err := c.Bind()
		if err != nil {
			return nil, err
		}
		return body(c, a)
	})
}

// query reads the string argument name: not empty, at most maxQueryRunes.
func query(a *Args, name string) (string, error) {
	s := a.String(name)
	if err := a.Err(); err != nil {
		return "", err
	}
	if strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("%s is empty; give the visible text or name to look for", name)
	}
	if r := []rune(s); len(r) > maxQueryRunes {
		return "", fmt.Errorf("%s is %d characters long; at most %d", name, len(r), maxQueryRunes)
	}
	return s, nil
}

// excluded returns the areas not to search, in root coordinates.
func (g *ground) excluded() []image.Rectangle {
	if g.Exclude == nil {
		return nil
	}
	return g.Exclude()
}

// readScreen captures the screen and reads its text, deskpilot's own windows
// painted out first. The wait on the engine does not count toward the
// block's time limit.
func (g *ground) readScreen(c *Call) (ScreenText, *image.RGBA, error) {
	if g.Text == nil {
		return nil, nil, errNoText
	}
	if err := g.settle(c); err != nil {
		return nil, nil, err
	}
	frame, err := g.capture(c.Ctx)
	if err != nil {
		return nil, nil, err
	}
	return g.readFrame(c, frame)
}

// readFrame paints deskpilot's own windows out of frame and reads its text.
func (g *ground) readFrame(c *Call, frame *image.RGBA) (ScreenText, *image.RGBA, error) {
	for _, r := range g.ownInFrame(frame) {
		draw.Draw(frame, r, image.NewUniform(color.White), image.Point{}, draw.Src)
	}
	defer c.Untimed()()
	t, err := g.Text.ReadText(c.Ctx, frame)
	if err != nil {
		if c.Ctx.Err() != nil {
			return nil, nil, c.stopped()
		}
		return nil, nil, fmt.Errorf("read the screen's text: %w", err)
	}
	return t, frame, nil
}

// ownInFrame is deskpilot's own windows in frame's pixels.
func (g *ground) ownInFrame(frame *image.RGBA) []image.Rectangle {
	shift := frame.Rect.Min.Sub(g.Mapper.Display.Min)
	var out []image.Rectangle
	for _, r := range g.excluded() {
		if r = r.Add(shift).Intersect(frame.Rect); !r.Empty() {
			out = append(out, r)
		}
	}
	return out
}

// Reading again after a search found nothing.
const (
	againPause = 100 * time.Millisecond // between two looks at the screen
	againWait  = 1500 * time.Millisecond
)

// readAgain reads the screen once more when a search of frame found nothing
// and the screen has changed since: a window still being drawn (on a loaded
// machine a window shows some time after it is mapped) is read once it
// stands still, within againWait. ok is false when the screen has not
// changed, and the first reading stands. The wait does not count toward the
// block's time limit; Stop and the deadline end it with their error.
func (g *ground) readAgain(c *Call, frame *image.RGBA) (t ScreenText, now *image.RGBA, ok bool, err error) {
	if g.Frames == nil {
		return nil, nil, false, nil
	}
	resume := c.Untimed()
	res, err := vision.Settle(c.Ctx, g.Frames, frame, vision.SettleOptions{
		Interval: againPause, Timeout: againWait, Patience: -1, Ignore: g.ownInFrame(frame)})
	resume()
	switch {
	case c.Ctx.Err() != nil:
		return nil, nil, false, c.stopped()
	case err != nil:
		return nil, nil, false, err
	case !res.Changed:
		return nil, nil, false, nil
	}
	t, now, err = g.readFrame(c, res.Frame)
	return t, now, err == nil, err
}

// settle waits, untimed, until the screen answers the block's last action.
func (g *ground) settle(c *Call) error {
	if g.Settle == nil {
		return nil
	}
	defer c.Untimed()()
	if err := g.Settle(c.Ctx); err != nil {
		if c.Ctx.Err() != nil {
			return c.stopped()
		}
		return err
	}
	return nil
}

// rootRect converts a box of frame into root coordinates.
func (g *ground) rootRect(frame *image.RGBA, r image.Rectangle) image.Rectangle {
	return r.Sub(frame.Rect.Min).Add(g.Mapper.Display.Min)
}

// fractions reports whether the model's space is measured in fractions (0..1).
func (g *ground) fractions() bool {
	x, _ := g.Mapper.Extent()
	return x < 10
}

// coord is v, a coordinate of the model's space, as find_* return it.
func (g *ground) coord(v float64) starlark.Value {
	if g.fractions() {
		return starlark.Float(math.Round(v*1e4) / 1e4)
	}
	return starlark.MakeInt(roundInt(v))
}

// coordText is v as coord writes it.
func (g *ground) coordText(v float64) string {
	if g.fractions() {
		return strconv.FormatFloat(math.Round(v*1e4)/1e4, 'f', -1, 64)
	}
	return strconv.Itoa(roundInt(v))
}

// place is where a root rectangle is in the model's space: its centre (as
// the model clicks it, and on the screen) and its size.
type place struct {
	model  vision.ModelPoint
	screen vision.ScreenPoint
	w, h   float64
}

// placeOf maps root rectangle r (never empty, inside the display) to the
// model's space.
func (g *ground) placeOf(r image.Rectangle) (place, error) {
	c := image.Pt((r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2)
	sp := vision.ScreenPoint{X: c.X, Y: c.Y}
	mp, err := g.Mapper.ToModel(sp)
	if err != nil {
		return place{}, err
	}
	// The model clicks the point as returned (rounded): map that back, so
	// the click lands where the model's own click(x, y) would.
	if !g.fractions() {
		mp = vision.ModelPoint{X: math.Round(mp.X), Y: math.Round(mp.Y)}
	}
	if s, err := g.Mapper.ToScreen(mp); err == nil {
		sp = s
	}
	w, h := g.size(r)
	return place{model: mp, screen: sp, w: w, h: h}, nil
}

// size is the size of root rectangle r in the model's space; at least 1
// where the space counts whole units.
func (g *ground) size(r image.Rectangle) (w, h float64) {
	ex, ey := g.Mapper.Extent()
	d := g.Mapper.Display
	if d.Empty() {
		return 0, 0
	}
	w, h = float64(r.Dx())*ex/float64(d.Dx()), float64(r.Dy())*ey/float64(d.Dy())
	if !g.fractions() {
		w, h = math.Max(1, math.Round(w)), math.Max(1, math.Round(h))
	}
	return w, h
}

// at renders a place as "(x, y)" for messages.
func (g *ground) at(p place) string {
	return "(" + g.coordText(p.model.X) + ", " + g.coordText(p.model.Y) + ")"
}

// clickAt clicks the left button at p, guarded and logged like click.
func (g *ground) clickAt(c *Call, p place, result string) error {
	act := actions.Record{Model: &[2]float64{p.model.X, p.model.Y}, Screen: &[2]int{p.screen.X, p.screen.Y}, Result: result}
	return g.act(c, act, Guarded{At: &p.screen}, func(ctx context.Context) error {
		return g.Input.Click(ctx, actions.Point(p.screen), actions.Left, 1)
	})
}

// logQuery logs a find_* call, which acts on nothing, with its outcome.
func logQuery(c *Call, start time.Time, result string, err error) {
	act := actions.Record{Name: c.Name, Args: c.ArgsText(), Start: start, Duration: c.Now().Sub(start), Result: result}
	if err != nil {
		act.Result, act.Error = "failed", err.Error()
	}
	c.Log(act)
}

// quoted is s cleaned of control characters, cut to n characters, and
// quoted: text from the screen cannot forge lines of a message.
func quoted(s string, n int) string {
	return strconv.Quote(a11y.CleanText(s, n))
}

// PointText writes screen point p as the model reads positions in m's space:
// "x, y" in whole numbers, or with four decimals in a space of fractions
// (vision.CoordUnit). The grounding builtins and observations use it.
func PointText(m vision.Mapper, p vision.ScreenPoint) (string, error) {
	mp, err := m.ToModel(p)
	if err != nil {
		return "", err
	}
	g := ground{desktop: &desktop{DesktopDeps{Mapper: m}}}
	return g.coordText(mp.X) + ", " + g.coordText(mp.Y), nil
}

// SizeText writes the size of root rectangle r in m's space, "w, h", as
// PointText writes positions.
func SizeText(m vision.Mapper, r image.Rectangle) string {
	g := ground{desktop: &desktop{DesktopDeps{Mapper: m}}}
	w, h := g.size(r)
	return g.coordText(w) + ", " + g.coordText(h)
}
