package actions

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Holder is an Input that keeps keys and mouse buttons down between its
// primitives: modifier keys held around a click, scroll or drag (a
// shift-click, a ctrl-scroll), and a button pressed in one step of a run and
// let go in a later one (a model's left_mouse_down, then left_mouse_up in its
// next reply). What it holds stays down until the matching up call or
// ReleaseAll, which the agent calls when the run ends, stops or the person
// takes over. *robot.Robot implements it; an Input that does not makes the
// builtins that need it fail with ErrCannotHold.
type Holder interface {
	// KeyDown presses the keys of c (modifiers first) and leaves them down.
	// A key this Holder already holds is not pressed again.
	KeyDown(ctx context.Context, c Combo) error
	// KeyUp releases the keys of c this Holder holds, in reverse order; keys
	// it does not hold are left alone.
	KeyUp(ctx context.Context, c Combo) error
	// ButtonDown moves the pointer to p and presses b, leaving it down. It
	// fails when this Holder holds b already.
	ButtonDown(ctx context.Context, p Point, b Button) error
	// ButtonUp moves the pointer to p (in steps, as a drag does, while b is
	// down) and releases b there. It fails, sending nothing, when this
	// Holder does not hold b.
	ButtonUp(ctx context.Context, p Point, b Button) error
}

// ErrCannotHold is the error of a builtin that needs a Holder on a desktop
// whose input is not one.
var ErrCannotHold = errors.New("this desktop's input cannot keep keys or mouse buttons down between actions")

// ParseModifiers parses modifier keys joined by "+" ("shift", "ctrl+shift"),
// as held during a pointer action, into a Combo whose Key is the last of
// them. Only ctrl, alt, shift and super (and their aliases) are accepted.
func ParseModifiers(s string) (Combo, error) {
	c, err := ParseCombo(s)
	if err != nil {
		return Combo{}, err
	}
	if !IsModifier(c.Key) {
		return Combo{}, &ComboError{Combo: s, Msg: fmt.Sprintf(
			"%q is not a modifier: only modifiers can be held during a mouse action (ctrl, alt, shift, super)", strings.TrimSpace(c.Key))}
	}
	return c, nil
}
