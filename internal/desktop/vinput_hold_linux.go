package desktop

import (
	"context"
	"errors"
	"slices"

	"deskpilot/actions"
)

// vinput is an actions.Holder: the Wayland backends' virtual devices keep
// keys and buttons down between primitives as XTest does, what they hold
// tracked in keys and buttons (ReleaseAll lets it all go).
var _ actions.Holder = (*vinput)(nil)

// KeyDown presses the keys of c, modifiers first, and leaves them down; a
// key held already is not pressed again.
func (in *vinput) KeyDown(ctx context.Context, c actions.Combo) error {
	syms, err := comboSyms(c)
	if err != nil {
		return in.errorf("key down: %w", err)
	}
	if err := in.begin(ctx); err != nil {
		return in.errorf("key down %s: %w", c, err)
	}
	defer in.mu.Unlock()
	if err := in.dev.prepare(syms); err != nil {
		return in.errorf("key down %s: %w", c, err)
	}
	for _, s := range syms {
		if in.keys[s] {
			continue
		}
		if err := in.keyLocked(s, true); err != nil {
			return in.errorf("key down %s: %w", c, err)
		}
	}
	return in.dev.flush(ctx)
}

// KeyUp releases the keys of c this input holds, in reverse order; the
// others are left alone. It works after ctx is done (Stop), as ReleaseAll
// and the X11 robot's KeyUp do: a held key must not outlive its run.
func (in *vinput) KeyUp(ctx context.Context, c actions.Combo) error {
	syms, err := comboSyms(c)
	if err != nil {
		return in.errorf("key up: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), openTimeout)
	defer cancel()
	if err := in.begin(ctx); err != nil {
		return in.errorf("key up %s: %w", c, err)
	}
	defer in.mu.Unlock()
	var errs []error
	for _, s := range slices.Backward(syms) {
		if in.keys[s] {
			errs = append(errs, in.keyLocked(s, false))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return in.errorf("key up %s: %w", c, err)
	}
	return in.dev.flush(ctx)
}

// ButtonDown moves the pointer to p and presses b, leaving it down; it fails
// when b is down already.
func (in *vinput) ButtonDown(ctx context.Context, p actions.Point, b actions.Button) error {
	if err := in.check("button down", p); err != nil {
		return err
	}
	code, err := buttonCode(b)
	if err != nil {
		return in.errorf("button down: %w", err)
	}
	if err := in.begin(ctx); err != nil {
		return in.errorf("button down: %w", err)
	}
	defer in.mu.Unlock()
	if in.buttons[code] {
		return in.errorf("button down: the %s button is down already: release it first", b)
	}
	if err := in.moveLocked(p); err != nil {
		return in.errorf("button down at %v: %w", p, err)
	}
	if err := in.buttonLocked(code, true); err != nil {
		return in.errorf("%s button down at %v: %w", b, p, err)
	}
	return in.dev.flush(ctx)
}

// ButtonUp moves the pointer to p in small steps with b still down (a drag's
// motion) and releases b there. It fails, sending nothing, when b is not
// down. Stopped on the way, it releases b where the pointer is.
func (in *vinput) ButtonUp(ctx context.Context, p actions.Point, b actions.Button) error {
	if err := in.check("button up", p); err != nil {
		return err
	}
	code, err := buttonCode(b)
	if err != nil {
		return in.errorf("button up: %w", err)
	}
	if err := in.begin(ctx); err != nil {
		return in.errorf("button up: %w", err)
	}
	defer in.mu.Unlock()
	if !in.buttons[code] {
		return in.errorf("button up: the %s button is not down: press it first (or drag from one point to another)", b)
	}
	release := func() error { return in.buttonLocked(code, false) }
	if in.at != nil {
		if err := in.glideLocked(ctx, *in.at, p); err != nil {
			return errors.Join(in.errorf("button up at %v: %w", p, err), release(), in.dev.flush(context.WithoutCancel(ctx)))
		}
	}
	if err := in.moveLocked(p); err != nil {
		return errors.Join(in.errorf("button up at %v: %w", p, err), release())
	}
	if err := release(); err != nil {
		return in.errorf("%s button up at %v: %w", b, p, err)
	}
	return in.dev.flush(context.WithoutCancel(ctx))
}
