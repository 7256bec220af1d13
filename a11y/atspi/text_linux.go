package atspi

import (
	"context"
	"errors"
	"fmt"

	"github.com/godbus/dbus/v5"

	"deskpilot/a11y"
)

// MaxFullText bounds Client.Text: the most characters one read gives.
const MaxFullText = 1 << 22

// Text reads the whole text of an element through its Text interface: its
// CharacterCount characters from offset 0, as pyatspi's
// getText(0, characterCount) reads them (a terminal's whole buffer, a
// document's whole content), not cut to Options.MaxText as Elements cuts them.
// The element is one Elements returned (its Bus and Path). It fails for an
// element without the Text interface, one gone from the bus, or a text longer
// than MaxFullText characters.
func (c *Client) Text(ctx context.Context, e a11y.Element) (string, error) {
	if e.Bus == "" || !dbus.ObjectPath(e.Path).IsValid() {
		return "", errors.New("atspi: text: the element has no accessible object")
	}
	ctx, cancel := context.WithTimeout(ctx, c.o.MaxTime)
	defer cancel()
	obj := c.bus.Object(e.Bus, dbus.ObjectPath(e.Path))
	var v dbus.Variant
	err := obj.CallWithContext(ctx, ifProperties+".Get", dbus.FlagNoAutoStart, ifTextBus, "CharacterCount").Store(&v)
	count, ok := v.Value().(int32)
	if err == nil && !ok {
		err = fmt.Errorf("CharacterCount is %s, not an int32", v.Signature())
	}
	if err != nil {
		return "", fmt.Errorf("atspi: text of %s: %w", e.Role, err)
	}
	if count > MaxFullText {
		return "", fmt.Errorf("atspi: text of %s: %d characters, more than %d", e.Role, count, MaxFullText)
	}
	var s string
	if err := obj.CallWithContext(ctx, ifTextBus+".GetText", dbus.FlagNoAutoStart, int32(0), count).Store(&s); err != nil {
		return "", fmt.Errorf("atspi: text of %s: %w", e.Role, err)
	}
	return s, nil
}
