package wlroots

import "deskpilot/actions/keysym"

// usKey is a key of the US layout: its evdev code and the keysyms of its
// two levels (0 when it has one).
type usKey struct {
	code         uint32
	lower, upper uint32
}

// usLayout is the base of every keymap deskpilot uploads: the keys of a US
// keyboard at their real evdev codes. Toolkits that read key codes rather
// than keysyms for shortcuts (GLFW, so Fyne; SDL; games) then see Return as
// Enter and ctrl+a as A; only characters no US key types get keys of their
// own (spareCodes).
var usLayout = func() []usKey {
	keys := []usKey{
		{1, 0xff1b, 0}, {14, 0xff08, 0}, {15, keysym.Tab, 0}, {28, keysym.Return, 0}, {57, ' ', 0},
		{58, keysym.CapsLock, 0}, {69, 0xff7f, 0}, {70, 0xff14, 0}, {99, 0xff61, 0}, {119, 0xff13, 0}, {127, 0xff67, 0},
		{102, 0xff50, 0}, {103, 0xff52, 0}, {104, 0xff55, 0}, {105, 0xff51, 0}, {106, 0xff53, 0},
		{107, 0xff57, 0}, {108, 0xff54, 0}, {109, 0xff56, 0}, {110, 0xff63, 0}, {111, 0xffff, 0},
		{2, '1', '!'}, {3, '2', '@'}, {4, '3', '#'}, {5, '4', '$'}, {6, '5', '%'}, {7, '6', '^'},
		{8, '7', '&'}, {9, '8', '*'}, {10, '9', '('}, {11, '0', ')'}, {12, '-', '_'}, {13, '=', '+'},
		{26, '[', '{'}, {27, ']', '}'}, {39, ';', ':'}, {40, '\'', '"'}, {41, '`', '~'}, {43, '\\', '|'},
		{51, ',', '<'}, {52, '.', '>'}, {53, '/', '?'},
	}
	for i, r := range "qwertyuiop" {
		keys = append(keys, usKey{uint32(16 + i), uint32(r), uint32(r - 'a' + 'A')})
	}
	for i, r := range "asdfghjkl" {
		keys = append(keys, usKey{uint32(30 + i), uint32(r), uint32(r - 'a' + 'A')})
	}
	for i, r := range "zxcvbnm" {
		keys = append(keys, usKey{uint32(44 + i), uint32(r), uint32(r - 'a' + 'A')})
	}
	for i, code := range []uint32{59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 87, 88} { // F1-F12
		keys = append(keys, usKey{code, keysym.F1 + uint32(i), 0})
	}
	for i := range 12 { // F13-F24
		keys = append(keys, usKey{uint32(183 + i), keysym.F1 + 12 + uint32(i), 0})
	}
	return keys
}()

// usIndex finds the US key and level of each keysym it types.
var usIndex = func() map[uint32]struct {
	code  uint32
	shift bool
} {
	m := map[uint32]struct {
		code  uint32
		shift bool
	}{}
	for _, k := range usLayout {
		m[k.lower] = struct {
			code  uint32
			shift bool
		}{k.code, false}
		if k.upper != 0 {
			m[k.upper] = struct {
				code  uint32
				shift bool
			}{k.code, true}
		}
	}
	return m
}()

// spareCodes are the evdev codes left for characters no US key types: codes
// no US key or modifier uses, past the ones compositors and desktops act on
// by code (power, sleep, media and brightness keys), highest first so they
// stay clear of real keys.
var spareCodes = func() []uint32 {
	used := map[uint32]bool{}
	for _, k := range usLayout {
		used[k.code] = true
	}
	for code := range modifierMasks {
		used[code] = true
	}
	for _, c := range []uint32{54, 97, 100, 126} { // right shift, ctrl, alt, super
		used[c] = true
	}
	var out []uint32
	for code := uint32(maxCode); code >= 120; code-- {
		if used[code] || (code >= 113 && code <= 116) || (code >= 140 && code <= 152) || (code >= 163 && code <= 166) ||
			(code >= 224 && code <= 227) || code == 205 || code == 142 || code == 143 || code == 238 || code == 240 {
			continue
		}
		out = append(out, code)
	}
	return out
}()
