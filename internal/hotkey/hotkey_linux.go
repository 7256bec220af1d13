//go:build linux

package hotkey

import (
	"context"
	"errors"
	"fmt"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"deskpilot/actions/keysym"
	"deskpilot/internal/xconn"
)

// Watch grabs o.Combo on the root window of o.Display and calls fire (on its
// own goroutine, one call at a time) each time it is pressed, until ctx ends.
// The grab holds with Caps Lock and Num Lock on or off. It returns ErrTaken
// when another client holds the combination, at once.
func Watch(ctx context.Context, o Options, fire func()) error {
	combo, ok, err := Parse(o.Combo)
	if err != nil || !ok {
		return err
	}
	sym, found := keysym.Key(combo.Key)
	if !found {
		return fmt.Errorf("hotkey: no X key for %q", combo.Key)
	}
	conn, err := xconn.DialAuth(o.Display, o.XAuthority)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	defer xconn.Close(conn)
	setup := xproto.Setup(conn)
	root := setup.DefaultScreen(conn).Root
	code, err := keycodeOf(conn, setup, xproto.Keysym(sym))
	if err != nil {
		return err
	}
	mods := modMask(combo.Mods)
	variants := []uint16{0, xproto.ModMaskLock, xproto.ModMask2, xproto.ModMaskLock | xproto.ModMask2}
	for i, v := range variants {
		err := xproto.GrabKeyChecked(conn, true, root, mods|v, code, xproto.GrabModeAsync, xproto.GrabModeAsync).Check()
		if err != nil {
			for _, u := range variants[:i] {
				_ = xproto.UngrabKeyChecked(conn, code, root, mods|u).Check()
			}
			var access xproto.AccessError
			if errors.As(err, &access) {
				return ErrTaken
			}
			return fmt.Errorf("hotkey: grab %s: %w", o.Combo, err)
		}
	}
	stop := context.AfterFunc(ctx, conn.Close)
	defer stop()
	for {
		ev, xerr := conn.WaitForEvent()
		if ev == nil && xerr == nil {
			return ctx.Err() // the connection closed
		}
		if kp, ok := ev.(xproto.KeyPressEvent); ok && kp.Detail == code {
			fire()
		}
	}
}

// keycodeOf finds a keycode whose keysyms include sym.
func keycodeOf(conn *xgb.Conn, setup *xproto.SetupInfo, sym xproto.Keysym) (xproto.Keycode, error) {
	first, count := setup.MinKeycode, byte(setup.MaxKeycode-setup.MinKeycode+1)
	km, err := xproto.GetKeyboardMapping(conn, first, count).Reply()
	if err != nil {
		return 0, fmt.Errorf("hotkey: keyboard mapping: %w", err)
	}
	per := int(km.KeysymsPerKeycode)
	for i := 0; i < int(count); i++ {
		for j := 0; j < per && i*per+j < len(km.Keysyms); j++ {
			if km.Keysyms[i*per+j] == sym {
				return first + xproto.Keycode(i), nil
			}
		}
	}
	return 0, fmt.Errorf("hotkey: no key on this keyboard types keysym %#x", sym)
}

// modMask is the X modifier mask of canonical modifier names: Alt is Mod1 and
// Super Mod4, as X servers map them by default.
func modMask(mods []string) uint16 {
	var m uint16
	for _, name := range mods {
		switch name {
		case "ctrl":
			m |= xproto.ModMaskControl
		case "shift":
			m |= xproto.ModMaskShift
		case "alt":
			m |= xproto.ModMask1
		case "super":
			m |= xproto.ModMask4
		}
	}
	return m
}
