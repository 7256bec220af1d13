package robot

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jezek/xgb/xproto"

	"deskpilot/internal/wait"
)

// spareSettle is how long a borrowed keycode keeps its character after its
// last use before it may be remapped or restored: X clients re-read the
// keymap lazily after a MappingNotify, so a client still working through
// older key events must not see the keycode change under it.
const spareSettle = 200 * time.Millisecond

// mapSettle is how long prepare waits after borrowing keycodes before the
// key events that use them. Some toolkits translate a key event when they
// read it from the connection but apply a MappingNotify only when they
// dispatch it (Tk with an input method does), so a key event that arrives
// together with the MappingNotify of its keycode is read with the old
// mapping and lost. The wait lets the application dispatch the
// MappingNotify first.
const mapSettle = 50 * time.Millisecond

// keymap is a copy of the core keyboard mapping: per keysyms for each
// keycode from min on. Column 0 is the unshifted level, column 1 the shifted
// one.
type keymap struct {
	min  xproto.Keycode
	per  int
	syms []xproto.Keysym
}

// spare is a keycode Type or Press borrowed and mapped to sym.
type spare struct {
	sym  xproto.Keysym
	used time.Time
}

// fetchKeymap reads the current keyboard mapping and forgets borrowed
// keycodes that someone else remapped since. Called locked.
func (r *Robot) fetchKeymap() (*keymap, error) {
	setup := xproto.Setup(r.conn)
	count := int(setup.MaxKeycode) - int(setup.MinKeycode) + 1
	rep, err := xproto.GetKeyboardMapping(r.conn, setup.MinKeycode, byte(count)).Reply()
	if err != nil {
		return nil, fmt.Errorf("read keyboard mapping: %w", err)
	}
	if rep.KeysymsPerKeycode == 0 {
		return nil, fmt.Errorf("read keyboard mapping: no keysyms")
	}
	m := &keymap{min: setup.MinKeycode, per: int(rep.KeysymsPerKeycode), syms: rep.Keysyms}
	for code, s := range r.spares {
		if m.at(code, 0) != s.sym {
			delete(r.spares, code)
		}
	}
	return m, nil
}

// count returns the number of keycodes in m.
func (m *keymap) count() int { return len(m.syms) / m.per }

// at returns the keysym of code in column col, 0 when there is none.
func (m *keymap) at(code xproto.Keycode, col int) xproto.Keysym {
	i := (int(code)-int(m.min))*m.per + col
	if code < m.min || col >= m.per || i >= len(m.syms) {
		return 0
	}
	return m.syms[i]
}

// empty reports whether code has no keysyms at all.
func (m *keymap) empty(code xproto.Keycode) bool {
	for col := range m.per {
		if m.at(code, col) != 0 {
			return false
		}
	}
	return true
}

// find returns the lowest keycode producing sym, preferring the unshifted
// level; shifted is true when Shift must be held.
func (m *keymap) find(sym xproto.Keysym) (code xproto.Keycode, shifted, ok bool) {
	for col := range min(2, m.per) {
		for i := range m.count() {
			c := m.min + xproto.Keycode(i)
			if m.at(c, col) == sym {
				return c, col == 1, true
			}
		}
	}
	return 0, false, false
}

// set records that code now maps to sym on both levels.
func (m *keymap) set(code xproto.Keycode, sym xproto.Keysym) {
	base := (int(code) - int(m.min)) * m.per
	for col := range m.per {
		m.syms[base+col] = 0
	}
	m.syms[base] = sym
	if m.per > 1 {
		m.syms[base+1] = sym
	}
}

// modifierCode returns the keycode of a modifier key, trying keysyms in
// order; modifiers must exist in the keymap, a borrowed keycode would not
// act as a modifier.
func (m *keymap) modifierCode(name string, syms ...xproto.Keysym) (xproto.Keycode, error) {
	for _, s := range syms {
		if code, _, ok := m.find(s); ok {
			return code, nil
		}
	}
	return 0, fmt.Errorf("the keyboard map has no %s key", name)
}

// keycode returns a keycode typing sym and whether Shift is needed. sym
// must be in m: call prepare first for keysyms outside the keymap. Called
// locked.
func (r *Robot) keycode(m *keymap, sym xproto.Keysym) (xproto.Keycode, bool, error) {
	code, shifted, ok := m.find(sym)
	if !ok {
		return 0, false, fmt.Errorf("no keycode for keysym %#x", uint32(sym))
	}
	if s := r.spares[code]; s != nil {
		s.used = time.Now()
	}
	return code, shifted, nil
}

// prepare makes sure the keysyms at the start of syms have keycodes,
// borrowing spare keycodes for those outside the keymap, and returns how
// many of syms are ready (at least one). It stops before a keysym that would
// need more spare keycodes than exist. When it mapped anything it waits
// mapSettle, so applications have taken the new mapping in before the first
// key event that needs it. Called locked.
func (r *Robot) prepare(ctx context.Context, m *keymap, syms []xproto.Keysym) (int, error) {
	capacity := 0
	for i := range m.count() {
		c := m.min + xproto.Keycode(i)
		if (m.empty(c) && r.spares[c] == nil) || (r.spares[c] != nil && !r.keys[c]) {
			capacity++
		}
	}
	keep := map[xproto.Keycode]bool{} // borrowed keycodes this run uses
	var fresh []xproto.Keysym
	n := 0
	for ; n < len(syms); n++ {
		sym := syms[n]
		if code, _, ok := m.find(sym); ok {
			if r.spares[code] != nil && !keep[code] {
				if len(keep)+len(fresh) >= capacity {
					break
				}
				keep[code] = true
			}
			continue
		}
		if slices.Contains(fresh, sym) {
			continue
		}
		if len(keep)+len(fresh) >= capacity {
			break
		}
		fresh = append(fresh, sym)
	}
	if n == 0 {
		return 0, fmt.Errorf("no spare keycode to map keysym %#x to: the keymap has no free keycode", uint32(syms[0]))
	}
	for _, sym := range fresh {
		code, err := r.borrow(ctx, m, sym, keep)
		if err != nil {
			return 0, err
		}
		keep[code] = true
	}
	if len(fresh) == 0 {
		return n, nil
	}
	if err := r.sync(); err != nil {
		return 0, err
	}
	return n, wait.Sleep(ctx, mapSettle)
}

// borrow maps a free keycode, or else the least recently used borrowed one
// that is neither held down nor in keep, to sym. Called locked.
func (r *Robot) borrow(ctx context.Context, m *keymap, sym xproto.Keysym, keep map[xproto.Keycode]bool) (xproto.Keycode, error) {
	var code xproto.Keycode
	found := false
	for i := range m.count() {
		c := m.min + xproto.Keycode(i)
		if m.empty(c) && r.spares[c] == nil {
			code, found = c, true
			break
		}
	}
	if !found {
		var oldest *spare
		for c, s := range r.spares {
			if !r.keys[c] && !keep[c] && (oldest == nil || s.used.Before(oldest.used)) {
				code, oldest = c, s
			}
		}
		if oldest == nil {
			return 0, fmt.Errorf("no spare keycode left to map keysym %#x to", uint32(sym))
		}
		if err := wait.Sleep(ctx, time.Until(oldest.used.Add(spareSettle))); err != nil {
			return 0, err
		}
	}
	xproto.ChangeKeyboardMapping(r.conn, 1, code, 2, []xproto.Keysym{sym, sym})
	m.set(code, sym)
	r.spares[code] = &spare{sym: sym, used: time.Now()}
	return code, nil
}

// restoreSpares gives every borrowed keycode its empty mapping back, once
// the last one used has settled. Called locked.
func (r *Robot) restoreSpares() error {
	if len(r.spares) == 0 {
		return nil
	}
	var last time.Time
	for _, s := range r.spares {
		if s.used.After(last) {
			last = s.used
		}
	}
	time.Sleep(time.Until(last.Add(spareSettle)))
	m, err := r.fetchKeymap()
	if err != nil {
		return err
	}
	for code := range r.spares {
		if !m.empty(code) {
			xproto.ChangeKeyboardMapping(r.conn, 1, code, 2, []xproto.Keysym{0, 0})
		}
	}
	clear(r.spares)
	return r.sync()
}
