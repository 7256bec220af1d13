package robot

import (
	"github.com/jezek/xgb/xproto"

	"deskpilot/actions/keysym"
)

// The keysyms robot presses by name; the names and tables are actions/keysym's.
const (
	xkShiftL   xproto.Keysym = keysym.ShiftL
	xkShiftR   xproto.Keysym = keysym.ShiftR
	xkCapsLock xproto.Keysym = keysym.CapsLock
)

// modifierKeysyms lists, for each modifier name, the keysyms of its left and
// right keys.
func modifierKeysyms(name string) []xproto.Keysym {
	return toX(keysym.Modifier(name))
}

// keyKeysym returns the keysym of a canonical non-modifier key name (see
// actions.KeyNames).
func keyKeysym(name string) (xproto.Keysym, bool) {
	s, ok := keysym.Key(name)
	return xproto.Keysym(s), ok
}

// textKeysyms turns text into the keysyms to type (keysym.Text): nothing is
// typed from a text that cannot be typed whole.
func textKeysyms(text string) ([]xproto.Keysym, error) {
	syms, err := keysym.Text(text)
	if err != nil {
		return nil, err
	}
	return toX(syms), nil
}

func toX(syms []uint32) []xproto.Keysym {
	if syms == nil {
		return nil
	}
	out := make([]xproto.Keysym, len(syms))
	for i, s := range syms {
		out[i] = xproto.Keysym(s)
	}
	return out
}
