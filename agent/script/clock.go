package script

import (
	"sync"
	"time"
)

// clock is a block's time budget: a timer that calls expire once the block
// has run for its limit, not counting the spans between pause and resume
// (Call.Sleep, Call.Untimed). Safe for concurrent use.
type clock struct {
	mu      sync.Mutex
	left    time.Duration // budget remaining as of since
	since   time.Time     // when the clock last started running
	paused  int           // nesting depth of pause
	timer   *time.Timer   // nil when unlimited
	stopped bool
}

// startClock starts a clock of limit d; d <= 0 means unlimited.
func startClock(d time.Duration, expire func()) *clock {
	c := &clock{left: d, since: time.Now()}
	if d > 0 {
		c.timer = time.AfterFunc(d, expire)
	}
	return c
}

func (c *clock) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused++
	if c.paused > 1 || c.timer == nil || c.stopped {
		return
	}
	if !c.timer.Stop() {
		c.stopped = true // already expired
		return
	}
	c.left -= time.Since(c.since)
}

func (c *clock) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused--
	if c.paused > 0 || c.timer == nil || c.stopped {
		return
	}
	c.since = time.Now()
	c.timer.Reset(max(c.left, 0))
}

// stop ends the clock for good; expire is not called after it returns
// (unless it was already running).
func (c *clock) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	if c.timer != nil {
		c.timer.Stop()
	}
}
