package agent

import (
	"context"
	"fmt"
	"image"
	"sync"
	"time"

	"deskpilot/actions"
	"deskpilot/agent/script"
	"deskpilot/internal/wait"
	"deskpilot/vision"
)

// trackedInput wraps the input to know where the agent left the pointer and when it
// last acted, so input from a person can be told apart (takeover).
type trackedInput struct {
	actions.Input
	cursor func() (image.Point, error)

	// screen captures the target display, whose place on the root window
	// is display, to see the app answer a click; nil = keyGap only.
	screen  vision.Capturer
	display image.Rectangle

	mu      sync.Mutex
	pointer *image.Point // where the agent's last primitive left the pointer
	last    time.Time    // when the agent's last primitive ended
	clicked time.Time    // when the last click ended
	pending *click       // a click no keys have followed yet
	acted   time.Time    // when the agent's last primitive ended (not a settle)
}

// click is a click keys may follow.
type click struct {
	at     image.Point // where the button went down (a drag: where it went up), root coordinates
	before *image.RGBA // the screen around at just before the click; nil = unknown
	ended  time.Time
}

// clickArea is the part of the screen around a click watched for the app's
// answer: a caret, a highlight, a pressed button show there, while a caret
// blinking elsewhere does not count.
var clickArea = image.Rect(-160, -60, 160, 60)

// keyGap is the least time between a click and the keys that follow it. Toolkits
// handle a click's focus change after the events already queued: keys sent at once
// land in the widget that had the focus before (seen with Tk). A person never types
// within a millisecond of clicking; the agent waits this long at most.
const keyGap = 80 * time.Millisecond

// beforeKeys lets the app answer the last click before keys follow it: at least
// keyGap, and, when the click changed the screen around it, until that is still.
func (t *trackedInput) beforeKeys(ctx context.Context) error {
	t.mu.Lock()
	clicked, pending := t.clicked, t.pending
	t.pending = nil
	t.mu.Unlock()
	if pending != nil && pending.before != nil {
		return t.clickAnswered(ctx, *pending)
	}
	if gap := keyGap - time.Since(clicked); gap > 0 {
		return wait.Sleep(ctx, gap)
	}
	return nil
}

// pointerDone records the end of a pointer primitive; c is the click it made
// (a click or a drag, which may move the keyboard focus), or nil.
func (t *trackedInput) pointerDone(c *click) {
	t.settle()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.acted = time.Now()
	if c != nil {
		c.ended = t.acted
		t.clicked, t.pending = c.ended, c
	}
}

// beforeClick notes the screen around p (root coordinates) before a click.
func (t *trackedInput) beforeClick(ctx context.Context, p actions.Point) *click {
	c := &click{at: image.Pt(p.X, p.Y)}
	if t.screen != nil {
		if before, err := t.around(ctx, c.at); err == nil {
			c.before = before
		}
	}
	return c
}

// rectCapturer captures a rectangle of the root window, as
// internal/desktop's Desktop does.
type rectCapturer interface {
	CaptureRect(ctx context.Context, r image.Rectangle) (*image.RGBA, error)
}

// around returns a new picture of clickArea around at (root coordinates),
// clipped to the target display: that area alone when the screen can capture
// a rectangle (a 320x120 capture instead of a whole 1920x1080 frame, before
// every click and every 15 ms while keys wait for its answer), else cut from
// a whole frame.
func (t *trackedInput) around(ctx context.Context, at image.Point) (*image.RGBA, error) {
	r := clickArea.Add(at).Intersect(t.display)
	if rc, ok := t.screen.(rectCapturer); ok {
		if r.Empty() {
			return image.NewRGBA(image.Rectangle{}), nil
		}
		return rc.CaptureRect(ctx, r)
	}
	f, err := t.screen.Capture(ctx)
	if err != nil {
		return nil, err
	}
	return vision.Crop(f, r.Sub(t.display.Min).Add(f.Rect.Min)), nil
}

// settle records the state after one of the agent's own primitives, reading where
// it left the pointer.
func (t *trackedInput) settle() {
	var p *image.Point
	if t.cursor != nil {
		if c, err := t.cursor(); err == nil {
			p = &c
		}
	}
	t.mu.Lock()
	t.pointer, t.last = p, time.Now()
	t.mu.Unlock()
}

// keysDone records the end of a keyboard primitive, which leaves the pointer alone.
func (t *trackedInput) keysDone() {
	t.mu.Lock()
	t.last = time.Now()
	t.acted = t.last
	t.mu.Unlock()
}

func (t *trackedInput) Move(ctx context.Context, p actions.Point) error {
	defer t.pointerDone(nil)
	return t.Input.Move(ctx, p)
}

func (t *trackedInput) Click(ctx context.Context, p actions.Point, b actions.Button, n int) error {
	c := t.beforeClick(ctx, p)
	defer t.pointerDone(c)
	return t.Input.Click(ctx, p, b, n)
}

func (t *trackedInput) Drag(ctx context.Context, from, to actions.Point) error {
	c := t.beforeClick(ctx, to)
	defer t.pointerDone(c)
	return t.Input.Drag(ctx, from, to)
}

func (t *trackedInput) Scroll(ctx context.Context, p actions.Point, d actions.Direction, amount int) error {
	defer t.pointerDone(nil)
	return t.Input.Scroll(ctx, p, d, amount)
}

func (t *trackedInput) Press(ctx context.Context, c actions.Combo) error {
	if err := t.beforeKeys(ctx); err != nil {
		return err
	}
	defer t.keysDone()
	return t.Input.Press(ctx, c)
}

func (t *trackedInput) Hold(ctx context.Context, c actions.Combo, d time.Duration) error {
	if err := t.beforeKeys(ctx); err != nil {
		return err
	}
	defer t.keysDone()
	return t.Input.Hold(ctx, c, d)
}

func (t *trackedInput) Type(ctx context.Context, text string) error {
	if err := t.beforeKeys(ctx); err != nil {
		return err
	}
	defer t.keysDone()
	return t.Input.Type(ctx, text)
}

// clickAnswerTimeout bounds how long keys wait for the screen to answer a click.
// A click that shows nothing where it landed (a field already focused) costs
// this much once, when keys follow it in the same block.
const clickAnswerTimeout = time.Second

// clickAnswered waits until the screen around a click shows the app's answer
// to it: a change from just before the click, then two equal frames in a row;
// at least keyGap after the click, at most clickAnswerTimeout. Toolkits move
// the keyboard focus only once they handle the click, and a busy app (a loaded
// machine) handles it late: keys sent after a fixed gap then land in the widget
// that had the focus before (seen with Tk under load, where 80 ms was not
// enough). The focus change shows where the click landed (a caret, a
// highlight), so the screen tells when the app has caught up. Only the area
// around the click is watched: a caret blinking in the field the focus left
// would look like an answer.
func (t *trackedInput) clickAnswered(ctx context.Context, c click) error {
	return awaitAnswer(ctx, c.ended, c.before, nil, func(ctx context.Context) (*image.RGBA, error) {
		return t.around(ctx, c.at)
	})
}

// awaitAnswer waits until the pictures next takes, every settleInterval, show
// an answer to an action that ended at ended: a change from before (a nil
// before counts as one), then two equal pictures in a row, ignore left out of
// both comparisons; at least keyGap after ended, at most clickAnswerTimeout
// (an action that changes nothing costs that once). It keeps only the last
// picture next returned, so next may write over the one before it.
func awaitAnswer(ctx context.Context, ended time.Time, before *image.RGBA, ignore []image.Rectangle, next func(context.Context) (*image.RGBA, error)) error {
	var prev *image.RGBA
	changed := false
	for {
		f, err := next(ctx)
		if err != nil {
			return err
		}
		changed = changed || !vision.Same(before, f, ignore)
		since := time.Since(ended)
		if since >= clickAnswerTimeout || (changed && since >= keyGap && prev != nil && vision.Same(prev, f, ignore)) {
			return nil
		}
		prev = f
		if err := wait.Sleep(ctx, settleInterval); err != nil {
			return err
		}
	}
}

// idleSlack is how much sooner than the agent's last input the X server may report
// input before it counts as a person's: the server stamps the agent's own events a
// little after the primitive returns.
const idleSlack = 250 * time.Millisecond

// personActed reports whether someone else used the mouse or keyboard since the
// agent's last primitive, and how it shows.
// Input the person gave to deskpilot's own windows since then (OwnInput) is
// not: they used the strip, a question or an approval, and the pointer's way
// there and back belongs to it. From the agent's next primitive on, their
// input counts again.
func (r *runState) personActed() (string, bool) {
	t := r.input
	t.mu.Lock()
	pointer, last := t.pointer, t.last
	t.mu.Unlock()
	if r.a.OwnInput != nil && !last.IsZero() && r.a.OwnInput().After(last) {
		return "", false
	}
	if pointer != nil && r.a.Cursor != nil {
		if c, err := r.a.Cursor(); err == nil {
			if d := c.Sub(*pointer); d.X*d.X+d.Y*d.Y > 9 {
				return "you moved the mouse", true
			}
		}
	}
	if r.a.Idle != nil && !last.IsZero() {
		if idle, err := r.a.Idle(); err == nil && idle+idleSlack < time.Since(last) {
			return "you used the mouse or keyboard", true
		}
	}
	return "", false
}

// guard runs before every primitive that acts on the desktop: it pauses on
// takeover, keeps the agent out of deskpilot's own windows and asks for approval
// where the policy says so.
func (r *runState) guard(ctx context.Context, g script.Guarded) error {
	if err := r.holdForPerson(ctx); err != nil {
		return err
	}
	if g.At != nil && r.a.OwnWindows != nil {
		p := image.Pt(g.At.X, g.At.Y)
		if r.inOwnWindow(p) && r.hooks.MakeRoom != nil && r.hooks.MakeRoom(ctx, p) {
			r.waitOwnMoved(ctx, p)
		}
		if r.inOwnWindow(p) {
			return fmt.Errorf("refused: (%d, %d) on the screen is inside deskpilot's own window (hatched on the screenshot); act on the other windows", g.At.X, g.At.Y)
		}
	}
	return r.policy.approve(ctx, g)
}

// holdForPerson pauses the run when a person used the mouse or keyboard since the
// agent's last primitive (takeover), and waits while it is paused. The loop calls it
// before every model request, the guard before every primitive: a run that only
// waits or prints pauses as one that clicks does.
func (r *runState) holdForPerson(ctx context.Context) error {
	if !r.a.NoTakeover {
		if reason, ok := r.personActed(); ok {
			if paused, _ := r.session.control(); paused != nil {
				paused(reason)
			}
		}
	}
	if !r.session.gate.isPaused() {
		return nil
	}
	if err := r.session.gate.wait(ctx); err != nil {
		return err
	}
	r.input.settle() // the person's input is theirs: start afresh
	return nil
}

// inOwnWindow reports whether p (root coordinates) is on a visible part of
// deskpilot's own windows.
func (r *runState) inOwnWindow(p image.Point) bool {
	for _, w := range r.a.OwnWindows() {
		if p.In(w) {
			return true
		}
	}
	return false
}

// ownMovedWait bounds how long the guard waits to see an own window that
// moved out of the way leave a point: the desktop hears of the move from the
// window manager a moment after the app does.
const ownMovedWait = 500 * time.Millisecond

// waitOwnMoved waits until p is outside deskpilot's windows, at most ownMovedWait.
func (r *runState) waitOwnMoved(ctx context.Context, p image.Point) {
	deadline := time.Now().Add(ownMovedWait)
	for r.inOwnWindow(p) && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(settleInterval)
	}
}

// tools assembles the builtins of a run: desktop, control, (in a replay)
// checkpoint, then the extras.
func (r *runState) tools() []script.Tool {
	deps := script.DesktopDeps{
		Mapper: r.mapper, Input: r.input, Frames: r.screen, Secrets: r.a.Secret, Guard: r.guard, Ground: r.locator.groundFn(),
		BeforeTyping: r.beforeTyping,
	}
	if r.replay != nil {
		deps.Retarget = r.replay.retarget
	}
	ts := append(script.Desktop(deps), r.groundTools(deps)...)
	ts = append(ts, r.controlTools()...)
	if r.replay != nil {
		ts = append(ts, script.Builtin(script.Checkpoint, r.checkpointTool))
	}
	return r.checkSends(append(ts, r.a.Tools...))
}
