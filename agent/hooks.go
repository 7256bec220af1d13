package agent

import (
	"context"
	"image"
)

// Hooks connect a run to whoever watches it (the app, the CLI, a test).
// Every field may be nil.
type Hooks struct {
	// Event receives every event, called from the loop goroutine. It must return
	// quickly; the app hands events to the UI with fyne.Do.
	Event func(Event)
	// Ask answers the model's ask_user(question). nil means no person is there:
	// the model is told so.
	Ask func(ctx context.Context, question string) (string, error)
	// Confirm approves an action the safety policy marks (launch, open_url, closing
	// key combos). nil denies them.
	Confirm func(ctx context.Context, action string) (bool, error)
	// MakeRoom asks the app to move its own window away from p (root
	// coordinates), where the agent is about to act and would otherwise be
	// refused; it returns once the window has moved, reporting whether it did.
	// The agent then checks p again, once. nil: own windows stay where they are.
	MakeRoom func(ctx context.Context, p image.Point) bool
}
