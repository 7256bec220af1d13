package script

import (
	"context"
	"errors"
	"fmt"

	"deskpilot/actions"
)

// This file holds the builtins' uses of an actions.Holder: modifiers held
// during a pointer action (the modifiers parameter of click, double_click,
// right_click, move, drag and scroll) and the left button held across
// blocks (mouse_down, mouse_up).

// holder returns the input as an actions.Holder, or why it is none.
func (d *desktop) holder() (actions.Holder, error) {
	h, ok := d.Input.(actions.Holder)
	if !ok || d.Input == nil {
		return nil, actions.ErrCannotHold
	}
	return h, nil
}

// withModifiers reads the call's modifiers argument and returns do wrapped
// so the modifiers are down while it runs and released after it, whatever
// happens (also after Stop). No modifiers: do itself.
func (d *desktop) withModifiers(a *Args, do func(ctx context.Context, p actions.Point) error) (func(ctx context.Context, p actions.Point) error, error) {
	s := a.String("modifiers")
	if err := a.Err(); err != nil {
		return nil, err
	}
	if s == "" {
		return do, nil
	}
	mods, err := actions.ParseModifiers(s)
	if err != nil {
		return nil, fmt.Errorf("modifiers: %w", err)
	}
	h, err := d.holder()
	if err != nil {
		return nil, fmt.Errorf("modifiers %q: %w; press the keys with press() instead", s, err)
	}
	return func(ctx context.Context, p actions.Point) error {
		if err := h.KeyDown(ctx, mods); err != nil {
			return errors.Join(err, h.KeyUp(context.WithoutCancel(ctx), mods))
		}
		err := do(ctx, p)
		return errors.Join(err, h.KeyUp(context.WithoutCancel(ctx), mods))
	}, nil
}

// mouseDown presses the left button at the call's point and leaves it down.
func (d *desktop) mouseDown(c *Call, a *Args) error {
	h, err := d.holder()
	if err != nil {
		return fmt.Errorf("%w; use drag(x1, y1, x2, y2) to drag within one block", err)
	}
	return d.pointAct(c, a, "pressed the left button", func(ctx context.Context, p actions.Point) error {
		return h.ButtonDown(ctx, p, actions.Left)
	})
}

// mouseUp moves to the call's point with the left button down and releases it.
func (d *desktop) mouseUp(c *Call, a *Args) error {
	h, err := d.holder()
	if err != nil {
		return err
	}
	return d.pointAct(c, a, "released the left button", func(ctx context.Context, p actions.Point) error {
		return h.ButtonUp(ctx, p, actions.Left)
	})
}
