package robot

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jezek/xgb/xproto"

	"deskpilot/actions"
)

// The Robot is an actions.Holder.
var _ actions.Holder = (*Robot)(nil)

// KeyDown presses the keys of c (modifiers first) and leaves them down, so
// the next primitives (a click, a scroll) happen with them held. Keys the
// Robot holds already are not pressed again. ReleaseAll or KeyUp lets go.
func (r *Robot) KeyDown(ctx context.Context, c actions.Combo) error {
	c, err := actions.ParseCombo(c.String())
	if err != nil {
		return fmt.Errorf("robot: key down: %w", err)
	}
	if err := r.begin(ctx); err != nil {
		return fmt.Errorf("robot: key down %s: %w", c, err)
	}
	defer r.mu.Unlock()
	codes, err := r.comboCodes(ctx, c)
	if err != nil {
		return fmt.Errorf("robot: key down %s: %w", c, err)
	}
	for _, code := range codes {
		if !r.keys[code] {
			r.key(code, true)
		}
	}
	if err := r.sync(); err != nil {
		return fmt.Errorf("robot: key down %s: %w", c, err)
	}
	return nil
}

// KeyUp releases the keys of c the Robot holds, in reverse order. Keys it
// does not hold (a person's, or never pressed) are left alone.
func (r *Robot) KeyUp(ctx context.Context, c actions.Combo) error {
	c, err := actions.ParseCombo(c.String())
	if err != nil {
		return fmt.Errorf("robot: key up: %w", err)
	}
	// Not begin: releasing must work after ctx is done (Stop), like ReleaseAll.
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	codes, err := r.comboCodes(context.WithoutCancel(ctx), c)
	if err != nil {
		return fmt.Errorf("robot: key up %s: %w", c, err)
	}
	for _, code := range slices.Backward(codes) {
		if r.keys[code] {
			r.key(code, false)
		}
	}
	if err := r.sync(); err != nil {
		return fmt.Errorf("robot: key up %s: %w", c, err)
	}
	return nil
}

// ButtonDown moves the pointer to p and presses b there, leaving it down:
// moves that follow drag with it, until ButtonUp or ReleaseAll.
func (r *Robot) ButtonDown(ctx context.Context, p actions.Point, b actions.Button) error {
	if err := r.check("button down", p); err != nil {
		return err
	}
	xb, err := xButton(b)
	if err != nil {
		return fmt.Errorf("robot: button down: %w", err)
	}
	if err := r.begin(ctx); err != nil {
		return fmt.Errorf("robot: button down: %w", err)
	}
	defer r.mu.Unlock()
	if r.buttons[xb] {
		return fmt.Errorf("robot: button down: the %s button is down already: release it first", b)
	}
	r.motion(p)
	r.button(xb, true)
	if err := r.sync(); err != nil {
		return fmt.Errorf("robot: %s button down at %v: %w", b, p, err)
	}
	return nil
}

// ButtonUp moves the pointer to p in small steps, with b still down (a
// drag's motion), and releases b there. It fails, sending nothing, when the
// Robot does not hold b. When ctx is done on the way the button is released
// where the pointer is and ctx's error returned.
func (r *Robot) ButtonUp(ctx context.Context, p actions.Point, b actions.Button) error {
	if err := r.check("button up", p); err != nil {
		return err
	}
	xb, err := xButton(b)
	if err != nil {
		return fmt.Errorf("robot: button up: %w", err)
	}
	if err := r.begin(ctx); err != nil {
		return fmt.Errorf("robot: button up: %w", err)
	}
	defer r.mu.Unlock()
	if !r.buttons[xb] {
		return fmt.Errorf("robot: button up: the %s button is not down: press it first (or drag from one point to another)", b)
	}
	if q, err := xproto.QueryPointer(r.conn, r.root).Reply(); err == nil {
		if err := r.glide(ctx, actions.Point{X: int(q.RootX), Y: int(q.RootY)}, p); err != nil {
			return errors.Join(fmt.Errorf("robot: button up at %v: %w", p, err), r.releaseButton(xb))
		}
	}
	r.motion(p)
	r.button(xb, false)
	if err := r.sync(); err != nil {
		return fmt.Errorf("robot: %s button up at %v: %w", b, p, err)
	}
	return nil
}
