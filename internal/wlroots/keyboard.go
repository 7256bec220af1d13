package wlroots

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"deskpilot/actions/keysym"
	"deskpilot/internal/wl"
)

// The evdev codes of the modifier keys; every other key of the keymap gets a
// code of its own as it is first needed.
var modifierCodes = map[uint32]uint32{
	keysym.ShiftL: 42, keysym.ControlL: 29, keysym.AltL: 56, keysym.SuperL: 125,
}

// modifierMasks are the XKB real modifiers of the modifier keys (Shift,
// Control, Mod1, Mod4), which wlroots does not derive from a virtual
// keyboard's keys: the client sends them itself (zwp_virtual_keyboard_v1.modifiers).
var modifierMasks = map[uint32]uint32{42: 1 << 0, 29: 1 << 2, 56: 1 << 3, 125: 1 << 6}

// maxCode is the highest evdev code the keymap uses: XKB keycode 255, the
// most an X client under Xwayland can see.
const maxCode = 247

// captureSettle is how long a new virtual keyboard waits after the seat
// first reports a keyboard before it sends a key. Until then clients have
// no wl_keyboard to receive keys on: the seat had none (a headless
// compositor has no real one), each client asks for its wl_keyboard when it
// reads the seat's new capability, and keys sent before that are dropped.
// wtype loses its first character this way in 4 runs of 10 on sway.
const captureSettle = 150 * time.Millisecond

// Keyboard is a virtual keyboard whose keymap deskpilot writes: a US
// keyboard at its real key codes (usLayout) and the four modifiers, plus a
// key of its own for each other keysym it was asked to type, so any
// character types as itself, whatever layout the person uses. Safe for
// concurrent use.
type Keyboard struct {
	c     *Client
	kb    *wl.ZwpVirtualKeyboardV1
	mu    sync.Mutex
	codes map[uint32]uint32 // keysym -> spare evdev code, for keysyms no US key has
	down  map[uint32]bool   // evdev codes held
	mods  uint32            // modifiers held (modifierMasks)
	// autoShift are the codes Key pressed Shift for.
	autoShift map[uint32]bool
	ready     bool
}

// NewKeyboard creates the virtual keyboard and uploads its first keymap.
// Keep it for the session: each new one costs the wait of captureSettle
// before its first key.
func (c *Client) NewKeyboard(ctx context.Context) (*Keyboard, error) {
	if c.keyboard == nil || c.seat == nil {
		return nil, errMissing(needKeyboard, "type")
	}
	k := &Keyboard{c: c, kb: &wl.ZwpVirtualKeyboardV1{}, codes: map[uint32]uint32{}, down: map[uint32]bool{}, autoShift: map[uint32]bool{}}
	if err := c.keyboard.CreateVirtualKeyboard(c.seat, k.kb); err != nil {
		return nil, err
	}
	if err := k.upload(); err != nil {
		return nil, err
	}
	return k, k.settle(ctx)
}

// settle waits until clients can receive keys (see captureSettle), then taps
// Shift, which types nothing, so that a client still losing the first key
// loses that.
func (k *Keyboard) settle(ctx context.Context) error {
	c := k.c
	if err := c.conn.Sync(ctx); err != nil {
		return err
	}
	tm := time.NewTimer(time.Second)
	defer tm.Stop()
	select {
	case <-c.capsSeen:
	case <-tm.C: // a compositor that never reports it: go on after a second
	case <-ctx.Done():
		return ctx.Err()
	case <-c.conn.Done():
		return c.conn.Err()
	}
	if err := sleep(ctx, captureSettle); err != nil {
		return err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.keyLocked(modifierCodes[keysym.ShiftL], true); err != nil {
		return err
	}
	if err := k.keyLocked(modifierCodes[keysym.ShiftL], false); err != nil {
		return err
	}
	k.ready = true
	return c.conn.Sync(ctx)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Prepare makes sure every keysym in syms has a key, uploading a new keymap
// when one is missing.
func (k *Keyboard) Prepare(syms []uint32) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.prepareLocked(syms)
}

func (k *Keyboard) prepareLocked(syms []uint32) error {
	var missing []uint32
	for _, s := range syms {
		if _, ok := k.codeOf(s); !ok && !slices.Contains(missing, s) {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	free := k.freeCodes()
	if len(free) < len(missing) {
		// Start over with the keys held and what this text needs.
		keep := map[uint32]uint32{}
		for s, code := range k.codes {
			if k.down[code] || slices.Contains(syms, s) {
				keep[s] = code
			}
		}
		k.codes = keep
		free = k.freeCodes()
		if len(free) < len(missing) {
			return fmt.Errorf("wayland keyboard: %d different characters at once is more than one keymap holds (%d)", len(missing), len(free))
		}
	}
	for i, s := range missing {
		k.codes[s] = free[i]
	}
	return k.upload()
}

// codeOf is the key of keysym s, and whether it needs Shift (a US key's
// upper level).
func (k *Keyboard) codeOf(s uint32) (code uint32, ok bool) {
	if c, ok := modifierCodes[s]; ok {
		return c, true
	}
	if u, ok := usIndex[s]; ok {
		return u.code, true
	}
	c, ok := k.codes[s]
	return c, ok
}

// needsShift reports whether keysym s is the upper level of its US key.
func needsShift(s uint32) bool {
	u, ok := usIndex[s]
	return ok && u.shift
}

// freeCodes lists the spare codes no keysym uses.
func (k *Keyboard) freeCodes() []uint32 {
	used := map[uint32]bool{}
	for _, code := range k.codes {
		used[code] = true
	}
	var out []uint32
	for _, code := range spareCodes {
		if !used[code] {
			out = append(out, code)
		}
	}
	return out
}

// upload writes the keymap to a sealed memfd and hands it to the compositor.
func (k *Keyboard) upload() error {
	text := keymapText(k.codes)
	fd, err := unix.MemfdCreate("deskpilot-keymap", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return fmt.Errorf("wayland keyboard: memfd: %w", err)
	}
	defer unix.Close(fd)
	b := append([]byte(text), 0)
	if _, err := unix.Write(fd, b); err != nil {
		return fmt.Errorf("wayland keyboard: write keymap: %w", err)
	}
	if err := k.kb.Keymap(wl.WlKeyboardKeymapFormatXkbV1, fd, uint32(len(b))); err != nil {
		return err
	}
	if k.mods != 0 {
		// A client that takes a new keymap starts from no modifiers, and the
		// compositor forwards only a change: clear them, then set them again.
		if err := k.kb.Modifiers(0, 0, 0, 0); err != nil {
			return err
		}
		return k.kb.Modifiers(k.mods, 0, 0, 0)
	}
	return nil
}

// keymapText is an XKB keymap: the US keys, the modifiers, and one
// single-level key per extra keysym.
func keymapText(extra map[uint32]uint32) string {
	var b strings.Builder
	b.WriteString("xkb_keymap {\nxkb_keycodes \"deskpilot\" {\n minimum = 8;\n maximum = 255;\n")
	var all []uint32
	for _, k := range usLayout {
		all = append(all, k.code)
	}
	all = append(all, slices.Collect(maps.Values(modifierCodes))...)
	all = append(all, slices.Collect(maps.Values(extra))...)
	slices.Sort(all)
	for _, code := range slices.Compact(all) {
		fmt.Fprintf(&b, " <K%d> = %d;\n", code, code+8)
	}
	b.WriteString("};\nxkb_types \"deskpilot\" { include \"complete\" };\nxkb_compat \"deskpilot\" { include \"complete\" };\nxkb_symbols \"deskpilot\" {\n")
	for _, k := range usLayout {
		switch {
		case k.upper == 0:
			fmt.Fprintf(&b, " key <K%d> { [ 0x%08x ] };\n", k.code, k.lower)
		case k.lower >= 'a' && k.lower <= 'z':
			fmt.Fprintf(&b, " key <K%d> { type = \"ALPHABETIC\", [ 0x%08x, 0x%08x ] };\n", k.code, k.lower, k.upper)
		default:
			fmt.Fprintf(&b, " key <K%d> { type = \"TWO_LEVEL\", [ 0x%08x, 0x%08x ] };\n", k.code, k.lower, k.upper)
		}
	}
	for _, s := range slices.Sorted(maps.Keys(extra)) {
		fmt.Fprintf(&b, " key <K%d> { [ 0x%08x ] };\n", extra[s], s)
	}
	for _, m := range []struct {
		sym  uint32
		name string
	}{{keysym.ShiftL, "Shift"}, {keysym.ControlL, "Control"}, {keysym.AltL, "Mod1"}, {keysym.SuperL, "Mod4"}} {
		fmt.Fprintf(&b, " key <K%d> { [ 0x%08x ] };\n modifier_map %s { <K%d> };\n", modifierCodes[m.sym], m.sym, m.name, modifierCodes[m.sym])
	}
	b.WriteString("};\n};\n")
	return b.String()
}

// Key presses (down) or releases the key of keysym sym. A keysym on a US
// key's upper level ("+", "A") is pressed with Shift, unless Shift is held.
func (k *Keyboard) Key(sym uint32, down bool) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err := k.prepareLocked([]uint32{sym}); err != nil {
		return err
	}
	code, _ := k.codeOf(sym)
	shift := modifierCodes[keysym.ShiftL]
	auto := needsShift(sym) && (!k.down[shift] || k.autoShift[code])
	if auto && down {
		if err := k.keyLocked(shift, true); err != nil {
			return err
		}
		k.autoShift[code] = true
	}
	if err := k.keyLocked(code, down); err != nil {
		return err
	}
	if auto && !down {
		delete(k.autoShift, code)
		return k.keyLocked(shift, false)
	}
	return nil
}

func (k *Keyboard) keyLocked(code uint32, down bool) error {
	state := uint32(wl.WlKeyboardKeyStateReleased)
	if down {
		state = wl.WlKeyboardKeyStatePressed
	}
	if err := k.kb.Key(now(), code, state); err != nil {
		return err
	}
	if down {
		k.down[code] = true
	} else {
		delete(k.down, code)
	}
	if mask, ok := modifierMasks[code]; ok {
		if down {
			k.mods |= mask
		} else {
			k.mods &^= mask
		}
		return k.kb.Modifiers(k.mods, 0, 0, 0)
	}
	return nil
}

// Type taps the key of each keysym in turn (with Shift for a US key's upper
// level), waiting gap after each.
func (k *Keyboard) Type(ctx context.Context, syms []uint32, gap time.Duration) error {
	if err := k.Prepare(syms); err != nil {
		return err
	}
	for _, s := range syms {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := k.tap(s); err != nil {
			return err
		}
		if gap > 0 {
			if err := sleep(ctx, gap); err != nil {
				return err
			}
		}
	}
	return k.c.conn.Sync(ctx)
}

// tap presses and releases the key of s.
func (k *Keyboard) tap(s uint32) error {
	if err := k.Key(s, true); err != nil {
		return err
	}
	return k.Key(s, false)
}

// ReleaseAll releases every key held.
func (k *Keyboard) ReleaseAll() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, code := range slices.Sorted(maps.Keys(k.down)) {
		if err := k.keyLocked(code, false); err != nil {
			return err
		}
	}
	return nil
}

// Close destroys the virtual keyboard.
func (k *Keyboard) Close() error { return k.kb.Destroy() }
