// Package hotkey owns deskpilot's global Stop key: a key combination grabbed
// on the X display's root window (XGrabKey), so that pressing it anywhere on
// the desktop, whatever window has the focus, stops every run and MCP session
// of the user. It is grabbed only while a run is active.
package hotkey

import (
	"errors"
	"fmt"
	"strings"

	"deskpilot/actions"
)

// Default is the combination grabbed when none is configured.
const Default = "ctrl+alt+escape"

// ErrTaken is what Watch returns when another client (another deskpilot
// process, a window manager binding) holds the combination.
var ErrTaken = errors.New("hotkey: the combination is grabbed by another client")

// ErrUnavailable is what Watch returns where no X display can be grabbed on.
var ErrUnavailable = errors.New("hotkey: no X display to grab the key on")

// Options say where and what to grab.
type Options struct {
	// Display is the X display ("" = $DISPLAY).
	Display string
	// XAuthority is the authority file for it ("" = $XAUTHORITY).
	XAuthority string
	// Combo is the combination, as press() takes it ("ctrl+alt+escape").
	Combo string
}

// Parse checks a configured combination: "" is Default, "none" or "off"
// turns the hotkey off (ok false).
func Parse(s string) (c actions.Combo, ok bool, err error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		s = Default
	case "none", "off":
		return actions.Combo{}, false, nil
	}
	c, err = actions.ParseCombo(s)
	if err != nil {
		return actions.Combo{}, false, fmt.Errorf("stop_hotkey: %w", err)
	}
	if actions.IsModifier(c.Key) {
		return actions.Combo{}, false, fmt.Errorf("stop_hotkey %q: the last key must not be a modifier", s)
	}
	return c, true, nil
}
