package robot

import (
	"fmt"
	"unicode/utf8"

	"github.com/jezek/xgb/xproto"
)

// X keysyms deskpilot needs by name (X11/keysymdef.h).
const (
	xkReturn    xproto.Keysym = 0xff0d
	xkTab       xproto.Keysym = 0xff09
	xkShiftL    xproto.Keysym = 0xffe1
	xkShiftR    xproto.Keysym = 0xffe2
	xkControlL  xproto.Keysym = 0xffe3
	xkControlR  xproto.Keysym = 0xffe4
	xkCapsLock  xproto.Keysym = 0xffe5
	xkAltL      xproto.Keysym = 0xffe9
	xkAltR      xproto.Keysym = 0xffea
	xkSuperL    xproto.Keysym = 0xffeb
	xkSuperR    xproto.Keysym = 0xffec
	xkF1        xproto.Keysym = 0xffbe
	unicodeBase xproto.Keysym = 0x01000000 // keysym of code point c is unicodeBase + c
)

// modifierKeysyms lists, for each modifier name, the keysyms of its left and
// right keys.
func modifierKeysyms(name string) []xproto.Keysym {
	switch name {
	case "ctrl":
		return []xproto.Keysym{xkControlL, xkControlR}
	case "alt":
		return []xproto.Keysym{xkAltL, xkAltR}
	case "shift":
		return []xproto.Keysym{xkShiftL, xkShiftR}
	case "super":
		return []xproto.Keysym{xkSuperL, xkSuperR}
	}
	return nil
}

// keyKeysym returns the keysym of a canonical non-modifier key name (see
// actions.KeyNames).
func keyKeysym(name string) (xproto.Keysym, bool) {
	switch name {
	case "enter":
		return xkReturn, true
	case "tab":
		return xkTab, true
	case "space":
		return ' ', true
	case "plus":
		return '+', true
	case "backspace":
		return 0xff08, true
	case "delete":
		return 0xffff, true
	case "insert":
		return 0xff63, true
	case "escape":
		return 0xff1b, true
	case "home":
		return 0xff50, true
	case "end":
		return 0xff57, true
	case "pageup":
		return 0xff55, true
	case "pagedown":
		return 0xff56, true
	case "left":
		return 0xff51, true
	case "up":
		return 0xff52, true
	case "right":
		return 0xff53, true
	case "down":
		return 0xff54, true
	case "capslock":
		return xkCapsLock, true
	case "numlock":
		return 0xff7f, true
	case "scrolllock":
		return 0xff14, true
	case "printscreen":
		return 0xff61, true
	case "pause":
		return 0xff13, true
	case "menu":
		return 0xff67, true
	}
	if len(name) == 1 && name[0] > ' ' && name[0] < 0x7f {
		return xproto.Keysym(name[0]), true
	}
	var n int
	if _, err := fmt.Sscanf(name, "f%d", &n); err == nil && fmt.Sprintf("f%d", n) == name && n >= 1 && n <= 35 {
		return xkF1 + xproto.Keysym(n-1), true
	}
	return 0, false
}

// runeKeysym returns the keysym that types r: the Latin-1 keysym for
// U+0020..U+007E and U+00A0..U+00FF, else the Unicode keysym.
func runeKeysym(r rune) xproto.Keysym {
	if (r >= ' ' && r < 0x7f) || (r >= 0xa0 && r <= 0xff) {
		return xproto.Keysym(r)
	}
	return unicodeBase + xproto.Keysym(r)
}

// textKeysyms turns text into the keysyms to type: "\n", "\r" and "\r\n"
// become Return, "\t" Tab. Other control characters and invalid UTF-8 are
// refused, so nothing is typed from a text that cannot be typed whole.
func textKeysyms(text string) ([]xproto.Keysym, error) {
	if !utf8.ValidString(text) {
		return nil, fmt.Errorf("text is not valid UTF-8")
	}
	syms := make([]xproto.Keysym, 0, len(text))
	for i, r := range text {
		switch {
		case r == '\r' && i+1 < len(text) && text[i+1] == '\n':
			// the \n that follows presses Return
		case r == '\n' || r == '\r':
			syms = append(syms, xkReturn)
		case r == '\t':
			syms = append(syms, xkTab)
		case r < ' ' || (r >= 0x7f && r < 0xa0):
			return nil, fmt.Errorf("character %U at byte %d is a control character that cannot be typed (only \\n, \\r and \\t can)", r, i)
		default:
			syms = append(syms, runeKeysym(r))
		}
	}
	return syms, nil
}
