package agent

import "context"

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
}
