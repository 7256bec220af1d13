package script

import (
	"sync"
	"time"
)

// clock is a block's time budget: a timer that calls expire once the block
// has run for its limit, not counting the spans between pause and resume
// (Call.Sleep, Call.Untimed). Safe for concurrent use.
type clock struct {
	mu       sync.Mutex
	left     time.Duration // budget remaining as of since
	since    time.Time     // when the clock last started running
	paused   int           // nesting depth of pause
	pausedAt time.Time     // when the outermost pause began
	untimed  time.Duration // total time spent paused
	timer    *time.Timer   // nil when unlimited
	stopped  bool
}

// startClock starts a clock of limit d; d <= 0 means unlimited.
func startClock(d time.Duration, expire func()) *clock {
	c := &clock{left: d, since: time.Now()}
	if d > 0 {
		c.timer = time.AfterFunc(d, expire)
	}
	return c
}

// remaining is the budget left; ok is false when the clock has no limit.
func (c *clock) remaining() (left time.Duration, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer == nil {
		return 0, false
	}
	switch {
	case c.stopped: // expired (or the block ended)
		return 0, true
	case c.paused > 0:
		return max(c.left, 0), true
	}
	return max(c.left-time.Since(c.since), 0), true
}

// pausedTotal is the time spent paused so far.
func (c *clock) pausedTotal() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.untimed
	if c.paused > 0 {
		t += time.Since(c.pausedAt)
	}
	return t
}

// spend charges d of work done elsewhere (a tool run in another process) to
// the running clock.
func (c *clock) spend(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d <= 0 || c.timer == nil || c.stopped || c.paused > 0 {
		c.left -= d
		return
	}
	if !c.timer.Stop() {
		c.stopped = true // already expired
		return
	}
	c.left -= time.Since(c.since) + d
	c.since = time.Now()
	c.timer.Reset(max(c.left, 0))
}

func (c *clock) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused++
	if c.paused == 1 {
		c.pausedAt = time.Now()
	}
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
	if c.paused == 0 {
		c.untimed += time.Since(c.pausedAt)
	}
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
