//go:build linux

package desktop

import (
	"errors"
	"fmt"
	"image"
	"slices"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"deskpilot/internal/xconn"
)

// windowTracker keeps the top-level windows of an X screen (the root's
// children: window-manager frames and override-redirect windows), their
// rectangles, stacking order and whether they are shown, current from
// SubstructureNotify events on the root, so that listing deskpilot's own
// visible windows costs no round trip. The full scan it replaces walked the
// window tree on every call: about 420 serial round trips with 30 windows.
//
// It uses two connections: events arrive on one whose reader never waits for
// a reply (xgb stops reading replies while its event queue is full, so a
// consumer that made round trips on the same connection could deadlock), and
// the few queries (the first snapshot; _NET_WM_PID of a window the first time
// it is shown) go over the other. Safe for concurrent use.
type windowTracker struct {
	events, query *xgb.Conn
	root          xproto.Window
	pid           int
	pidAtom       xproto.Atom
	// peers lists other deskpilot processes whose windows count as this
	// process's own (Options.Peers); nil = none. Set before the first
	// ownWindows.
	peers func() []int

	mu      sync.Mutex
	wins    []*topWindow // stacking order, bottom first
	ready   bool         // the snapshot is in; events before it wait in pending
	pending []xgb.Event
	visible []image.Rectangle // cached visibleParts; valid unless dirty
	dirty   bool
	// ownInput is when the last input event reached one of this process's
	// windows (motion, a button released, a key, the pointer coming or going).
	ownInput time.Time
	err      error // why the event loop ended
	done     chan struct{}
}

// topWindow is one child of the root.
type topWindow struct {
	id     xproto.Window
	rect   image.Rectangle // frame, border included, root coordinates
	mapped bool
	owner  ownerState
	client xproto.Window // the window that names the owner (id itself, or inside a frame)
}

// ownInputMask is the input the tracker watches on this process's windows, to
// tell a person using deskpilot from one taking over. ButtonPress is missing:
// X lets one client only select it on a window, and the toolkit has.
const ownInputMask = xproto.EventMaskPointerMotion | xproto.EventMaskButtonRelease | xproto.EventMaskKeyPress |
	xproto.EventMaskEnterWindow | xproto.EventMaskLeaveWindow

// ownerState says whether a window is known to be deskpilot's.
type ownerState int8

const (
	ownerUnknown ownerState = iota // not looked at since it was last shown
	ownerSelf
	ownerOther
)

// trackWindows starts tracking the top-level windows of display name for the
// windows of process pid, connecting with the cookie of authority file auth
// ("" = $XAUTHORITY).
func trackWindows(name, auth string, pid int) (*windowTracker, error) {
	events, err := xconn.DialAuth(name, auth)
	if err != nil {
		return nil, fmt.Errorf("track windows on %s: %w", name, err)
	}
	query, err := xconn.DialAuth(name, auth)
	if err != nil {
		xconn.Close(events)
		return nil, fmt.Errorf("track windows on %s: %w", name, err)
	}
	t := &windowTracker{events: events, query: query, pid: pid, done: make(chan struct{}), dirty: true,
		root: xproto.Setup(query).DefaultScreen(query).Root}
	if err := t.start(); err != nil {
		t.close()
		return nil, fmt.Errorf("track windows on %s: %w", name, err)
	}
	return t, nil
}

// start selects the events, runs the event loop, and then takes the snapshot.
func (t *windowTracker) start() error {
	a, err := xproto.InternAtom(t.query, false, uint16(len("_NET_WM_PID")), "_NET_WM_PID").Reply()
	if err != nil {
		return fmt.Errorf("intern _NET_WM_PID: %w", err)
	}
	t.pidAtom = a.Atom
	root := xproto.Setup(t.events).DefaultScreen(t.events).Root
	if err := xproto.ChangeWindowAttributesChecked(t.events, root, xproto.CwEventMask,
		[]uint32{xproto.EventMaskSubstructureNotify}).Check(); err != nil {
		return fmt.Errorf("select root events: %w", err)
	}
	go t.loop()
	wins, err := t.snapshot()
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.wins, t.ready = wins, true
	// Every change since the events were selected is in pending: replaying them
	// in order on the snapshot gives the current state.
	for _, ev := range t.pending {
		t.apply(ev)
	}
	t.pending = nil
	return nil
}

// snapshot lists the root's children with their geometry and map state,
// pipelining the requests.
func (t *windowTracker) snapshot() ([]*topWindow, error) {
	tree, err := xproto.QueryTree(t.query, t.root).Reply()
	if err != nil {
		return nil, fmt.Errorf("query tree: %w", err)
	}
	attrs := make([]xproto.GetWindowAttributesCookie, len(tree.Children))
	geos := make([]xproto.GetGeometryCookie, len(tree.Children))
	for i, w := range tree.Children {
		attrs[i] = xproto.GetWindowAttributes(t.query, w)
		geos[i] = xproto.GetGeometry(t.query, xproto.Drawable(w))
	}
	var wins []*topWindow
	for i, w := range tree.Children {
		a, aerr := attrs[i].Reply()
		g, gerr := geos[i].Reply()
		if aerr != nil || gerr != nil {
			continue // gone since the tree was read; its DestroyNotify follows
		}
		wins = append(wins, &topWindow{id: w, mapped: a.MapState != xproto.MapStateUnmapped,
			rect: frameRect(g.X, g.Y, g.Width, g.Height, g.BorderWidth)})
	}
	return wins, nil
}

// loop applies events until the connection closes.
func (t *windowTracker) loop() {
	defer close(t.done)
	for {
		ev, xerr := t.events.WaitForEvent()
		if ev == nil && xerr == nil {
			t.mu.Lock()
			t.err = errors.New("window tracking ended: the X connection closed")
			t.mu.Unlock()
			return
		}
		if ev == nil {
			continue // an X error from a request of ours; the state is unchanged
		}
		if isOwnInput(ev) {
			t.mu.Lock()
			t.ownInput = time.Now()
			t.mu.Unlock()
			continue
		}
		t.mu.Lock()
		if t.ready {
			t.apply(ev)
		} else {
			t.pending = append(t.pending, ev)
		}
		t.mu.Unlock()
	}
}

// isOwnInput reports whether ev is input to one of this process's windows:
// the tracker selects input events on those only (ownInputMask). Crossings a
// grab makes are not the person's doing.
func isOwnInput(ev xgb.Event) bool {
	switch e := ev.(type) {
	case xproto.MotionNotifyEvent, xproto.ButtonReleaseEvent, xproto.KeyPressEvent:
		return true
	case xproto.EnterNotifyEvent:
		return e.Mode == xproto.NotifyModeNormal
	case xproto.LeaveNotifyEvent:
		return e.Mode == xproto.NotifyModeNormal
	}
	return false
}

// lastOwnInput is when input last reached one of this process's windows; zero
// before any did.
func (t *windowTracker) lastOwnInput() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ownInput
}

// apply updates the state from one event. Called locked.
func (t *windowTracker) apply(ev xgb.Event) {
	switch e := ev.(type) {
	case xproto.CreateNotifyEvent:
		if e.Parent == t.root {
			t.add(&topWindow{id: e.Window, rect: frameRect(e.X, e.Y, e.Width, e.Height, e.BorderWidth)})
		}
	case xproto.DestroyNotifyEvent:
		t.remove(e.Window)
	case xproto.ReparentNotifyEvent:
		if e.Parent == t.root {
			t.add(&topWindow{id: e.Window, rect: image.Rect(int(e.X), int(e.Y), int(e.X), int(e.Y))})
		} else {
			t.remove(e.Window)
		}
	case xproto.MapNotifyEvent:
		if w := t.find(e.Window); w != nil {
			w.mapped, w.owner = true, ownerUnknown
		}
	case xproto.UnmapNotifyEvent:
		if w := t.find(e.Window); w != nil {
			w.mapped = false
		}
	case xproto.ConfigureNotifyEvent:
		if w := t.find(e.Window); w != nil {
			w.rect = frameRect(e.X, e.Y, e.Width, e.Height, e.BorderWidth)
			t.restack(w, e.AboveSibling)
		}
	case xproto.GravityNotifyEvent:
		if w := t.find(e.Window); w != nil {
			w.rect = w.rect.Add(image.Pt(int(e.X), int(e.Y)).Sub(w.rect.Min))
		}
	case xproto.CirculateNotifyEvent:
		if w := t.find(e.Window); w != nil {
			t.remove(w.id)
			if e.Place == xproto.PlaceOnTop {
				t.wins = append(t.wins, w)
			} else {
				t.wins = slices.Insert(t.wins, 0, w)
			}
		}
	default:
		return
	}
	t.dirty = true
}

// add puts w on top of the stack (a new child of the root is created on top),
// replacing an entry with the same id.
func (t *windowTracker) add(w *topWindow) {
	t.remove(w.id)
	t.wins = append(t.wins, w)
}

func (t *windowTracker) remove(id xproto.Window) {
	t.wins = slices.DeleteFunc(t.wins, func(w *topWindow) bool { return w.id == id })
}

func (t *windowTracker) find(id xproto.Window) *topWindow {
	for _, w := range t.wins {
		if w.id == id {
			return w
		}
	}
	return nil
}

// restack moves w just above sibling below (None: to the bottom).
func (t *windowTracker) restack(w *topWindow, below xproto.Window) {
	t.remove(w.id)
	at := 0
	if below != xproto.WindowNone {
		if i := slices.IndexFunc(t.wins, func(x *topWindow) bool { return x.id == below }); i >= 0 {
			at = i + 1
		}
	}
	t.wins = slices.Insert(t.wins, at, w)
}

// ownWindows returns the visible parts of the windows of the tracked process.
// It makes round trips only for windows shown since the last call, to read
// their _NET_WM_PID once.
func (t *windowTracker) ownWindows() ([]image.Rectangle, error) {
	t.mu.Lock()
	if t.err != nil {
		defer t.mu.Unlock()
		return nil, t.err
	}
	var unknown []xproto.Window
	for _, w := range t.wins {
		if w.mapped && w.owner == ownerUnknown {
			unknown = append(unknown, w.id)
		}
	}
	t.mu.Unlock()
	type owner struct {
		state  ownerState
		client xproto.Window
	}
	owners := make(map[xproto.Window]owner, len(unknown))
	var peers []int
	if len(unknown) > 0 && t.peers != nil {
		peers = t.peers()
	}
	for _, id := range unknown {
		st, client := t.ownerOf(id, peers)
		if st == ownerSelf {
			t.watchInput(id, client)
		}
		owners[id] = owner{st, client}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, w := range t.wins {
		if o, ok := owners[w.id]; ok && w.owner == ownerUnknown {
			w.owner, w.client, t.dirty = o.state, o.client, true
		}
	}
	if t.dirty {
		var st []stacked
		for _, w := range t.wins {
			if w.mapped {
				st = append(st, stacked{rect: w.rect, own: w.owner == ownerSelf})
			}
		}
		t.visible, t.dirty = visibleParts(st), false
	}
	return slices.Clone(t.visible), nil
}

// ownerOf reads _NET_WM_PID of w or, for a window-manager frame, of the
// client inside it (up to two levels down); it also returns the window that
// carries it. A window of one of peers counts as this process's own.
func (t *windowTracker) ownerOf(w xproto.Window, peers []int) (ownerState, xproto.Window) {
	pid, client, ok := t.wmPID(w, 2)
	switch {
	case !ok:
		return ownerOther, 0
	case pid == t.pid, slices.Contains(peers, pid):
		return ownerSelf, client
	}
	return ownerOther, client
}

func (t *windowTracker) wmPID(w xproto.Window, depth int) (int, xproto.Window, bool) {
	p, err := xproto.GetProperty(t.query, false, w, t.pidAtom, xproto.AtomCardinal, 0, 1).Reply()
	if err == nil && p.Format == 32 && len(p.Value) >= 4 {
		return int(xgb.Get32(p.Value)), w, true
	}
	if depth == 0 {
		return 0, 0, false
	}
	tree, err := xproto.QueryTree(t.query, w).Reply()
	if err != nil {
		return 0, 0, false
	}
	for _, c := range tree.Children {
		if pid, client, ok := t.wmPID(c, depth-1); ok {
			return pid, client, true
		}
	}
	return 0, 0, false
}

// watchInput selects the input events of ownInputMask on one of this
// process's windows and on the window manager's frame around it (its title
// bar: the person moving the strip), over the event connection. Selecting is
// not exclusive for these events, so the toolkit still gets them.
func (t *windowTracker) watchInput(frame, client xproto.Window) {
	for _, w := range []xproto.Window{frame, client} {
		if w != 0 {
			xproto.ChangeWindowAttributes(t.events, w, xproto.CwEventMask, []uint32{ownInputMask})
		}
		if client == frame {
			break
		}
	}
}

// close ends the event loop and closes both connections.
func (t *windowTracker) close() {
	xconn.Close(t.events)
	xconn.Close(t.query)
}

// frameRect is a window's rectangle with its border.
func frameRect(x, y int16, w, h, border uint16) image.Rectangle {
	return image.Rect(int(x), int(y), int(x)+int(w)+2*int(border), int(y)+int(h)+2*int(border))
}
