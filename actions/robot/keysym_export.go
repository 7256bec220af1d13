package robot

import "github.com/jezek/xgb/xproto"

// KeysymOf returns the X keysym of a canonical non-modifier key name
// (actions.CanonicalKey), e.g. "escape" or "f12": the keysym Press sends for
// it. Other X clients (a global hotkey grab) look keys up the same way.
func KeysymOf(key string) (xproto.Keysym, bool) { return keyKeysym(key) }
