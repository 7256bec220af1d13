package robot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jezek/xgb/xproto"

	"deskpilot/actions"
	"deskpilot/internal/wait"
)

// typeChunk is how many characters Type sends between round trips, which
// check for X errors and for ctx.
const typeChunk = 64

// Press presses the combo's modifiers, then its key, then releases them in
// reverse order ("ctrl+shift+t", "enter", "alt+f4"). A key on the shifted
// level of its keycap ("?", "!") gets Shift added. The combo is normalized
// with actions.ParseCombo, so a hand-built Combo with aliases works too.
func (r *Robot) Press(ctx context.Context, c actions.Combo) error {
	c, err := actions.ParseCombo(c.String())
	if err != nil {
		return fmt.Errorf("robot: press: %w", err)
	}
	if err := r.begin(ctx); err != nil {
		return fmt.Errorf("robot: press %s: %w", c, err)
	}
	defer r.mu.Unlock()
	codes, err := r.comboCodes(ctx, c)
	if err != nil {
		return fmt.Errorf("robot: press %s: %w", c, err)
	}
	for _, code := range codes {
		r.key(code, true)
	}
	for _, code := range slices.Backward(codes) {
		r.key(code, false)
	}
	if err := r.sync(); err != nil {
		return fmt.Errorf("robot: press %s: %w", c, err)
	}
	return nil
}

// Hold presses the combo, keeps it down for d, and releases it. When ctx is
// done first the keys are released at once and ctx's error returned. The
// Robot is not locked while it waits: other primitives may run (a click with
// shift held) and ReleaseAll releases the held keys early.
func (r *Robot) Hold(ctx context.Context, c actions.Combo, d time.Duration) error {
	c, err := actions.ParseCombo(c.String())
	if err != nil {
		return fmt.Errorf("robot: hold: %w", err)
	}
	if d < 0 {
		return fmt.Errorf("robot: hold %s: duration %v is negative", c, d)
	}
	if err := r.begin(ctx); err != nil {
		return fmt.Errorf("robot: hold %s: %w", c, err)
	}
	codes, err := r.comboCodes(ctx, c)
	if err == nil {
		for _, code := range codes {
			r.key(code, true)
		}
		err = r.sync()
	}
	r.mu.Unlock()
	if err == nil {
		err = wait.Sleep(ctx, d)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		for _, code := range slices.Backward(codes) {
			if r.keys[code] {
				r.key(code, false)
			}
		}
		err = errors.Join(err, r.sync())
	}
	if err != nil {
		return fmt.Errorf("robot: hold %s: %w", c, err)
	}
	return nil
}

// comboCodes returns the keycodes to press for c, in order. Called locked.
func (r *Robot) comboCodes(ctx context.Context, c actions.Combo) ([]xproto.Keycode, error) {
	m, err := r.fetchKeymap()
	if err != nil {
		return nil, err
	}
	var codes []xproto.Keycode
	for _, mod := range c.Mods {
		code, err := m.modifierCode(mod, modifierKeysyms(mod)...)
		if err != nil {
			return nil, err
		}
		codes = append(codes, code)
	}
	if actions.IsModifier(c.Key) {
		code, err := m.modifierCode(c.Key, modifierKeysyms(c.Key)...)
		return append(codes, code), err
	}
	sym, ok := keyKeysym(c.Key)
	if !ok {
		return nil, fmt.Errorf("no keysym for key %q", c.Key)
	}
	if _, err := r.prepare(ctx, m, []xproto.Keysym{sym}); err != nil {
		return nil, err
	}
	code, shifted, err := r.keycode(m, sym)
	if err != nil {
		return nil, err
	}
	if shifted && !slices.Contains(c.Mods, "shift") {
		shift, err := m.modifierCode("shift", xkShiftL, xkShiftR)
		if err != nil {
			return nil, err
		}
		codes = append(codes, shift)
	}
	return append(codes, code), nil
}

// Type types text, any Unicode (see the package doc for how): "\n" and
// "\r\n" press Return, "\t" Tab; other control characters are refused before
// anything is typed. Caps Lock, when on, is switched off while typing and
// back on after. When ctx is done halfway, typing stops and the error says
// how many characters were typed.
func (r *Robot) Type(ctx context.Context, text string) error {
	syms, err := textKeysyms(text)
	if err != nil {
		return fmt.Errorf("robot: type: %w", err)
	}
	if len(syms) == 0 {
		return nil
	}
	if err := r.begin(ctx); err != nil {
		return fmt.Errorf("robot: type: %w", err)
	}
	defer r.mu.Unlock()
	n, err := r.typeKeysyms(ctx, syms)
	if err != nil {
		return fmt.Errorf("robot: type: typed %d of %d characters: %w", n, len(syms), err)
	}
	return nil
}

// typeKeysyms types syms and returns how many it typed. Called locked.
func (r *Robot) typeKeysyms(ctx context.Context, syms []xproto.Keysym) (int, error) {
	m, err := r.fetchKeymap()
	if err != nil {
		return 0, err
	}
	shift, err := m.modifierCode("shift", xkShiftL, xkShiftR)
	if err != nil {
		return 0, err
	}
	undoCaps, err := r.capsLockOff(m)
	if err != nil {
		return 0, err
	}
	n, err := r.typeLoop(ctx, m, shift, syms)
	return n, errors.Join(err, undoCaps())
}

func (r *Robot) typeLoop(ctx context.Context, m *keymap, shift xproto.Keycode, syms []xproto.Keysym) (int, error) {
	ready := 0 // syms[:ready] have keycodes
	for i, sym := range syms {
		if i > 0 && i%typeChunk == 0 {
			if err := r.sync(); err != nil {
				return i, err
			}
			if err := ctx.Err(); err != nil {
				return i, err
			}
		}
		if i == ready {
			n, err := r.prepare(ctx, m, syms[i:])
			if err != nil {
				return i, err
			}
			ready += n
		}
		code, shifted, err := r.keycode(m, sym)
		if err != nil {
			return i, err
		}
		if shifted {
			r.key(shift, true)
		}
		r.key(code, true)
		r.key(code, false)
		if shifted {
			r.key(shift, false)
		}
	}
	return len(syms), r.sync()
}

// capsLockOff switches Caps Lock off when it is on and returns the function
// that switches it back. Called locked.
func (r *Robot) capsLockOff(m *keymap) (undo func() error, err error) {
	nothing := func() error { return nil }
	q, err := xproto.QueryPointer(r.conn, r.root).Reply()
	if err != nil {
		return nothing, fmt.Errorf("read modifier state: %w", err)
	}
	if q.Mask&xproto.ModMaskLock == 0 {
		return nothing, nil
	}
	code, _, ok := m.find(xkCapsLock)
	if !ok {
		return nothing, nil // nothing to do about it; letters will come out in upper case
	}
	toggle := func() error {
		r.key(code, true)
		r.key(code, false)
		return r.sync()
	}
	return toggle, toggle()
}
