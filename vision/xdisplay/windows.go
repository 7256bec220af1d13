//go:build linux

package xdisplay

import (
	"context"
	"errors"
	"fmt"
	"image"
	"slices"
	"strings"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// Window is a top-level client window as seen on the display.
type Window struct {
	// ID is the X window id of the client window (not of the WM frame).
	ID uint32
	// Title is _NET_WM_NAME, or WM_NAME when that is unset.
	Title string
	// Bounds is the client area in root coordinates (pixels), without WM decorations.
	Bounds image.Rectangle
	// Frame is the outer rectangle in root coordinates including the window manager's
	// decorations; equal to Bounds when the window is not reparented.
	Frame image.Rectangle
	// PID is _NET_WM_PID, 0 when the client does not set it.
	PID int
	// Viewable reports whether the window and all its ancestors are mapped.
	Viewable bool
}

// Windows lists the top-level client windows, bottom of the stack first: the window
// manager's _NET_CLIENT_LIST_STACKING when there is one, else the mapped children of
// the root window that carry a title or WM_CLASS. Windows destroyed while listing are
// skipped.
func (d *Display) Windows(ctx context.Context) ([]Window, error) {
	if d.conn == nil {
		return nil, errors.New("xdisplay: windows: display is not connected")
	}
	root := xproto.Setup(d.conn).DefaultScreen(d.conn).Root
	ids, managed, err := windowList(d.conn, root, "_NET_CLIENT_LIST_STACKING")
	if err != nil {
		return nil, fmt.Errorf("xdisplay: windows: %w", err)
	}
	if !managed {
		tree, err := xproto.QueryTree(d.conn, root).Reply()
		if err != nil {
			return nil, fmt.Errorf("xdisplay: windows: query tree: %w", err)
		}
		ids = tree.Children
	}
	out := make([]Window, 0, len(ids))
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("xdisplay: windows: %w", err)
		}
		w, ok, err := d.describe(root, id)
		if err != nil {
			return nil, fmt.Errorf("xdisplay: windows: %w", err)
		}
		if !ok || (!managed && (!w.Viewable || !d.hasIdentity(id, w))) {
			continue
		}
		out = append(out, w)
	}
	return out, nil
}

// WaitWindow polls until a viewable window whose title contains title (case-sensitive)
// exists, and returns it. It blocks until then or until ctx is done; pass a context
// with a deadline.
func (d *Display) WaitWindow(ctx context.Context, title string) (Window, error) {
	var seen []string
	for {
		ws, err := d.Windows(ctx)
		if err != nil && ctx.Err() == nil {
			return Window{}, err
		}
		seen = seen[:0]
		for _, w := range ws {
			if w.Viewable && !w.Bounds.Empty() && strings.Contains(w.Title, title) {
				return w, nil
			}
			seen = append(seen, fmt.Sprintf("%q", w.Title))
		}
		select {
		case <-ctx.Done():
			return Window{}, fmt.Errorf("xdisplay: wait for window %q (have %s): %w",
				title, strings.Join(seen, ", "), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// WaitWindows polls until at least n viewable windows are shown, and returns
// them all. It blocks until then or until ctx is done; pass a context with a
// deadline.
func (d *Display) WaitWindows(ctx context.Context, n int) ([]Window, error) {
	for {
		ws, err := d.Windows(ctx)
		if err != nil && ctx.Err() == nil {
			return nil, err
		}
		shown := slices.DeleteFunc(ws, func(w Window) bool { return !w.Viewable || w.Bounds.Empty() })
		if len(shown) >= n {
			return shown, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("xdisplay: wait for %d windows (have %d): %w", n, len(shown), ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// describe reads one window; ok is false when it no longer exists.
func (d *Display) describe(root, id xproto.Window) (w Window, ok bool, err error) {
	c := d.conn
	attrs, err := xproto.GetWindowAttributes(c, id).Reply()
	if err != nil {
		return w, false, ignoreGone(err)
	}
	geo, err := xproto.GetGeometry(c, xproto.Drawable(id)).Reply()
	if err != nil {
		return w, false, ignoreGone(err)
	}
	pos, err := xproto.TranslateCoordinates(c, id, root, 0, 0).Reply()
	if err != nil {
		return w, false, ignoreGone(err)
	}
	w = Window{
		ID:       uint32(id),
		Bounds:   image.Rect(int(pos.DstX), int(pos.DstY), int(pos.DstX)+int(geo.Width), int(pos.DstY)+int(geo.Height)),
		Viewable: attrs.MapState == xproto.MapStateViewable,
	}
	w.Frame = w.Bounds
	if w.Title, err = d.title(id); err != nil {
		return w, false, ignoreGone(err)
	}
	if r, err := property(c, id, "_NET_WM_PID"); err != nil {
		return w, false, ignoreGone(err)
	} else if r != nil && r.Format == 32 && len(r.Value) >= 4 {
		w.PID = int(xgb.Get32(r.Value))
	}
	if frame, err := d.frame(root, id); err != nil {
		return w, false, ignoreGone(err)
	} else if !frame.Empty() {
		w.Frame = frame
	}
	return w, true, nil
}

// title returns _NET_WM_NAME or WM_NAME.
func (d *Display) title(id xproto.Window) (string, error) {
	for _, name := range []string{"_NET_WM_NAME", "WM_NAME"} {
		r, err := property(d.conn, id, name)
		if err != nil {
			return "", err
		}
		if r != nil && r.Format == 8 {
			return string(r.Value), nil
		}
	}
	return "", nil
}

// hasIdentity reports whether an unmanaged root child looks like a client window.
func (d *Display) hasIdentity(id xproto.Window, w Window) bool {
	if w.Title != "" {
		return true
	}
	r, err := property(d.conn, id, "WM_CLASS")
	return err == nil && r != nil
}

// frame returns the bounds of the root child that contains id (the WM frame), or an
// empty rectangle when id itself is a root child.
func (d *Display) frame(root, id xproto.Window) (image.Rectangle, error) {
	top := id
	for {
		tree, err := xproto.QueryTree(d.conn, top).Reply()
		if err != nil {
			return image.Rectangle{}, err
		}
		if tree.Parent == root || tree.Parent == xproto.WindowNone {
			break
		}
		top = tree.Parent
	}
	if top == id {
		return image.Rectangle{}, nil
	}
	geo, err := xproto.GetGeometry(d.conn, xproto.Drawable(top)).Reply()
	if err != nil {
		return image.Rectangle{}, err
	}
	b := 2 * int(geo.BorderWidth)
	x, y := int(geo.X), int(geo.Y)
	return image.Rect(x, y, x+int(geo.Width)+b, y+int(geo.Height)+b), nil
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
