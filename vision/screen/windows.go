package screen

import (
	"deskpilot/internal/xconn"
	"fmt"
	"image"
	"sync"
	"time"

	"github.com/jezek/xgb/screensaver"
	"github.com/jezek/xgb/xproto"
)

// WindowsOfPID returns the rectangles (root coordinates, window-manager frame
// included) of the viewable top-level windows whose _NET_WM_PID is pid. The agent
// uses it to mask its own windows out of screenshots and refuse clicks into them.
func (s *Screen) WindowsOfPID(pid int) ([]image.Rectangle, error) {
	pidAtom, err := s.atom("_NET_WM_PID")
	if err != nil {
		return nil, err
	}
	top, err := xproto.QueryTree(s.conn, s.root).Reply()
	if err != nil {
		return nil, fmt.Errorf("screen: query tree: %w", err)
	}
	var out []image.Rectangle
	for _, frame := range top.Children {
		attr, err := xproto.GetWindowAttributes(s.conn, frame).Reply()
		if err != nil || attr.MapState != xproto.MapStateViewable {
			continue
		}
		if !s.ownedBy(frame, pidAtom, pid, 2) {
			continue
		}
		g, err := xproto.GetGeometry(s.conn, xproto.Drawable(frame)).Reply()
		if err != nil {
			continue
		}
		x, y := int(g.X), int(g.Y)
		out = append(out, image.Rect(x, y, x+int(g.Width)+2*int(g.BorderWidth), y+int(g.Height)+2*int(g.BorderWidth)))
	}
	return out, nil
}

// ownedBy reports whether w, or a descendant up to depth levels down (a window
// manager reparents clients into frames), carries _NET_WM_PID == pid.
func (s *Screen) ownedBy(w xproto.Window, pidAtom xproto.Atom, pid, depth int) bool {
	p, err := xproto.GetProperty(s.conn, false, w, pidAtom, xproto.AtomCardinal, 0, 1).Reply()
	if err == nil && p.Format == 32 && len(p.Value) >= 4 {
		v := int(uint32(p.Value[0]) | uint32(p.Value[1])<<8 | uint32(p.Value[2])<<16 | uint32(p.Value[3])<<24)
		return v == pid
	}
	if depth == 0 {
		return false
	}
	t, err := xproto.QueryTree(s.conn, w).Reply()
	if err != nil {
		return false
	}
	for _, c := range t.Children {
		if s.ownedBy(c, pidAtom, pid, depth-1) {
			return true
		}
	}
	return false
}

// atom interns name once per Screen.
func (s *Screen) atom(name string) (xproto.Atom, error) {
	s.atomsMu.Lock()
	defer s.atomsMu.Unlock()
	if a, ok := s.atoms[name]; ok {
		return a, nil
	}
	r, err := xproto.InternAtom(s.conn, false, uint16(len(name)), name).Reply()
	if err != nil {
		return 0, fmt.Errorf("screen: intern %s: %w", name, err)
	}
	if s.atoms == nil {
		s.atoms = map[string]xproto.Atom{}
	}
	s.atoms[name] = r.Atom
	return r.Atom, nil
}

// idle holds the MIT-SCREEN-SAVER state of a Screen.
type idle struct {
	once sync.Once
	err  error
}

// IdleTime returns how long ago the X server last saw input from any device,
// synthetic (XTest) input included. Comparing it with the time of the agent's own
// last input tells whether a person typed or moved the mouse since.
func (s *Screen) IdleTime() (time.Duration, error) {
	s.idle.once.Do(func() {
		if err := xconn.Enable(s.conn, xconn.ScreenSaver); err != nil {
			s.idle.err = fmt.Errorf("screen: MIT-SCREEN-SAVER: %w", err)
		}
	})
	if s.idle.err != nil {
		return 0, s.idle.err
	}
	r, err := screensaver.QueryInfo(s.conn, xproto.Drawable(s.root)).Reply()
	if err != nil {
		return 0, fmt.Errorf("screen: idle time: %w", err)
	}
	return time.Duration(r.MsSinceUserInput) * time.Millisecond, nil
}
