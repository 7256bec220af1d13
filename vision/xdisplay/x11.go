//go:build linux

package xdisplay

import (
	"fmt"
	"net"
	"strings"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"deskpilot/internal/xconn"
)

// connect opens an X connection to display name. With a cookie it dials the local
// socket and authenticates with it, so the process environment is not consulted;
// without one it uses xgb's usual DISPLAY/XAUTHORITY lookup.
func connect(name, cookieHex string) (*xgb.Conn, error) {
	if cookieHex == "" {
		return xconn.Dial(name)
	}
	num, _, _ := strings.Cut(strings.TrimPrefix(name, ":"), ".")
	socket := "/tmp/.X11-unix/X" + num
	nc, err := net.Dial("unix", socket)
	if err != nil {
		return nil, err
	}
	conn, err := xconn.DialNet(nc, cookieHex, func() (net.Conn, error) { return net.Dial("unix", socket) })
	if err != nil {
		nc.Close()
		return nil, err
	}
	return conn, nil
}

// closeConn closes c and waits until xgb's goroutines are done with the socket, so
// a server stopped right after does not make xgb log a read error.
func closeConn(c *xgb.Conn) {
	c.Close()
	for {
		if ev, err := c.WaitForEvent(); ev == nil && err == nil {
			return
		}
	}
}

// atom interns name (only if it exists when onlyIfExists).
func atom(c *xgb.Conn, name string, onlyIfExists bool) (xproto.Atom, error) {
	r, err := xproto.InternAtom(c, onlyIfExists, uint16(len(name)), name).Reply()
	if err != nil {
		return 0, fmt.Errorf("intern atom %s: %w", name, err)
	}
	return r.Atom, nil
}

// property reads up to 1 MiB of a window property; nil when it is not set.
func property(c *xgb.Conn, w xproto.Window, name string) (*xproto.GetPropertyReply, error) {
	a, err := atom(c, name, true)
	if err != nil || a == xproto.AtomNone {
		return nil, err
	}
	r, err := xproto.GetProperty(c, false, w, a, xproto.GetPropertyTypeAny, 0, 1<<18).Reply()
	if err != nil {
		return nil, fmt.Errorf("get property %s: %w", name, err)
	}
	if r.Format == 0 {
		return nil, nil
	}
	return r, nil
}

// windowList reads a property holding a list of windows (format 32).
func windowList(c *xgb.Conn, w xproto.Window, name string) ([]xproto.Window, bool, error) {
	r, err := property(c, w, name)
	if err != nil || r == nil || r.Format != 32 {
		return nil, false, err
	}
	ws := make([]xproto.Window, 0, r.ValueLen)
	for i := 0; i+4 <= len(r.Value); i += 4 {
		ws = append(ws, xproto.Window(xgb.Get32(r.Value[i:])))
	}
	return ws, true, nil
}

// wmRunning reports whether a window manager owns WM_S0 and advertises itself with
// _NET_SUPPORTING_WM_CHECK on the root window.
func wmRunning(c *xgb.Conn) (bool, error) {
	sel, err := atom(c, "WM_S0", false)
	if err != nil {
		return false, err
	}
	owner, err := xproto.GetSelectionOwner(c, sel).Reply()
	if err != nil {
		return false, fmt.Errorf("selection owner: %w", err)
	}
	if owner.Owner == xproto.WindowNone {
		return false, nil
	}
	root := xproto.Setup(c).DefaultScreen(c).Root
	ws, ok, err := windowList(c, root, "_NET_SUPPORTING_WM_CHECK")
	return ok && len(ws) > 0 && ws[0] != 0, err
}
