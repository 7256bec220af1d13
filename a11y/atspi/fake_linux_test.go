package atspi

import (
	"context"
	"image"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"deskpilot/internal/xconn"
	"deskpilot/vision/xdisplay"
)

// fakeNode is one object of a fake application's tree.
type fakeNode struct {
	name   string
	role   uint32
	states uint64 // 0 = showing, visible, enabled, sensitive
	ext    image.Rectangle
	kids   []string // child paths
	count  int32    // ChildCount when > 0; else len(kids)
}

const fakePrefix = "/org/a11y/atspi/accessible"

// fakeApp is an AT-SPI application of the test's own, speaking the real protocol on
// the real accessibility bus: it exports an accessible tree (no Cache interface, so
// the walk reads it object by object), registers with the registry through
// Socket.Embed, and owns an X window whose _NET_WM_PID is the test's process, so
// the walk counts it as on the display. Its behaviour can be hostile: never answer,
// quit in the middle of a walk, loop, be enormous.
type fakeApp struct {
	conn   *dbus.Conn
	window image.Rectangle // its X window's client area, root coordinates

	// node returns the object at path; it may generate objects on the fly.
	node func(path string) (fakeNode, bool)
	// hang, when set, makes every Accessible and Component call wait for it to close.
	hang chan struct{}
	// vanishOn, when set, makes the application close its connection when it is
	// asked for the children of this path.
	vanishOn string

	mu    sync.Mutex
	calls map[string]int // "Method path" -> count
}

// startFake starts a fake application with tree (paths relative to fakePrefix;
// "root" is the application) built by build from its window's rectangle.
func startFake(t *testing.T, ctx context.Context, title string, configure func(f *fakeApp, win image.Rectangle)) *fakeApp {
	t.Helper()
	return startFakeOn(t, ctx, fakeWindow(t, ctx, title, true), configure)
}

// startFakeOn starts a fake application whose tree configure builds around win.
func startFakeOn(t *testing.T, ctx context.Context, win image.Rectangle, configure func(f *fakeApp, win image.Rectangle)) *fakeApp {
	t.Helper()
	addr, err := launcherAddress(ctx, os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeApp{conn: conn, window: win, calls: map[string]int{}}
	configure(f, win)
	t.Cleanup(func() {
		if f.hang != nil {
			close(f.hang)
		}
		conn.Close()
	})
	f.export(t)
	var socket objRef
	me := objRef{Bus: conn.Names()[0], Path: fakePrefix + "/root"}
	if err := conn.Object(registryName, registryRoot).CallWithContext(ctx, "org.a11y.atspi.Socket.Embed", 0, me).Store(&socket); err != nil {
		t.Fatalf("embed: %v", err)
	}
	return f
}

// count returns how often method was called on path ("" = any path).
func (f *fakeApp) count(method, path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if path != "" {
		return f.calls[method+" "+path]
	}
	n := 0
	for k, v := range f.calls {
		if strings.HasPrefix(k, method+" ") {
			n += v
		}
	}
	return n
}

// lookup records a call and returns the object it is about.
func (f *fakeApp) lookup(msg dbus.Message, method string) (fakeNode, *dbus.Error) {
	path := strings.TrimPrefix(string(msg.Headers[dbus.FieldPath].Value().(dbus.ObjectPath)), fakePrefix+"/")
	f.mu.Lock()
	f.calls[method+" "+path]++
	f.mu.Unlock()
	if f.hang != nil {
		<-f.hang
	}
	if method == "GetChildren" && path == f.vanishOn {
		f.conn.Close()
	}
	n, ok := f.node(path)
	if !ok {
		return n, dbus.NewError("org.freedesktop.DBus.Error.UnknownObject", []any{"no object " + path})
	}
	if n.states == 0 {
		n.states = 1<<stateShowing | 1<<stateVisible | 1<<stateEnabled | 1<<stateSensitive
	}
	if n.count <= 0 {
		n.count = int32(len(n.kids))
	}
	return n, nil
}

func (f *fakeApp) ref(path string) objRef {
	return objRef{Bus: f.conn.Names()[0], Path: dbus.ObjectPath(fakePrefix + "/" + path)}
}

// export serves the tree on the bus.
func (f *fakeApp) export(t *testing.T) {
	type rect struct{ X, Y, W, H int32 }
	accessible := map[string]any{
		"GetRole": func(m dbus.Message) (uint32, *dbus.Error) { n, err := f.lookup(m, "GetRole"); return n.role, err },
		"GetState": func(m dbus.Message) ([]uint32, *dbus.Error) {
			n, err := f.lookup(m, "GetState")
			return []uint32{uint32(n.states), uint32(n.states >> 32)}, err
		},
		"GetInterfaces": func(m dbus.Message) ([]string, *dbus.Error) {
			_, err := f.lookup(m, "GetInterfaces")
			return []string{ifAccessible, ifComponentBus}, err
		},
		"GetChildren": func(m dbus.Message) ([]objRef, *dbus.Error) {
			n, err := f.lookup(m, "GetChildren")
			out := make([]objRef, len(n.kids))
			for i, k := range n.kids {
				out[i] = f.ref(k)
			}
			return out, err
		},
		"GetChildAtIndex": func(m dbus.Message, i int32) (objRef, *dbus.Error) {
			n, err := f.lookup(m, "GetChildAtIndex")
			if err == nil && (i < 0 || int(i) >= len(n.kids)) {
				return objRef{}, dbus.NewError("org.freedesktop.DBus.Error.InvalidArgs", []any{"index out of range"})
			}
			if err != nil {
				return objRef{}, err
			}
			return f.ref(n.kids[i]), nil
		},
		"GetRelationSet": func(m dbus.Message) ([]relation, *dbus.Error) {
			_, err := f.lookup(m, "GetRelationSet")
			return []relation{}, err
		},
	}
	properties := map[string]any{
		"GetAll": func(m dbus.Message, iface string) (map[string]dbus.Variant, *dbus.Error) {
			n, err := f.lookup(m, "GetAll")
			return map[string]dbus.Variant{
				"Name": dbus.MakeVariant(n.name), "Description": dbus.MakeVariant(""),
				"ChildCount": dbus.MakeVariant(n.count),
			}, err
		},
		"Get": func(m dbus.Message, iface, prop string) (dbus.Variant, *dbus.Error) {
			n, err := f.lookup(m, "Get")
			if prop == "ChildCount" {
				return dbus.MakeVariant(n.count), err
			}
			return dbus.MakeVariant(n.name), err
		},
		"Set": func(m dbus.Message, iface, prop string, v dbus.Variant) *dbus.Error { return nil },
	}
	component := map[string]any{
		"GetExtents": func(m dbus.Message, coords uint32) (rect, *dbus.Error) {
			n, err := f.lookup(m, "GetExtents")
			if err == nil && (n.role == roleApplication || n.ext.Empty()) {
				return rect{}, dbus.NewError("org.freedesktop.DBus.Error.UnknownMethod", []any{"no Component"})
			}
			r := n.ext
			return rect{int32(r.Min.X), int32(r.Min.Y), int32(r.Dx()), int32(r.Dy())}, err
		},
	}
	for iface, table := range map[string]map[string]any{ifAccessible: accessible, ifProperties: properties, ifComponentBus: component} {
		if err := f.conn.ExportSubtreeMethodTable(table, fakePrefix, iface); err != nil {
			t.Fatal(err)
		}
	}
}

// fakeWindow maps an X window titled title, with _NET_WM_PID set to this process
// when withPID, and returns its client area once the window manager shows it.
func fakeWindow(t *testing.T, ctx context.Context, title string, withPID bool) image.Rectangle {
	t.Helper()
	c, err := xconn.Dial("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s := xproto.Setup(c).DefaultScreen(c)
	wid, err := xproto.NewWindowId(c)
	if err != nil {
		t.Fatal(err)
	}
	err = xproto.CreateWindowChecked(c, s.RootDepth, wid, s.Root, 100, 100, 400, 300, 0,
		xproto.WindowClassInputOutput, s.RootVisual, xproto.CwBackPixel, []uint32{s.WhitePixel}).Check()
	if err != nil {
		t.Fatal(err)
	}
	setProp := func(name string, typ xproto.Atom, format byte, data []byte) {
		a, err := xproto.InternAtom(c, false, uint16(len(name)), name).Reply()
		if err != nil {
			t.Fatal(err)
		}
		n := uint32(len(data)) / uint32(format/8)
		if err := xproto.ChangePropertyChecked(c, xproto.PropModeReplace, wid, a.Atom, typ, format, n, data).Check(); err != nil {
			t.Fatal(err)
		}
	}
	setProp("WM_NAME", xproto.AtomString, 8, []byte(title))
	if withPID {
		pid := make([]byte, 4)
		xgb.Put32(pid, uint32(os.Getpid()))
		setProp("_NET_WM_PID", xproto.AtomCardinal, 32, pid)
	}
	if err := xproto.MapWindowChecked(c, wid).Check(); err != nil {
		t.Fatal(err)
	}
	d, err := xdisplay.Attach("")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	w, err := d.WaitWindow(ctx, title)
	if err != nil {
		t.Fatal(err)
	}
	return w.Bounds
}

// staticTree returns a node function over a fixed map.
func staticTree(nodes map[string]fakeNode) func(string) (fakeNode, bool) {
	return func(p string) (fakeNode, bool) { n, ok := nodes[p]; return n, ok }
}

// button makes a push button node inside win at row i.
func button(win image.Rectangle, name string, i int) fakeNode {
	r := image.Rect(win.Min.X+10, win.Min.Y+10+30*i, win.Min.X+110, win.Min.Y+35+30*i)
	return fakeNode{name: name, role: 43, ext: r}
}
