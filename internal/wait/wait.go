// Package wait holds the one way deskpilot pauses for a while: a sleep that
// ends early when its context does, so Stop reaches every wait.
package wait

import (
	"context"
	"time"
)

// Sleep waits for d, or until ctx is done: then it returns ctx.Err(). A d of
// zero or less returns at once (ctx.Err() when ctx is already done).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
