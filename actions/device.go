package actions

import (
	"context"
	"time"
)

// Input is a mouse and keyboard: the primitives the builtins drive, declared
// once for the agent, its script tools and the desktop backends that
// implement it (*robot.Robot, internal/desktop's). Points are screen pixels in
// root coordinates. Every method honours ctx and checks its points before
// sending anything; the agent calls them from one goroutine at a time.
type Input interface {
	Move(ctx context.Context, p Point) error
	Click(ctx context.Context, p Point, b Button, n int) error
	Drag(ctx context.Context, from, to Point) error
	Scroll(ctx context.Context, p Point, d Direction, amount int) error
	Press(ctx context.Context, c Combo) error
	Hold(ctx context.Context, c Combo, d time.Duration) error
	Type(ctx context.Context, text string) error
	Cursor() (Point, error)
	// ReleaseAll releases every key and button the input holds down (the
	// run stopped, or the person took over).
	ReleaseAll() error
}
