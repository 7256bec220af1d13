package agent

import (
	"context"

	"deskpilot/actions"
)

// The tracked input holds keys and buttons when the desktop's input can
// (actions.Holder); the builtins then keep modifiers down around a click and
// the left button down between steps. What is held is let go by ReleaseAll,
// which the run calls when it ends, stops or the person takes over.
var _ actions.Holder = (*trackedInput)(nil)

func (t *trackedInput) holder() (actions.Holder, error) {
	h, ok := t.Input.(actions.Holder)
	if !ok {
		return nil, actions.ErrCannotHold
	}
	return h, nil
}

func (t *trackedInput) KeyDown(ctx context.Context, c actions.Combo) error {
	h, err := t.holder()
	if err != nil {
		return err
	}
	if err := t.beforeKeys(ctx); err != nil {
		return err
	}
	defer t.keysDone()
	return h.KeyDown(ctx, c)
}

func (t *trackedInput) KeyUp(ctx context.Context, c actions.Combo) error {
	h, err := t.holder()
	if err != nil {
		return err
	}
	defer t.keysDone()
	return h.KeyUp(ctx, c)
}

func (t *trackedInput) ButtonDown(ctx context.Context, p actions.Point, b actions.Button) error {
	h, err := t.holder()
	if err != nil {
		return err
	}
	c := t.beforeClick(ctx, p)
	defer t.pointerDone(c)
	return h.ButtonDown(ctx, p, b)
}

func (t *trackedInput) ButtonUp(ctx context.Context, p actions.Point, b actions.Button) error {
	h, err := t.holder()
	if err != nil {
		return err
	}
	defer t.pointerDone(nil)
	return h.ButtonUp(ctx, p, b)
}
