package robot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"deskpilot/actions"
	"deskpilot/internal/wait"
)

// X button numbers.
const (
	xButtonLeft   = 1
	xButtonMiddle = 2
	xButtonRight  = 3
	xWheelUp      = 4
	xWheelDown    = 5
	xWheelLeft    = 6
	xWheelRight   = 7
)

// Limits of the mouse primitives.
const (
	// MaxClicks is the largest click count Click accepts (3 = triple click).
	MaxClicks = 3
	// MaxScroll is the largest scroll amount, in wheel clicks.
	MaxScroll = 100
	// dragStepDelay is the pause between the pointer steps of a drag, so
	// applications see a motion rather than a jump.
	dragStepDelay = 10 * time.Millisecond
	// dragStepPixels is about how far the pointer moves per drag step.
	dragStepPixels = 20
	minDragSteps   = 5
	maxDragSteps   = 30
)

// Move moves the pointer to p.
func (r *Robot) Move(ctx context.Context, p actions.Point) error {
	if err := r.check("move", p); err != nil {
		return err
	}
	if err := r.begin(ctx); err != nil {
		return fmt.Errorf("robot: move: %w", err)
	}
	defer r.mu.Unlock()
	r.motion(p)
	if err := r.sync(); err != nil {
		return fmt.Errorf("robot: move to %v: %w", p, err)
	}
	return nil
}

// Click moves the pointer to p and clicks button b n times (1 to MaxClicks):
// n=2 is a real double click, the presses following each other at once at the
// same spot, so applications see a double click, not two single ones.
func (r *Robot) Click(ctx context.Context, p actions.Point, b actions.Button, n int) error {
	if err := r.check("click", p); err != nil {
		return err
	}
	xb, err := xButton(b)
	if err != nil {
		return fmt.Errorf("robot: click: %w", err)
	}
	if n < 1 || n > MaxClicks {
		return fmt.Errorf("robot: click: click count %d must be between 1 and %d", n, MaxClicks)
	}
	if err := r.begin(ctx); err != nil {
		return fmt.Errorf("robot: click: %w", err)
	}
	defer r.mu.Unlock()
	r.motion(p)
	for range n {
		r.button(xb, true)
		r.button(xb, false)
	}
	if err := r.sync(); err != nil {
		return fmt.Errorf("robot: %s click at %v: %w", b, p, err)
	}
	return nil
}

// Drag presses the left button at from, moves the pointer to to in several
// small steps (about 10 ms apart) and releases it there. When ctx is done
// halfway the button is released where the pointer is and ctx's error
// returned.
func (r *Robot) Drag(ctx context.Context, from, to actions.Point) error {
	if err := r.check("drag from", from); err != nil {
		return err
	}
	if err := r.check("drag to", to); err != nil {
		return err
	}
	if err := r.begin(ctx); err != nil {
		return fmt.Errorf("robot: drag: %w", err)
	}
	defer r.mu.Unlock()
	if err := r.drag(ctx, from, to); err != nil {
		return errors.Join(fmt.Errorf("robot: drag %v to %v: %w", from, to, err), r.releaseButton(xButtonLeft))
	}
	return nil
}

func (r *Robot) drag(ctx context.Context, from, to actions.Point) error {
	r.motion(from)
	r.button(xButtonLeft, true)
	if err := r.sync(); err != nil {
		return err
	}
	if err := r.glide(ctx, from, to); err != nil {
		return err
	}
	r.button(xButtonLeft, false)
	return r.sync()
}

// glide moves the pointer from from to to in several small steps (about
// dragStepDelay apart), so applications see a motion rather than a jump.
// Called locked.
func (r *Robot) glide(ctx context.Context, from, to actions.Point) error {
	dx, dy := to.X-from.X, to.Y-from.Y
	steps := min(max(max(abs(dx), abs(dy))/dragStepPixels, minDragSteps), maxDragSteps)
	for i := 1; i <= steps; i++ {
		if err := wait.Sleep(ctx, dragStepDelay); err != nil {
			return err
		}
		r.motion(actions.Point{X: from.X + dx*i/steps, Y: from.Y + dy*i/steps})
		if err := r.sync(); err != nil {
			return err
		}
	}
	return nil
}

// Scroll moves the pointer to p and turns the wheel amount clicks (1 to
// MaxScroll) in direction d; left and right are the horizontal wheel.
func (r *Robot) Scroll(ctx context.Context, p actions.Point, d actions.Direction, amount int) error {
	if err := r.check("scroll", p); err != nil {
		return err
	}
	var wheel byte
	switch d {
	case actions.ScrollUp:
		wheel = xWheelUp
	case actions.ScrollDown:
		wheel = xWheelDown
	case actions.ScrollLeft:
		wheel = xWheelLeft
	case actions.ScrollRight:
		wheel = xWheelRight
	default:
		return fmt.Errorf("robot: scroll: unknown direction %q: accepted directions are up, down, left, right", d)
	}
	if amount < 1 || amount > MaxScroll {
		return fmt.Errorf("robot: scroll: amount %d must be between 1 and %d", amount, MaxScroll)
	}
	if err := r.begin(ctx); err != nil {
		return fmt.Errorf("robot: scroll: %w", err)
	}
	defer r.mu.Unlock()
	r.motion(p)
	for range amount {
		r.button(wheel, true)
		r.button(wheel, false)
	}
	if err := r.sync(); err != nil {
		return fmt.Errorf("robot: scroll %s at %v: %w", d, p, err)
	}
	return nil
}

// releaseButton releases b if this Robot holds it. Called locked.
func (r *Robot) releaseButton(b byte) error {
	if !r.buttons[b] {
		return nil
	}
	r.button(b, false)
	return r.sync()
}

// check validates p against the target bounds.
func (r *Robot) check(op string, p actions.Point) error {
	if err := actions.CheckPoint(p, r.bounds); err != nil {
		return fmt.Errorf("robot: %s: %w", op, err)
	}
	return nil
}

// xButton maps a button to its X number.
func xButton(b actions.Button) (byte, error) {
	switch b {
	case actions.Left:
		return xButtonLeft, nil
	case actions.Middle:
		return xButtonMiddle, nil
	case actions.Right:
		return xButtonRight, nil
	}
	return 0, fmt.Errorf("unknown mouse button %v: accepted buttons are left, middle, right", b)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
