//go:build linux

package app

import (
	"image"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"deskpilot/internal/xconn"
)

// placer moves the main window where the toolkit cannot: on X11 the strip goes
// to a corner of the work area and stays above other windows, so Stop is
// always in reach whatever the agent opens or raises; it moves to another
// corner when it would cover the agent's last actions (and the pointer it left
// there), the window the agent works in or a point it is about to click; the
// full window returns where it was. On sway (a native Wayland window, or an
// Xwayland one) sway's IPC does the same (place_sway.go); elsewhere (other
// Wayland compositors, other systems, the test driver) it does nothing.
//
// Its methods are called on the Fyne goroutine; the X requests run in order on
// a goroutine of its own, so the UI never waits for the window manager.
type placer struct {
	once    sync.Once
	conn    *xgb.Conn // nil when the display could not be reached (connErr)
	connErr error
	ops     chan func(*xgb.Conn)
	busy    atomic.Bool // a re-check is queued or running; further ones are skipped

	// sway places the window where it is a Wayland window on sway (place_sway.go).
	sway swayPlacer

	// Used by the worker only.
	saved  *image.Point // client position of the full window
	corner corner       // where the strip is
	strip  bool         // the window is the strip
}

// toStrip places the window win, which was just resized to size (Fyne units),
// as the strip, keeping clear of keep (root coordinates: the agent's last
// actions, which include where it left the pointer) and of the window the
// agent works in. The person's pointer is not avoided: a strip that fled from
// it could not be clicked. With must it goes to a corner now (the
// window just became the strip or changed size); otherwise it moves only when
// it covers something another corner does not. It reports whether the request
// was queued; placed is then called, from another goroutine, once the window
// is in place (or the window manager did not move it within a second).
func (p *placer) toStrip(win fyne.Window, size fyne.Size, keep []keepOut, must bool, placed func(placement)) bool {
	id := x11Window(win)
	if id == 0 {
		return p.sway.toStrip(win, size, keep, must, placed)
	}
	if !must && !p.busy.CompareAndSwap(false, true) {
		return false
	}
	scale := win.Canvas().Scale()
	want := image.Pt(int(size.Width*scale+0.5), int(size.Height*scale+0.5))
	ok := p.do(func(c *xgb.Conn) {
		if !must {
			defer p.busy.Store(false)
		}
		pl := p.place(c, id, want, keep, must)
		if placed != nil {
			placed(pl)
		}
	})
	if !ok && !must {
		p.busy.Store(false)
	}
	return ok
}

// place moves the strip where pickCorner says; run by the worker.
func (p *placer) place(c *xgb.Conn, id xproto.Window, want image.Point, keep []keepOut, must bool) placement {
	first := !p.strip
	if first {
		if pos, ok := clientPos(c, id); ok {
			p.saved = &pos
		}
		p.corner = bottomRight
	}
	p.strip = true
	got := waitSize(c, id, want)
	ext := frameExtents(c, id)
	pos, _ := clientPos(c, id)
	frame := image.Rect(pos.X-ext[0], pos.Y-ext[2], pos.X+got.X+ext[1], pos.Y+got.Y+ext[3])
	if w, ok := workWindow(c, id); ok {
		keep = append(keep, keepOut{r: w, weight: weightWindow})
	}
	from := p.corner
	to, at, move := pickCorner(workArea(c), frame, frame.Size(), keep, p.corner, must || first)
	pl := placement{first: first, from: from, corner: p.corner}
	if move {
		dst := image.Pt(at.Min.X+ext[0], at.Min.Y+ext[2]) // the client inside the frame
		if !first {
			slide(c, id, pos, dst)
		}
		xproto.ConfigureWindow(c, id, xproto.ConfigWindowX|xproto.ConfigWindowY,
			[]uint32{uint32(dst.X), uint32(dst.Y)})
		waitPos(c, id, dst)
		p.corner, pl.corner, pl.moved = to, to, true
	}
	setAbove(c, id, true)
	return pl
}

// slide moves the window from a to b in a few steps, so the person sees where
// the strip went.
func slide(c *xgb.Conn, id xproto.Window, a, b image.Point) {
	const steps = 6
	for i := 1; i < steps; i++ {
		p := a.Add(b.Sub(a).Mul(i).Div(steps))
		xproto.ConfigureWindow(c, id, xproto.ConfigWindowX|xproto.ConfigWindowY, []uint32{uint32(p.X), uint32(p.Y)})
		_, _ = xproto.GetInputFocus(c).Reply()
		time.Sleep(25 * time.Millisecond)
	}
}

// toFull takes the window back to where the full window was, no longer above others,
// and asks for the input focus so the person sees the result.
func (p *placer) toFull(win fyne.Window) {
	id := x11Window(win)
	if id == 0 {
		p.sway.toFull()
		return
	}
	p.do(func(c *xgb.Conn) {
		p.strip = false
		setAbove(c, id, false)
		if p.saved != nil {
			xproto.ConfigureWindow(c, id, xproto.ConfigWindowX|xproto.ConfigWindowY,
				[]uint32{uint32(p.saved.X), uint32(p.saved.Y)})
			p.saved = nil
		}
		activate(c, id)
	})
}

// do queues op for the worker, which connects to the display on first use, and
// reports whether op will run. Without a display connection ops do not run:
// placement is a comfort, not a duty.
func (p *placer) do(op func(*xgb.Conn)) bool {
	p.once.Do(func() {
		p.ops = make(chan func(*xgb.Conn), 16)
		p.conn, p.connErr = xconn.Dial("")
		if p.connErr == nil {
			go p.work()
		}
	})
	if p.connErr != nil {
		return false
	}
	select {
	case p.ops <- op:
		return true
	default: // the window manager is not answering; skip rather than block the UI
		return false
	}
}

func (p *placer) work() {
	for op := range p.ops {
		op(p.conn)
		_, _ = xproto.GetInputFocus(p.conn).Reply() // flush and wait for the requests
	}
}

// x11Window returns win's X window, or 0 when it is not an X11 window.
func x11Window(win fyne.Window) xproto.Window {
	nw, ok := win.(driver.NativeWindow)
	if !ok {
		return 0
	}
	var id uintptr
	nw.RunNative(func(ctx any) {
		if x, ok := ctx.(driver.X11WindowContext); ok {
			id = x.WindowHandle
		}
	})
	return xproto.Window(id)
}

// waitSize waits until the window has the size want (px), at most a second, and
// returns the size it has.
func waitSize(c *xgb.Conn, id xproto.Window, want image.Point) image.Point {
	var got image.Point
	for range 50 {
		g, err := xproto.GetGeometry(c, xproto.Drawable(id)).Reply()
		if err != nil {
			return want
		}
		got = image.Pt(int(g.Width), int(g.Height))
		if d := got.Sub(want); d.X*d.X+d.Y*d.Y <= 8 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return got
}

// waitPos waits until the window manager has moved the window to at, at most a second.
func waitPos(c *xgb.Conn, id xproto.Window, at image.Point) {
	for range 50 {
		if pos, ok := clientPos(c, id); !ok || pos == at {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// clientPos returns the window's position in root coordinates.
func clientPos(c *xgb.Conn, id xproto.Window) (image.Point, bool) {
	root := xproto.Setup(c).DefaultScreen(c).Root
	r, err := xproto.TranslateCoordinates(c, id, root, 0, 0).Reply()
	if err != nil {
		return image.Point{}, false
	}
	return image.Pt(int(r.DstX), int(r.DstY)), true
}

// workArea is the desktop minus panels (_NET_WORKAREA), else the whole screen.
func workArea(c *xgb.Conn) image.Rectangle {
	s := xproto.Setup(c).DefaultScreen(c)
	full := image.Rect(0, 0, int(s.WidthInPixels), int(s.HeightInPixels))
	v := cardinals(c, s.Root, "_NET_WORKAREA", 4)
	if v == nil {
		return full
	}
	r := image.Rect(v[0], v[1], v[0]+v[2], v[1]+v[3]).Intersect(full)
	if r.Dx() < 200 || r.Dy() < 100 {
		return full
	}
	return r
}

// workWindow is the frame of the window the agent most likely works in: the
// topmost shown window of another program (_NET_CLIENT_LIST_STACKING), not a
// desktop or a panel. own is deskpilot's window.
func workWindow(c *xgb.Conn, own xproto.Window) (image.Rectangle, bool) {
	root := xproto.Setup(c).DefaultScreen(c).Root
	list := windows(c, root, "_NET_CLIENT_LIST_STACKING")
	skip := map[xproto.Atom]bool{atom(c, "_NET_WM_WINDOW_TYPE_DESKTOP"): true, atom(c, "_NET_WM_WINDOW_TYPE_DOCK"): true}
	for i := len(list) - 1; i >= 0; i-- {
		w := list[i]
		if w == own {
			continue
		}
		if a, err := xproto.GetWindowAttributes(c, w).Reply(); err != nil || a.MapState != xproto.MapStateViewable {
			continue
		}
		if t := windows(c, w, "_NET_WM_WINDOW_TYPE"); len(t) > 0 && skip[xproto.Atom(t[0])] {
			continue
		}
		g, err := xproto.GetGeometry(c, xproto.Drawable(w)).Reply()
		pos, ok := clientPos(c, w)
		if err != nil || !ok {
			continue
		}
		ext := frameExtents(c, w)
		return image.Rect(pos.X-ext[0], pos.Y-ext[2], pos.X+int(g.Width)+ext[1], pos.Y+int(g.Height)+ext[3]), true
	}
	return image.Rectangle{}, false
}

// windows reads a list of 32-bit values (windows, atoms) of property name on w.
func windows(c *xgb.Conn, w xproto.Window, name string) []xproto.Window {
	a := atom(c, name)
	if a == 0 {
		return nil
	}
	r, err := xproto.GetProperty(c, false, w, a, xproto.GetPropertyTypeAny, 0, 1024).Reply()
	if err != nil || r.Format != 32 {
		return nil
	}
	out := make([]xproto.Window, len(r.Value)/4)
	for i := range out {
		out[i] = xproto.Window(xgb.Get32(r.Value[4*i:]))
	}
	return out
}

// frameExtents returns the window manager's frame around id: left, right, top, bottom.
func frameExtents(c *xgb.Conn, id xproto.Window) [4]int {
	var out [4]int
	copy(out[:], cardinals(c, id, "_NET_FRAME_EXTENTS", 4))
	return out
}

// cardinals reads n CARDINALs of property name on w; nil when it is not set.
func cardinals(c *xgb.Conn, w xproto.Window, name string, n int) []int {
	a := atom(c, name)
	if a == 0 {
		return nil
	}
	r, err := xproto.GetProperty(c, false, w, a, xproto.AtomCardinal, 0, uint32(n)).Reply()
	if err != nil || r.Format != 32 || len(r.Value) < 4*n {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = int(int32(xgb.Get32(r.Value[4*i:])))
	}
	return out
}

// setAbove adds or removes _NET_WM_STATE_ABOVE (EWMH: a client message to the root).
func setAbove(c *xgb.Conn, id xproto.Window, on bool) {
	action := uint32(0) // _NET_WM_STATE_REMOVE
	if on {
		action = 1 // _NET_WM_STATE_ADD
	}
	sendRoot(c, id, "_NET_WM_STATE", action, uint32(atom(c, "_NET_WM_STATE_ABOVE")), 0, 1)
}

// activate asks the window manager to raise and focus id (_NET_ACTIVE_WINDOW, as a
// pager would: applications asking for themselves are often refused).
func activate(c *xgb.Conn, id xproto.Window) {
	sendRoot(c, id, "_NET_ACTIVE_WINDOW", 2, xproto.TimeCurrentTime, 0)
}

func sendRoot(c *xgb.Conn, id xproto.Window, msg string, data ...uint32) {
	a := atom(c, msg)
	if a == 0 {
		return
	}
	var d [5]uint32
	copy(d[:], data)
	ev := xproto.ClientMessageEvent{Format: 32, Window: id, Type: a,
		Data: xproto.ClientMessageDataUnionData32New(d[:])}
	root := xproto.Setup(c).DefaultScreen(c).Root
	xproto.SendEvent(c, false, root,
		xproto.EventMaskSubstructureRedirect|xproto.EventMaskSubstructureNotify, string(ev.Bytes()))
}

func atom(c *xgb.Conn, name string) xproto.Atom {
	r, err := xproto.InternAtom(c, false, uint16(len(name)), name).Reply()
	if err != nil {
		return 0
	}
	return r.Atom
}
