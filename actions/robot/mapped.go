package robot

import (
	"fmt"

	"github.com/jezek/xgb/xproto"
)

// KeySym returns the X keysym of a canonical key name (actions.KeyNames);
// for a modifier, that of its left key (Control_L, Alt_L, Shift_L, Super_L).
// ok is false for a name that is not canonical.
func KeySym(name string) (sym uint32, ok bool) {
	if ms := modifierKeysyms(name); ms != nil {
		return uint32(ms[0]), true
	}
	s, ok := keyKeysym(name)
	return uint32(s), ok
}

// Unmapped returns those of syms that no keycode of the display's current
// keyboard mapping produces, at any level, in the order given. It lets code
// that sends key events by keysym without remapping keycodes refuse such keys
// first: robotgo is one, and for it an unmapped keysym becomes keycode 0, a
// BadValue X error, and Xlib's default error handler ends the process.
func (r *Robot) Unmapped(syms []uint32) ([]uint32, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	m, err := r.fetchKeymap()
	if err != nil {
		return nil, fmt.Errorf("robot: %w", err)
	}
	have := make(map[xproto.Keysym]bool, len(m.syms))
	for _, s := range m.syms {
		have[s] = true
	}
	var out []uint32
	for _, s := range syms {
		if s == 0 || !have[xproto.Keysym(s)] {
			out = append(out, s)
		}
	}
	return out, nil
}
