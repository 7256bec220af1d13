package desktop

import (
	"context"
	"time"
)

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
