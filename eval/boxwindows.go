//go:build linux

package eval

import (
	"fmt"
	"strings"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"deskpilot/internal/xconn"
)

// activate_window and close_window are what OSWorld's server does with
// `wmctrl -a` and `wmctrl -c`, done here over the task display's own X
// connection (its authority, never $DISPLAY): find the first client window of
// the window manager's _NET_CLIENT_LIST that matches, and ask the window
// manager (openbox, EWMH) to activate or close it with a _NET_ACTIVE_WINDOW
// or _NET_CLOSE_WINDOW client message to the root window.

// ewmhWindow is a client window as matching sees it.
type ewmhWindow struct {
	id    xproto.Window
	title string
	class string // WM_CLASS as wmctrl -x shows it: "instance.Class"
}

// xWindows opens a connection to the box's display and lists its client
// windows in the window manager's order (oldest first).
func (b *box) xWindows() (*xgb.Conn, xproto.Window, []ewmhWindow, error) {
	c, err := xconn.DialAuth(b.d.Name, b.d.XAuthority)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("connect to %s: %w", b.d.Name, err)
	}
	root := xproto.Setup(c).DefaultScreen(c).Root
	ids, err := windowProp32(c, root, "_NET_CLIENT_LIST")
	if err != nil {
		closeX(c)
		return nil, 0, nil, err
	}
	var out []ewmhWindow
	for _, id := range ids {
		w := ewmhWindow{id: xproto.Window(id)}
		if t, err := stringProp(c, w.id, "_NET_WM_NAME"); err == nil && t != "" {
			w.title = t
		} else if t, err := stringProp(c, w.id, "WM_NAME"); err == nil {
			w.title = t
		}
		if cls, err := stringProp(c, w.id, "WM_CLASS"); err == nil {
			parts := strings.Split(strings.TrimRight(cls, "\x00"), "\x00")
			w.class = strings.Join(parts, ".")
		}
		out = append(out, w)
	}
	return c, root, out, nil
}

// matches is wmctrl's window matching: the title (or with byClass the
// WM_CLASS) contains name ignoring case; with strict it equals name exactly.
func (m windowMatch) matches(w ewmhWindow) bool {
	s := w.title
	if m.byClass {
		s = w.class
	}
	if m.strict {
		return s == m.name
	}
	return strings.Contains(strings.ToLower(s), strings.ToLower(m.name))
}

// chromiumName is the name a window of Debian's Chromium has where OSWorld's
// VM has Google Chrome: tasks name "Google Chrome" windows, which here end in
// "- Chromium" (WM_CLASS chromium.Chromium).
func (m windowMatch) chromiumName() (windowMatch, bool) {
	if !strings.Contains(strings.ToLower(m.name), "google-chrome") && !strings.Contains(strings.ToLower(m.name), "google chrome") {
		return m, false
	}
	r := strings.NewReplacer("Google Chrome", "Chromium", "google chrome", "chromium", "Google-chrome", "Chromium", "google-chrome", "chromium")
	return windowMatch{name: r.Replace(m.name), strict: m.strict, byClass: m.byClass}, true
}

// windowAction finds the first window matching m and sends it the EWMH
// message: "_NET_ACTIVE_WINDOW" or "_NET_CLOSE_WINDOW". found is false when no
// window matches (wmctrl then exits 1, which OSWorld's server ignores).
func (b *box) windowAction(m windowMatch, message string) (found ewmhWindow, ok bool, err error) {
	c, root, wins, err := b.xWindows()
	if err != nil {
		return found, false, err
	}
	defer closeX(c)
	pick := func(m windowMatch) bool {
		for _, w := range wins {
			if m.matches(w) {
				found, ok = w, true
				return true
			}
		}
		return false
	}
	if !pick(m) {
		if alt, isChrome := m.chromiumName(); !isChrome || !pick(alt) {
			return found, false, nil
		}
	}
	typ, err := internAtom(c, message)
	if err != nil {
		return found, true, err
	}
	// data: source indication 2 (a pager, as wmctrl sends), timestamp 0 (CurrentTime).
	data := xproto.ClientMessageDataUnionData32New([]uint32{2, 0, 0, 0, 0})
	ev := xproto.ClientMessageEvent{Format: 32, Window: found.id, Type: typ, Data: data}
	mask := uint32(xproto.EventMaskSubstructureRedirect | xproto.EventMaskSubstructureNotify)
	if err := xproto.SendEventChecked(c, false, root, mask, string(ev.Bytes())).Check(); err != nil {
		return found, true, fmt.Errorf("send %s: %w", message, err)
	}
	if message == "_NET_ACTIVE_WINDOW" {
		// wmctrl -a also raises it; openbox raises on activation, others may not.
		_ = xproto.ConfigureWindowChecked(c, found.id, xproto.ConfigWindowStackMode, []uint32{xproto.StackModeAbove}).Check()
	}
	return found, true, nil
}

func internAtom(c *xgb.Conn, name string) (xproto.Atom, error) {
	r, err := xproto.InternAtom(c, false, uint16(len(name)), name).Reply()
	if err != nil {
		return 0, fmt.Errorf("intern atom %s: %w", name, err)
	}
	return r.Atom, nil
}

// getProp reads up to 256 KiB of a property of any type; nil when unset.
func getProp(c *xgb.Conn, w xproto.Window, name string) (*xproto.GetPropertyReply, error) {
	a, err := internAtom(c, name)
	if err != nil {
		return nil, err
	}
	r, err := xproto.GetProperty(c, false, w, a, xproto.GetPropertyTypeAny, 0, 1<<16).Reply()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if r.Format == 0 {
		return nil, nil
	}
	return r, nil
}

func windowProp32(c *xgb.Conn, w xproto.Window, name string) ([]uint32, error) {
	r, err := getProp(c, w, name)
	if err != nil || r == nil {
		return nil, err
	}
	if r.Format != 32 {
		return nil, fmt.Errorf("%s: format %d, want 32", name, r.Format)
	}
	out := make([]uint32, 0, len(r.Value)/4)
	for i := 0; i+4 <= len(r.Value); i += 4 {
		out = append(out, xgb.Get32(r.Value[i:]))
	}
	return out, nil
}

func stringProp(c *xgb.Conn, w xproto.Window, name string) (string, error) {
	r, err := getProp(c, w, name)
	if err != nil || r == nil {
		return "", err
	}
	return string(r.Value), nil
}

// closeX closes c and drains its event channel, so that xgb's reader ends.
func closeX(c *xgb.Conn) {
	c.Close()
	for {
		if ev, err := c.WaitForEvent(); ev == nil && err == nil {
			return
		}
	}
}
