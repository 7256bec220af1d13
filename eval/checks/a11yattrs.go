package checks

import (
	"context"
	"time"

	"github.com/godbus/dbus/v5"

	"deskpilot/a11y"
)

// Bounds of A11yAttributes.
const (
	a11yAttrCallTimeout = time.Second
	a11yAttrTotal       = 15 * time.Second
	a11yAttrMaxElements = 20000
)

// A11yAttributes reads the object attributes (AT-SPI's GetAttributes: "id",
// "class", "tag", ...) of the walked elements over the accessibility bus at
// busAddr, keyed by Element.ID, for TreeXML. An application that does not
// answer within a second leaves its elements without attributes; the whole
// read stops after 15 s or 20 000 elements.
func A11yAttributes(ctx context.Context, busAddr string, els []a11y.Element) (map[string]map[string]string, error) {
	conn, err := dbus.Dial(busAddr, dbus.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		return nil, err
	}
	if err := conn.Hello(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, a11yAttrTotal)
	defer cancel()
	out := map[string]map[string]string{}
	slow := map[string]bool{}
	for i, e := range els {
		if i >= a11yAttrMaxElements || ctx.Err() != nil {
			break
		}
		if slow[e.Bus] || e.Bus == "" || !dbus.ObjectPath(e.Path).IsValid() {
			continue
		}
		cctx, ccancel := context.WithTimeout(ctx, a11yAttrCallTimeout)
		var attrs map[string]string
		err := conn.Object(e.Bus, dbus.ObjectPath(e.Path)).CallWithContext(cctx, "org.a11y.atspi.Accessible.GetAttributes", 0).Store(&attrs)
		ccancel()
		if err != nil {
			if cctx.Err() != nil {
				slow[e.Bus] = true
			}
			continue
		}
		if len(attrs) > 0 {
			out[e.ID()] = attrs
		}
	}
	return out, nil
}
