package wlroots

import (
	"sync"
	"time"

	"deskpilot/internal/wl"
)

// idleTick is the timeout of the idle watch: how long without input before
// the compositor says "idle". Idle times are known to this granularity.
const idleTick = 100 * time.Millisecond

// idleWatch turns org_kde_kwin_idle's idle/resumed events into an idle
// time: after "idle", the last input was idleTick before it; while resumed,
// the last input was less than idleTick ago.
type idleWatch struct {
	mgr     *wl.OrgKdeKwinIdle
	timeout *wl.OrgKdeKwinIdleTimeout
	mu      sync.Mutex
	idleAt  time.Time // when "idle" came; zero while input is going on
	started bool
}

// startIdle asks for the idle events of the seat; called once.
func (c *Client) startIdle() error {
	w := c.idle
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.started {
		return nil
	}
	w.started = true
	w.timeout = &wl.OrgKdeKwinIdleTimeout{
		OnIdle: func() {
			w.mu.Lock()
			w.idleAt = time.Now()
			w.mu.Unlock()
		},
		OnResumed: func() {
			w.mu.Lock()
			w.idleAt = time.Time{}
			w.mu.Unlock()
		},
	}
	return w.mgr.GetIdleTimeout(w.timeout, c.seat, uint32(idleTick/time.Millisecond))
}

// Idle is how long ago the seat last saw input from any device, its own
// virtual ones included, to within idleTick (it errs long while input goes
// on); ErrUnsupported when the compositor offers no idle protocol.
func (c *Client) Idle() (time.Duration, error) {
	if c.idle == nil || c.seat == nil {
		return 0, ErrUnsupported
	}
	if err := c.startIdle(); err != nil {
		return 0, err
	}
	w := c.idle
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.idleAt.IsZero() {
		return idleTick, nil
	}
	return time.Since(w.idleAt) + idleTick, nil
}
