package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"maps"
	"slices"
	"sync"
	"time"

	"deskpilot/actions"
	"deskpilot/actions/keysym"
)

// vdevice is a virtual pointer and keyboard that takes keysyms: what the
// Wayland backends (wlroots' virtual devices, Mutter's RemoteDesktop) give.
// Points are pixels of the target monitor, origin at its top-left.
type vdevice interface {
	move(p image.Point) error
	button(code uint32, down bool) error
	// scroll turns the wheel n notches, positive down (vertical) or right.
	scroll(vertical bool, n int) error
	key(sym uint32, down bool) error
	// prepare readies the keys of syms, so that none changes the keymap
	// while others are held.
	prepare(syms []uint32) error
	// typeText types text, whose keysyms are syms (keysym.Text).
	typeText(ctx context.Context, text string, syms []uint32) error
	// flush waits until the compositor has taken every event sent.
	flush(ctx context.Context) error
}

// Linux button codes (linux/input-event-codes.h).
const (
	btnLeft   = 0x110
	btnRight  = 0x111
	btnMiddle = 0x112
)

// Limits of the virtual input, the same as the x11 backend's.
const (
	vMaxClicks   = 3
	vMaxScroll   = 100
	vDragDelay   = 10 * time.Millisecond
	vDragPixels  = 20
	vMinDragStep = 5
	vMaxDragStep = 30
)

// errVInputClosed is returned by the input's methods after the desktop closed.
var errVInputClosed = errors.New("input: closed")

// vinput is Input over a vdevice, confined to the target's bounds (root
// coordinates). A mutex serialises the primitives; Hold releases it while it
// waits, so ReleaseAll can end a hold.
type vinput struct {
	name    string // backend name, for errors
	dev     vdevice
	bounds  image.Rectangle
	mu      sync.Mutex
	closed  bool
	at      *actions.Point // where the pointer was last put
	keys    map[uint32]bool
	buttons map[uint32]bool
}

func newVInput(name string, dev vdevice, bounds image.Rectangle) *vinput {
	return &vinput{name: name, dev: dev, bounds: bounds, keys: map[uint32]bool{}, buttons: map[uint32]bool{}}
}

func (in *vinput) errorf(format string, args ...any) error {
	return fmt.Errorf(in.name+": "+format, args...)
}

func (in *vinput) begin(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	in.mu.Lock()
	if in.closed {
		in.mu.Unlock()
		return errVInputClosed
	}
	return nil
}

func (in *vinput) check(op string, p actions.Point) error {
	if err := actions.CheckPoint(p, in.bounds); err != nil {
		return in.errorf("%s: %w", op, err)
	}
	return nil
}

// moveLocked puts the pointer on p (root coordinates).
func (in *vinput) moveLocked(p actions.Point) error {
	if err := in.dev.move(image.Pt(p.X, p.Y).Sub(in.bounds.Min)); err != nil {
		return err
	}
	in.at = &p
	return nil
}

// Move moves the pointer to p.
func (in *vinput) Move(ctx context.Context, p actions.Point) error {
	if err := in.check("move", p); err != nil {
		return err
	}
	if err := in.begin(ctx); err != nil {
		return in.errorf("move: %w", err)
	}
	defer in.mu.Unlock()
	if err := in.moveLocked(p); err != nil {
		return in.errorf("move to %v: %w", p, err)
	}
	return in.dev.flush(ctx)
}

func buttonCode(b actions.Button) (uint32, error) {
	switch b {
	case actions.Left:
		return btnLeft, nil
	case actions.Middle:
		return btnMiddle, nil
	case actions.Right:
		return btnRight, nil
	}
	return 0, fmt.Errorf("unknown mouse button %v: accepted buttons are left, middle, right", b)
}

// Click moves to p and clicks b n times (1 to 3).
func (in *vinput) Click(ctx context.Context, p actions.Point, b actions.Button, n int) error {
	if err := in.check("click", p); err != nil {
		return err
	}
	code, err := buttonCode(b)
	if err != nil {
		return in.errorf("click: %w", err)
	}
	if n < 1 || n > vMaxClicks {
		return in.errorf("click: click count %d must be between 1 and %d", n, vMaxClicks)
	}
	if err := in.begin(ctx); err != nil {
		return in.errorf("click: %w", err)
	}
	defer in.mu.Unlock()
	if err := in.moveLocked(p); err != nil {
		return in.errorf("click at %v: %w", p, err)
	}
	for range n {
		if err := in.buttonLocked(code, true); err != nil {
			return in.errorf("%s click at %v: %w", b, p, err)
		}
		if err := in.buttonLocked(code, false); err != nil {
			return in.errorf("%s click at %v: %w", b, p, err)
		}
	}
	return in.dev.flush(ctx)
}

func (in *vinput) buttonLocked(code uint32, down bool) error {
	if err := in.dev.button(code, down); err != nil {
		return err
	}
	if down {
		in.buttons[code] = true
	} else {
		delete(in.buttons, code)
	}
	return nil
}

// Drag presses the left button at from, moves to to in small steps, and
// releases it there; cancelled halfway, it releases where the pointer is.
func (in *vinput) Drag(ctx context.Context, from, to actions.Point) error {
	if err := in.check("drag from", from); err != nil {
		return err
	}
	if err := in.check("drag to", to); err != nil {
		return err
	}
	if err := in.begin(ctx); err != nil {
		return in.errorf("drag: %w", err)
	}
	defer in.mu.Unlock()
	if err := in.moveLocked(from); err != nil {
		return in.errorf("drag: %w", err)
	}
	if err := in.buttonLocked(btnLeft, true); err != nil {
		return in.errorf("drag: %w", err)
	}
	if err := in.glideLocked(ctx, from, to); err != nil {
		return errors.Join(in.errorf("drag %v to %v: %w", from, to, err), in.buttonLocked(btnLeft, false))
	}
	if err := in.buttonLocked(btnLeft, false); err != nil {
		return in.errorf("drag: %w", err)
	}
	return in.dev.flush(ctx)
}

// glideLocked moves the pointer from from to to in small steps, as a hand
// drags; ctx ends it where the pointer is, with ctx's error.
func (in *vinput) glideLocked(ctx context.Context, from, to actions.Point) error {
	dx, dy := to.X-from.X, to.Y-from.Y
	steps := min(max(max(abs(dx), abs(dy))/vDragPixels, vMinDragStep), vMaxDragStep)
	for i := 1; i <= steps; i++ {
		if err := sleepCtx(ctx, vDragDelay); err != nil {
			return err
		}
		if err := in.moveLocked(actions.Point{X: from.X + dx*i/steps, Y: from.Y + dy*i/steps}); err != nil {
			return err
		}
	}
	return nil
}

// Scroll moves to p and turns the wheel amount notches (1 to 100).
func (in *vinput) Scroll(ctx context.Context, p actions.Point, d actions.Direction, amount int) error {
	if err := in.check("scroll", p); err != nil {
		return err
	}
	vertical, sign := true, 1
	switch d {
	case actions.ScrollUp:
		sign = -1
	case actions.ScrollDown:
	case actions.ScrollLeft:
		vertical, sign = false, -1
	case actions.ScrollRight:
		vertical = false
	default:
		return in.errorf("scroll: unknown direction %q: accepted directions are up, down, left, right", d)
	}
	if amount < 1 || amount > vMaxScroll {
		return in.errorf("scroll: amount %d must be between 1 and %d", amount, vMaxScroll)
	}
	if err := in.begin(ctx); err != nil {
		return in.errorf("scroll: %w", err)
	}
	defer in.mu.Unlock()
	if err := in.moveLocked(p); err != nil {
		return in.errorf("scroll: %w", err)
	}
	for range amount {
		if err := in.dev.scroll(vertical, sign); err != nil {
			return in.errorf("scroll: %w", err)
		}
	}
	return in.dev.flush(ctx)
}

// comboSyms returns the keysyms of c's keys, modifiers first.
func comboSyms(c actions.Combo) ([]uint32, error) {
	c, err := actions.ParseCombo(c.String())
	if err != nil {
		return nil, err
	}
	var syms []uint32
	for _, k := range c.Keys() {
		if m := keysym.Modifier(k); m != nil {
			syms = append(syms, m[0])
			continue
		}
		s, ok := keysym.Key(k)
		if !ok {
			return nil, fmt.Errorf("%s: no keysym for key %q", c, k)
		}
		syms = append(syms, s)
	}
	return syms, nil
}

func (in *vinput) keyLocked(sym uint32, down bool) error {
	if err := in.dev.key(sym, down); err != nil {
		return err
	}
	if down {
		in.keys[sym] = true
	} else {
		delete(in.keys, sym)
	}
	return nil
}

// Press presses the combo's keys in order and releases them in reverse.
func (in *vinput) Press(ctx context.Context, c actions.Combo) error {
	syms, err := comboSyms(c)
	if err != nil {
		return in.errorf("press: %w", err)
	}
	if err := in.begin(ctx); err != nil {
		return in.errorf("press %s: %w", c, err)
	}
	defer in.mu.Unlock()
	if err := in.dev.prepare(syms); err != nil {
		return in.errorf("press %s: %w", c, err)
	}
	var errs []error
	pressed := 0
	for _, s := range syms {
		if err := in.keyLocked(s, true); err != nil {
			errs = append(errs, err)
			break
		}
		pressed++
	}
	for _, s := range slices.Backward(syms[:pressed]) {
		errs = append(errs, in.keyLocked(s, false))
	}
	if err := errors.Join(errs...); err != nil {
		return in.errorf("press %s: %w", c, err)
	}
	return in.dev.flush(ctx)
}

// Hold presses the combo, keeps it down for d (or until ctx is done or
// ReleaseAll), and releases it.
func (in *vinput) Hold(ctx context.Context, c actions.Combo, d time.Duration) error {
	if d < 0 {
		return in.errorf("hold %s: duration %v is negative", c, d)
	}
	syms, err := comboSyms(c)
	if err != nil {
		return in.errorf("hold: %w", err)
	}
	if err := in.begin(ctx); err != nil {
		return in.errorf("hold %s: %w", c, err)
	}
	if err = in.dev.prepare(syms); err != nil {
		in.mu.Unlock()
		return in.errorf("hold %s: %w", c, err)
	}
	for _, s := range syms {
		if err = in.keyLocked(s, true); err != nil {
			break
		}
	}
	if err == nil {
		err = in.dev.flush(ctx)
	}
	in.mu.Unlock()
	if err == nil {
		err = sleepCtx(ctx, d)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.closed {
		for _, s := range slices.Backward(syms) {
			if in.keys[s] {
				err = errors.Join(err, in.keyLocked(s, false))
			}
		}
	}
	if err != nil {
		return in.errorf("hold %s: %w", c, err)
	}
	return nil
}

// Type types text: any Unicode; "\n" and "\r\n" press Enter, "\t" Tab;
// other control characters and invalid UTF-8 are refused before anything is
// typed.
func (in *vinput) Type(ctx context.Context, text string) error {
	syms, err := keysym.Text(text)
	if err != nil {
		return in.errorf("type: %w", err)
	}
	if len(syms) == 0 {
		return nil
	}
	if err := in.begin(ctx); err != nil {
		return in.errorf("type: %w", err)
	}
	defer in.mu.Unlock()
	if err := in.dev.typeText(ctx, text, syms); err != nil {
		return in.errorf("type: %w", err)
	}
	return nil
}

// Cursor is where this input last put the pointer; the target's centre
// before its first move (a Wayland client cannot read the pointer).
func (in *vinput) Cursor() (actions.Point, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return actions.Point{}, errVInputClosed
	}
	if in.at == nil {
		c := in.bounds.Min.Add(in.bounds.Size().Div(2))
		return actions.Point{X: c.X, Y: c.Y}, nil
	}
	return *in.at, nil
}

// cursor is Cursor as a point.
func (in *vinput) cursor() (image.Point, error) {
	p, err := in.Cursor()
	return image.Pt(p.X, p.Y), err
}

// ReleaseAll releases every key and button this input holds down.
func (in *vinput) ReleaseAll() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return errVInputClosed
	}
	return in.releaseAll()
}

func (in *vinput) releaseAll() error {
	var errs []error
	for _, s := range slices.Sorted(maps.Keys(in.keys)) {
		errs = append(errs, in.keyLocked(s, false))
	}
	for _, b := range slices.Sorted(maps.Keys(in.buttons)) {
		errs = append(errs, in.buttonLocked(b, false))
	}
	if err := errors.Join(errs...); err != nil {
		return in.errorf("release all: %w", err)
	}
	return nil
}

// close releases what the input holds; later calls fail.
func (in *vinput) close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed {
		return nil
	}
	err := in.releaseAll()
	in.closed = true
	return err
}
