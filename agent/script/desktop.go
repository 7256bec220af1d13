package script

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"deskpilot/actions"
	"deskpilot/vision"

	"go.starlark.net/starlark"
)

// DesktopDeps are what the desktop tools need. Only Mapper and Input are
// required; a nil Frames makes screenshot and zoom fail with a clear error,
// a nil Secrets knows no secret, a nil Guard allows everything.
type DesktopDeps struct {
	// Mapper converts the model's coordinates to screen pixels and back.
	Mapper vision.Mapper
	// Input executes the primitives (*robot.Robot, a desktop backend's).
	Input actions.Input
	// Frames captures full-resolution frames of the target display for
	// screenshot and zoom.
	Frames vision.Capturer
	// Secrets looks up a type_secret value by name.
	Secrets func(name string) (string, bool)
	// Guard is called before every input primitive (each point of a drag
	// once). A non-nil error refuses the primitive and its text goes back
	// to the model. The agent uses it to keep clicks out of its own window,
	// apply the safety policy and pause on takeover; time spent in Guard
	// does not count toward the block's time limit.
	Guard func(ctx context.Context, g Guarded) error
	// Retarget, when set, may move the screen point of a pointer primitive
	// (each point of a drag) before the guard sees it: a replay clicks a
	// recorded target where it is found now. It reports whether it moved
	// the point; the action's result says so.
	Retarget func(p vision.ScreenPoint) (vision.ScreenPoint, bool)
	// Ground finds on the screen now the element a description names (a
	// grounding model) and says where it is. With it, click, double_click,
	// right_click, move and drag also take a description instead of
	// coordinates, and locate is offered; nil means no grounder: a
	// description is then an error saying how to configure one. Time spent
	// in Ground does not count toward the block's time limit.
	Ground func(ctx context.Context, description string) (Grounding, error)
	// BeforeTyping, when set, is called before type_text and type_secret
	// type (secret is the secret's name, "" for type_text), after the
	// guard; the function it returns (may be nil) is called once the keys
	// are typed, or failed. The agent finds the field the keys go to there,
	// to mask a secret from its first key on. Its time does not count
	// toward the block's time limit.
	BeforeTyping func(ctx context.Context, secret string) (typed func(ctx context.Context))
}

// Guarded is a primitive about to run, as a guard sees it: typed values,
// never text to parse again.
type Guarded struct {
	Tool  *Tool               // the builtin: its Kind and Risk
	Call  string              // the call as logged, e.g. `press("ctrl+shift+t")`; secrets never appear
	At    *vision.ScreenPoint // the screen point it acts at; nil for keys and programs
	Combo *actions.Combo      // the combo pressed or held; nil otherwise
}

// Limits of the desktop tools.
const (
	MaxWait       = 60 * time.Second // per wait() call
	MaxHold       = 10 * time.Second // per hold() call
	MaxScroll     = 50               // wheel clicks per scroll() call
	MaxZoomFactor = 4                // upscaling of small zoom() regions
)

// Desktop returns the mouse, keyboard and screen tools of the catalogue
// (groups "mouse", "keyboard", "screen"): click, double_click, right_click,
// move, drag, scroll, type_text, type_secret, press, hold, screenshot, zoom,
// screen_size, cursor_position and wait. Coordinates are the model's, mapped
// by d.Mapper; a point outside the screenshot is an error naming the valid
// range. Every primitive is logged as an Action with both coordinates.
//
// screenshot attaches a fresh frame downscaled to the screenshot size the
// model sees. zoom attaches the region at full resolution: a region smaller
// than the screenshot is enlarged by a whole factor (at most MaxZoomFactor,
// nearest neighbour, so pixels stay sharp); a larger one is scaled down to
// fit the screenshot size.
//
// With d.Ground set, the pointer builtins' entries take their grounded form
// (the catalogue's groundedBuiltin) and locate is added.
func Desktop(d DesktopDeps) []Tool {
	dk := &desktop{d}
	return append(append(dk.mouseTools(), dk.keyboardTools()...), dk.screenTools()...)
}

type desktop struct{ DesktopDeps }

func (d *desktop) mouseTools() []Tool {
	ts := []Tool{
		d.pointerTool("click", d.click),
		d.pointerTool("double_click", d.clickWith(actions.Left, 2)),
		d.pointerTool("right_click", d.clickWith(actions.Right, 1)),
		d.pointerTool("move", func(c *Call, a *Args) error {
			do, err := d.withModifiers(a, func(ctx context.Context, p actions.Point) error { return d.Input.Move(ctx, p) })
			if err != nil {
				return err
			}
			return d.pointAct(c, a, "moved", do)
		}),
		d.pointerTool("drag", d.drag),
		d.tool("scroll", d.scroll),
		d.tool("mouse_down", d.mouseDown),
		d.tool("mouse_up", d.mouseUp),
	}
	if d.Ground != nil {
		ts = append(ts, d.locateTool())
	}
	return ts
}

func (d *desktop) click(c *Call, a *Args) error {
	name := a.String("button")
	if err := a.Err(); err != nil {
		return err
	}
	b, err := actions.ParseButton(name)
	if err != nil {
		return err
	}
	return d.clickWith(b, 1)(c, a)
}

func (d *desktop) clickWith(b actions.Button, n int) func(c *Call, a *Args) error {
	return func(c *Call, a *Args) error {
		do, err := d.withModifiers(a, func(ctx context.Context, p actions.Point) error {
			return d.Input.Click(ctx, p, b, n)
		})
		if err != nil {
			return err
		}
		return d.pointAct(c, a, "clicked", do)
	}
}

func (d *desktop) keyboardTools() []Tool {
	return []Tool{
		d.tool("type_text", d.typeText),
		d.tool("type_secret", d.typeSecret),
		d.tool("press", d.press),
		d.tool("hold", d.hold),
	}
}

func (d *desktop) screenTools() []Tool {
	return []Tool{
		d.tool("screenshot", d.screenshot),
		d.tool("zoom", d.zoom),
		d.query("screen_size", d.screenSize),
		d.query("cursor_position", d.cursorPosition),
		d.tool("wait", d.wait),
	}
}

// tool binds the catalogue's builtin name to a body that binds the arguments
// and returns None.
func (d *desktop) tool(name string, body func(c *Call, a *Args) error) Tool {
	return Builtin(name, func(c *Call, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		a, err := c.Bind()
		if err != nil {
			return nil, err
		}
		return nil, body(c, a)
	})
}

// query binds the catalogue's parameterless builtin name to fn, which returns a value.
func (d *desktop) query(name string, fn func(c *Call) (starlark.Value, error)) Tool {
	return Builtin(name, func(c *Call, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		if _, err := c.Bind(); err != nil {
			return nil, err
		}
		return fn(c)
	})
}

// point reads a model point from the arguments named xn and yn and maps it.
func (d *desktop) point(a *Args, xn, yn string) (vision.ModelPoint, vision.ScreenPoint, error) {
	mp := vision.ModelPoint{X: a.Number(xn), Y: a.Number(yn)}
	if err := a.Err(); err != nil {
		return mp, vision.ScreenPoint{}, err
	}
	sp, err := d.Mapper.ToScreen(mp)
	return mp, sp, err
}

// retarget applies DesktopDeps.Retarget to p; moved describes the move for
// the action's result ("" when p stays).
func (d *desktop) retarget(p vision.ScreenPoint) (_ vision.ScreenPoint, moved string) {
	if d.Retarget == nil {
		return p, ""
	}
	q, ok := d.Retarget(p)
	if !ok || q == p {
		return p, ""
	}
	return q, fmt.Sprintf(" (target moved: (%d, %d) instead of (%d, %d))", q.X, q.Y, p.X, p.Y)
}

// pointAct runs a primitive at the point (x, y), or at the element x
// describes (see target).
func (d *desktop) pointAct(c *Call, a *Args, result string, do func(ctx context.Context, p actions.Point) error) error {
	mp, sp, grounded, err := d.target(c, a, "x", "y")
	if err == nil {
		err = a.Err()
	}
	if err != nil {
		return err
	}
	act := actions.Record{}
	if grounded != "" {
		result += "; " + grounded
		act.Target = actions.TargetGrounder
	}
	sp, moved := d.retarget(sp)
	act.Model, act.Screen, act.Result = &[2]float64{mp.X, mp.Y}, &[2]int{sp.X, sp.Y}, result+moved
	return d.act(c, act, Guarded{At: &sp}, func(ctx context.Context) error { return do(ctx, actions.Point(sp)) })
}

// act runs one input primitive: the guard (untimed), then do, then logs it.
func (d *desktop) act(c *Call, act actions.Record, g Guarded, do func(ctx context.Context) error) error {
	if d.Input == nil {
		return errors.New("no mouse and keyboard are available")
	}
	act.Name = c.Name
	if act.Args == "" {
		act.Args = c.ArgsText()
	}
	act.Start = c.Now()
	g.Tool, g.Call = c.tool, c.Name+"("+act.Args+")"
	err := d.guard(c, g)
	if err == nil && act.To != nil && c.tool.Gesture == actions.GestureDrag {
		// A drop point is checked like the start (deskpilot's own window).
		g.At = &vision.ScreenPoint{X: act.To[0], Y: act.To[1]}
		err = d.guard(c, g)
	}
	if err != nil {
		act.Result = "refused"
	} else {
		err = do(c.Ctx)
	}
	act.Duration = c.Now().Sub(act.Start)
	if err != nil {
		act.Error = err.Error()
		if act.Result != "refused" {
			act.Result = "failed"
		}
	}
	c.Log(act)
	return err
}

func (d *desktop) guard(c *Call, g Guarded) error {
	if d.Guard == nil {
		return nil
	}
	defer c.Untimed()()
	return d.Guard(c.Ctx, g)
}

func (d *desktop) drag(c *Call, a *Args) error {
	m1, s1, s2, grounded, err := d.dragEnds(c, a)
	if err != nil {
		return err
	}
	result, act := "dragged", actions.Record{}
	if grounded != "" {
		result += "; " + grounded
		act.Target = actions.TargetGrounder
	}
	s1, moved1 := d.retarget(s1)
	s2, moved2 := d.retarget(s2)
	act.Model, act.Screen, act.To = &[2]float64{m1.X, m1.Y}, &[2]int{s1.X, s1.Y}, &[2]int{s2.X, s2.Y}
	act.Result = result + moved1 + moved2
	do, err := d.withModifiers(a, func(ctx context.Context, to actions.Point) error {
		return d.Input.Drag(ctx, actions.Point(s1), to)
	})
	if err != nil {
		return err
	}
	return d.act(c, act, Guarded{At: &s1}, func(ctx context.Context) error { return do(ctx, actions.Point(s2)) })
}

func (d *desktop) scroll(c *Call, a *Args) error {
	dir, err := actions.ParseDirection(a.String("direction"))
	n := a.Int("amount")
	if err := a.Err(); err != nil {
		return err
	}
	if err != nil {
		return err
	}
	if n < 1 || n > MaxScroll {
		return fmt.Errorf("amount must be 1 to %d, got %d; call scroll again to go further", MaxScroll, n)
	}
	do, err := d.withModifiers(a, func(ctx context.Context, p actions.Point) error {
		return d.Input.Scroll(ctx, p, dir, n)
	})
	if err != nil {
		return err
	}
	return d.pointAct(c, a, "scrolled", do)
}

func (d *desktop) typeText(c *Call, a *Args) error {
	text := a.String("text")
	if err := a.Err(); err != nil {
		return err
	}
	n := utf8.RuneCountInString(text)
	if err := typeFits(c, n); err != nil {
		return err
	}
	act := actions.Record{Result: fmt.Sprintf("typed %d characters", n)}
	return d.act(c, act, Guarded{}, func(ctx context.Context) error {
		defer d.beforeTyping(c, "")()
		return d.typeChunks(c, ctx, text, n)
	})
}

// TypeRate is the typing speed, in characters a second, that type_text
// counts on: what apps keep up with (the input sends keys faster).
const TypeRate = 1000

// typeChunk is how many characters type_text types between two looks at
// the block's deadline and Stop.
const typeChunk = 256

// typeFits refuses text of n characters that cannot be typed at TypeRate in
// the time the block has left.
func typeFits(c *Call, n int) error {
	left, ok := c.TimeLeft()
	if !ok {
		return nil
	}
	if most := int(left.Seconds() * TypeRate); n > most {
		return fmt.Errorf("the text is %s characters long, and at %s characters a second this block's %s left "+
			"allow %s: type it in parts, one type_text call per part, over several blocks (each starts with its full time)",
			thousands(n), thousands(TypeRate), left.Round(100*time.Millisecond), thousands(most))
	}
	return nil
}

// typeChunks types text (n characters) typeChunk characters at a time,
// stopping between two when the block is stopped or out of time.
func (d *desktop) typeChunks(c *Call, ctx context.Context, text string, n int) error {
	done := 0
	for len(text) > 0 {
		if ctx.Err() != nil {
			return fmt.Errorf("typed %s of %s characters: %w", thousands(done), thousands(n), c.stopped())
		}
		cut, k := len(text), 0
		for i := range text {
			if k == typeChunk {
				cut = i
				break
			}
			k++
		}
		if err := d.Input.Type(ctx, text[:cut]); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("typed about %s of %s characters: %w", thousands(done), thousands(n), c.stopped())
			}
			return err
		}
		text, done = text[cut:], done+k
	}
	return nil
}

// beforeTyping calls DesktopDeps.BeforeTyping, untimed; what it returns is
// never nil.
func (d *desktop) beforeTyping(c *Call, secret string) func() {
	if d.BeforeTyping == nil {
		return func() {}
	}
	resume := c.Untimed()
	typed := d.BeforeTyping(c.Ctx, secret)
	resume()
	return func() {
		if typed != nil {
			defer c.Untimed()()
			typed(c.Ctx)
		}
	}
}

func (d *desktop) typeSecret(c *Call, a *Args) error {
	name := a.String("name")
	if err := a.Err(); err != nil {
		return err
	}
	secret, ok := "", false
	if d.Secrets != nil {
		secret, ok = d.Secrets(name)
	}
	if !ok {
		return fmt.Errorf("no secret named %q is configured; use only the secret names given in the task", name)
	}
	act := actions.Record{Result: "typed " + fmt.Sprintf("[secret:%s]", name)}
	return d.act(c, act, Guarded{}, func(ctx context.Context) error {
		defer d.beforeTyping(c, name)()
		if err := d.Input.Type(ctx, secret); err != nil {
			return errors.New(redact(err.Error(), secret))
		}
		return nil
	})
}

// redact replaces every occurrence of secret in s.
func redact(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}

func (d *desktop) press(c *Call, a *Args) error {
	combo, err := d.combo(a)
	if err != nil {
		return err
	}
	act := actions.Record{Args: strconv.Quote(combo.String()), Result: "pressed"}
	return d.act(c, act, Guarded{Combo: &combo}, func(ctx context.Context) error {
		return d.Input.Press(ctx, combo)
	})
}

func (d *desktop) hold(c *Call, a *Args) error {
	combo, err := d.combo(a)
	secs := a.Number("seconds")
	if err := a.Err(); err != nil {
		return err
	}
	if err != nil {
		return err
	}
	// Compared as numbers before any conversion: 1e300 seconds would
	// overflow a Duration into a small or negative one.
	if !(secs > 0 && secs <= MaxHold.Seconds()) {
		return fmt.Errorf("seconds must be more than 0 and at most %d, got %g", int(MaxHold.Seconds()), secs)
	}
	dur := time.Duration(secs * float64(time.Second))
	act := actions.Record{Args: fmt.Sprintf("%q, %g", combo.String(), secs), Result: "held"}
	return d.act(c, act, Guarded{Combo: &combo}, func(ctx context.Context) error {
		defer c.Untimed()()
		return d.Input.Hold(ctx, combo, dur)
	})
}

func (d *desktop) combo(a *Args) (actions.Combo, error) {
	keys := a.String("keys")
	if err := a.Err(); err != nil {
		return actions.Combo{}, err
	}
	return actions.ParseCombo(keys)
}

func (d *desktop) wait(c *Call, a *Args) error {
	secs := a.Number("seconds")
	if err := a.Err(); err != nil {
		return err
	}
	if !(secs >= 0 && secs <= MaxWait.Seconds()) { // before converting: see hold
		return fmt.Errorf("seconds must be 0 to %d, got %g; call wait again to wait longer", int(MaxWait.Seconds()), secs)
	}
	dur := time.Duration(secs * float64(time.Second))
	start := c.Now()
	err := c.Sleep(dur)
	act := actions.Record{Name: c.Name, Args: c.ArgsText(), Start: start, Duration: c.Now().Sub(start), Result: "waited"}
	if err != nil {
		act.Error, act.Result = err.Error(), "interrupted"
	}
	c.Log(act)
	return err
}

// screenSize is the extent of the model's coordinate space (Mapper.Extent):
// the screenshot's size in pixels, or the grid's (1000, 999 or 1).
func (d *desktop) screenSize(*Call) (starlark.Value, error) {
	x, y := d.Mapper.Extent()
	return starlark.Tuple{starlark.MakeInt(roundInt(x)), starlark.MakeInt(roundInt(y))}, nil
}

func (d *desktop) cursorPosition(*Call) (starlark.Value, error) {
	if d.Input == nil {
		return nil, errors.New("no mouse is available")
	}
	p, err := d.Input.Cursor()
	if err != nil {
		return nil, err
	}
	mp, err := d.Mapper.ToModel(vision.ScreenPoint(p))
	if err != nil {
		return starlark.None, nil // on another display
	}
	return d.pair(mp), nil
}

// pair is a model point as the model reads it back (cursor_position,
// locate): whole numbers in the pixel and grid spaces, where a unit is about
// a screen pixel, and four decimals in a space smaller than 100 units (the
// 0..1 fractions), where a whole number would lose the point.
func (d *desktop) pair(mp vision.ModelPoint) starlark.Tuple {
	if x, y := d.Mapper.Extent(); x < 100 || y < 100 {
		r := func(v float64) starlark.Value { return starlark.Float(math.Round(v*1e4) / 1e4) }
		return starlark.Tuple{r(mp.X), r(mp.Y)}
	}
	return starlark.Tuple{starlark.MakeInt(roundInt(mp.X)), starlark.MakeInt(roundInt(mp.Y))}
}
