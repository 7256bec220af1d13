package checks

import (
	"context"
	"image"
	"time"

	"github.com/godbus/dbus/v5"

	"deskpilot/a11y"
)

// The walk of the accessibility_tree getter (the caller sets them on its
// atspi.Options, with Containers and NoCache: every visible element with the
// containers kept, as OSWorld's tree has them, read object by object as
// OSWorld's server does, since an application's cache may lack parts of its
// tree): OSWorld's depth limit, within 20 000 objects and 20 s. The agent's
// own walks keep atspi's tighter defaults; a check runs once, at the task's
// end, and the task timeout bounds it too.
const (
	TreeMaxDepth = 50
	TreeMaxNodes = 20000
	TreeMaxTime  = 20 * time.Second
)

// Bounds of A11yDetails.
const (
	a11yAttrCallTimeout = time.Second
	a11yAttrTotal       = 15 * time.Second
	a11yAttrMaxElements = 20000
)

// coordParent is AT-SPI's ATSPI_COORD_TYPE_PARENT: a position relative to
// the object's parent.
const coordParent = 2

// A11yInfo is what TreeXML writes of an element beyond what the walk gives.
type A11yInfo struct {
	// Attrs are its object attributes (AT-SPI's GetAttributes: "id",
	// "class", "tag", ...), OSWorld's attr:*.
	Attrs map[string]string
	// ParentPos is its position relative to its parent (Component's
	// GetPosition in parent coordinates), OSWorld's cp:parentcoord; set
	// when HasParentPos.
	ParentPos    image.Point
	HasParentPos bool
}

// A11yDetails reads, over the accessibility bus at busAddr, the object
// attributes and the position relative to the parent of the walked
// elements, keyed by Element.ID, for TreeXML. An application that does not
// answer within a second leaves its elements without them; the whole read
// stops after 15 s or 20 000 elements.
func A11yDetails(ctx context.Context, busAddr string, els []a11y.Element) (map[string]A11yInfo, error) {
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
	out := map[string]A11yInfo{}
	slow := map[string]bool{}
	for i, e := range els {
		if i >= a11yAttrMaxElements || ctx.Err() != nil {
			break
		}
		if slow[e.Bus] || e.Bus == "" || !dbus.ObjectPath(e.Path).IsValid() {
			continue
		}
		cctx, ccancel := context.WithTimeout(ctx, a11yAttrCallTimeout)
		obj := conn.Object(e.Bus, dbus.ObjectPath(e.Path))
		// Both calls in flight at once: one round trip per element.
		attrCall := obj.GoWithContext(cctx, "org.a11y.atspi.Accessible.GetAttributes", 0, nil)
		posCall := obj.GoWithContext(cctx, "org.a11y.atspi.Component.GetPosition", 0, nil, uint32(coordParent))
		<-attrCall.Done
		<-posCall.Done
		ccancel()
		var info A11yInfo
		if err := attrCall.Store(&info.Attrs); err != nil || len(info.Attrs) == 0 {
			info.Attrs = nil
		}
		var x, y int32
		if err := posCall.Store(&x, &y); err == nil {
			info.ParentPos, info.HasParentPos = image.Pt(int(x), int(y)), true
		}
		if attrCall.Err != nil && posCall.Err != nil && cctx.Err() != nil {
			slow[e.Bus] = true
		}
		if info.Attrs != nil || info.HasParentPos {
			out[e.ID()] = info
		}
	}
	return out, nil
}
