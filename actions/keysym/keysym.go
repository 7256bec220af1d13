// Package keysym turns deskpilot's key names and text into X keysyms
// (X11/keysymdef.h), the names every Linux input path shares: XTest, an XKB
// keymap for a Wayland virtual keyboard, Mutter's NotifyKeyboardKeysym.
package keysym

import (
	"fmt"
	"unicode/utf8"
)

// Keysyms deskpilot needs by name.
const (
	Return      = 0xff0d
	Tab         = 0xff09
	ShiftL      = 0xffe1
	ShiftR      = 0xffe2
	ControlL    = 0xffe3
	ControlR    = 0xffe4
	CapsLock    = 0xffe5
	AltL        = 0xffe9
	AltR        = 0xffea
	SuperL      = 0xffeb
	SuperR      = 0xffec
	F1          = 0xffbe
	UnicodeBase = 0x01000000 // the keysym of code point c is UnicodeBase + c
)

// Modifier returns the keysyms of the left and right keys of a canonical
// modifier name (ctrl, alt, shift, super); nil for other names.
func Modifier(name string) []uint32 {
	switch name {
	case "ctrl":
		return []uint32{ControlL, ControlR}
	case "alt":
		return []uint32{AltL, AltR}
	case "shift":
		return []uint32{ShiftL, ShiftR}
	case "super":
		return []uint32{SuperL, SuperR}
	}
	return nil
}

// named are the keysyms of the named keys (actions.KeyNames).
var named = map[string]uint32{
	"enter": Return, "tab": Tab, "space": ' ', "plus": '+', "backspace": 0xff08,
	"delete": 0xffff, "insert": 0xff63, "escape": 0xff1b, "home": 0xff50, "end": 0xff57,
	"pageup": 0xff55, "pagedown": 0xff56, "left": 0xff51, "up": 0xff52, "right": 0xff53,
	"down": 0xff54, "capslock": CapsLock, "numlock": 0xff7f, "scrolllock": 0xff14,
	"printscreen": 0xff61, "pause": 0xff13, "menu": 0xff67,
}

// Key returns the keysym of a canonical non-modifier key name (see
// actions.KeyNames): a named key, a printable ASCII character or f1..f35.
func Key(name string) (uint32, bool) {
	if k, ok := named[name]; ok {
		return k, true
	}
	if len(name) == 1 && name[0] > ' ' && name[0] < 0x7f {
		return uint32(name[0]), true
	}
	var n int
	if _, err := fmt.Sscanf(name, "f%d", &n); err == nil && fmt.Sprintf("f%d", n) == name && n >= 1 && n <= 35 {
		return F1 + uint32(n-1), true
	}
	return 0, false
}

// Rune returns the keysym that types r: the Latin-1 keysym for U+0020..U+007E
// and U+00A0..U+00FF, else the Unicode keysym.
func Rune(r rune) uint32 {
	if (r >= ' ' && r < 0x7f) || (r >= 0xa0 && r <= 0xff) {
		return uint32(r)
	}
	return UnicodeBase + uint32(r)
}

// Text turns text into the keysyms to type: "\n", "\r" and "\r\n" become
// Return, "\t" Tab. Other control characters and invalid UTF-8 are refused,
// so nothing is typed from a text that cannot be typed whole.
func Text(text string) ([]uint32, error) {
	if !utf8.ValidString(text) {
		return nil, fmt.Errorf("text is not valid UTF-8")
	}
	syms := make([]uint32, 0, len(text))
	for i, r := range text {
		switch {
		case r == '\r' && i+1 < len(text) && text[i+1] == '\n':
			// the \n that follows presses Return
		case r == '\n' || r == '\r':
			syms = append(syms, Return)
		case r == '\t':
			syms = append(syms, Tab)
		case r < ' ' || (r >= 0x7f && r < 0xa0):
			return nil, fmt.Errorf("character %U at byte %d is a control character that cannot be typed (only \\n, \\r and \\t can)", r, i)
		default:
			syms = append(syms, Rune(r))
		}
	}
	return syms, nil
}
