package atspi

import (
	"errors"
	"fmt"
	"image"
	"sync"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"deskpilot/internal/xconn"
)

// xview is what the walk needs from the X display: the root window's size and
// AT_SPI_BUS property, and which processes own its top-level windows. Safe for
// concurrent use.
type xview struct {
	mu    sync.Mutex
	conn  *xgb.Conn
	root  xproto.Window
	size  image.Rectangle
	atoms map[string]xproto.Atom
}

// xwin is a top-level client window.
type xwin struct {
	pid           int // _NET_WM_PID; 0 when unset
	bounds, frame image.Rectangle
}

// openX connects to display name with the cookie the authority file xauth
// holds for it ("" = $XAUTHORITY).
func openX(name, xauth string) (*xview, error) {
	c, err := xconn.DialAuth(name, xauth)
	if err != nil {
		return nil, err
	}
	s := xproto.Setup(c).DefaultScreen(c)
	return &xview{
		conn:  c,
		root:  s.Root,
		size:  image.Rect(0, 0, int(s.WidthInPixels), int(s.HeightInPixels)),
		atoms: map[string]xproto.Atom{},
	}, nil
}

func (x *xview) close() { x.conn.Close() }

// busProperty returns the root window's AT_SPI_BUS property, "" when unset.
func (x *xview) busProperty() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	r, err := x.property(x.root, "AT_SPI_BUS", 1<<12)
	if err != nil || r == nil || r.Format != 8 {
		return ""
	}
	return string(r.Value)
}

// windows lists the top-level client windows: the window manager's
// _NET_CLIENT_LIST, else the mapped children of the root window. Windows that
// vanish while listed are skipped.
func (x *xview) windows() ([]xwin, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	ids, err := x.clientList()
	if err != nil {
		return nil, err
	}
	out := make([]xwin, 0, len(ids))
	for _, id := range ids {
		w, ok, err := x.describe(id)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, w)
		}
	}
	return out, nil
}

func (x *xview) clientList() ([]xproto.Window, error) {
	r, err := x.property(x.root, "_NET_CLIENT_LIST", 1<<16)
	if err != nil {
		return nil, err
	}
	if r != nil && r.Format == 32 {
		ids := make([]xproto.Window, 0, len(r.Value)/4)
		for i := 0; i+4 <= len(r.Value); i += 4 {
			ids = append(ids, xproto.Window(xgb.Get32(r.Value[i:])))
		}
		return ids, nil
	}
	tree, err := xproto.QueryTree(x.conn, x.root).Reply()
	if err != nil {
		return nil, fmt.Errorf("query tree: %w", err)
	}
	var ids []xproto.Window
	for _, id := range tree.Children {
		a, err := xproto.GetWindowAttributes(x.conn, id).Reply()
		if err == nil && a.MapState == xproto.MapStateViewable && !a.OverrideRedirect {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// describe reads a window's process and geometry; ok is false when it is gone.
func (x *xview) describe(id xproto.Window) (w xwin, ok bool, err error) {
	geo, err := xproto.GetGeometry(x.conn, xproto.Drawable(id)).Reply()
	if err != nil {
		return w, false, ignoreGone(err)
	}
	pos, err := xproto.TranslateCoordinates(x.conn, id, x.root, 0, 0).Reply()
	if err != nil {
		return w, false, ignoreGone(err)
	}
	w.bounds = image.Rect(int(pos.DstX), int(pos.DstY), int(pos.DstX)+int(geo.Width), int(pos.DstY)+int(geo.Height))
	w.frame = w.bounds
	if r, err := x.property(id, "_NET_WM_PID", 1); err != nil {
		return w, false, ignoreGone(err)
	} else if r != nil && r.Format == 32 && len(r.Value) >= 4 {
		w.pid = int(xgb.Get32(r.Value))
	}
	top := id
	for {
		tree, err := xproto.QueryTree(x.conn, top).Reply()
		if err != nil {
			return w, false, ignoreGone(err)
		}
		if tree.Parent == x.root || tree.Parent == xproto.WindowNone {
			break
		}
		top = tree.Parent
	}
	if top != id {
		if g, err := xproto.GetGeometry(x.conn, xproto.Drawable(top)).Reply(); err == nil {
			b := 2 * int(g.BorderWidth)
			w.frame = image.Rect(int(g.X), int(g.Y), int(g.X)+int(g.Width)+b, int(g.Y)+int(g.Height)+b)
		}
	}
	return w, true, nil
}

// property reads up to words 32-bit units of a property; nil when unset.
func (x *xview) property(w xproto.Window, name string, words uint32) (*xproto.GetPropertyReply, error) {
	a, ok := x.atoms[name]
	if !ok {
		r, err := xproto.InternAtom(x.conn, true, uint16(len(name)), name).Reply()
		if err != nil {
			return nil, fmt.Errorf("intern atom %s: %w", name, err)
		}
		a = r.Atom
		if a != xproto.AtomNone {
			x.atoms[name] = a
		}
	}
	if a == xproto.AtomNone {
		return nil, nil
	}
	r, err := xproto.GetProperty(x.conn, false, w, a, xproto.GetPropertyTypeAny, 0, words).Reply()
	if err != nil {
		return nil, fmt.Errorf("get property %s: %w", name, err)
	}
	if r.Format == 0 {
		return nil, nil
	}
	return r, nil
}

// ignoreGone turns "the window no longer exists" into nil.
func ignoreGone(err error) error {
	var we xproto.WindowError
	var de xproto.DrawableError
	if errors.As(err, &we) || errors.As(err, &de) {
		return nil
	}
	return err
}
