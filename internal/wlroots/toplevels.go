package wlroots

import (
	"encoding/binary"
	"slices"
	"sync"
	"time"

	"deskpilot/internal/wl"
)

// Toplevel is one window as zwlr_foreign_toplevel_manager_v1 lists it. The
// protocol carries no geometry and no process: the compositor's own IPC
// (sway's) has those.
type Toplevel struct {
	Title     string
	AppID     string
	Activated bool // it has the keyboard focus
	Minimized bool
}

// toplevels keeps the window list current from the manager's events.
type toplevels struct {
	mgr *wl.ZwlrForeignToplevelManagerV1
	mu  sync.Mutex
	all map[*wl.ZwlrForeignToplevelHandleV1]*Toplevel
	// focusedAt is when a window last gained the focus.
	focusedAt time.Time
}

func newToplevels() *toplevels {
	t := &toplevels{all: map[*wl.ZwlrForeignToplevelHandleV1]*Toplevel{}}
	t.mgr = &wl.ZwlrForeignToplevelManagerV1{OnToplevel: t.add}
	return t
}

// add watches a new window; runs on the reader goroutine.
func (t *toplevels) add(h *wl.ZwlrForeignToplevelHandleV1) {
	var pending Toplevel
	h.OnTitle = func(s string) { pending.Title = s }
	h.OnAppId = func(s string) { pending.AppID = s }
	h.OnState = func(a []byte) {
		pending.Activated, pending.Minimized = false, false
		for i := 0; i+4 <= len(a); i += 4 {
			switch binary.LittleEndian.Uint32(a[i:]) {
			case wl.ZwlrForeignToplevelHandleV1StateActivated:
				pending.Activated = true
			case wl.ZwlrForeignToplevelHandleV1StateMinimized:
				pending.Minimized = true
			}
		}
	}
	h.OnDone = func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		was := t.all[h]
		if pending.Activated && (was == nil || !was.Activated) {
			t.focusedAt = time.Now()
		}
		v := pending
		t.all[h] = &v
	}
	h.OnClosed = func() {
		t.mu.Lock()
		delete(t.all, h)
		t.mu.Unlock()
		_ = h.Destroy()
	}
}

// Toplevels lists the windows, sorted by title.
func (c *Client) Toplevels() ([]Toplevel, error) {
	if c.tops == nil {
		return nil, errMissing(wl.ZwlrForeignToplevelManagerV1Interface, "list windows")
	}
	c.tops.mu.Lock()
	defer c.tops.mu.Unlock()
	out := make([]Toplevel, 0, len(c.tops.all))
	for _, v := range c.tops.all {
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b Toplevel) int {
		if a.Title < b.Title {
			return -1
		}
		if a.Title > b.Title {
			return 1
		}
		return 0
	})
	return out, nil
}
