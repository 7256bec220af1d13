// Package wlroots drives a wlroots compositor (sway, Hyprland, labwc, river,
// ...) over its own Wayland protocols, as a plain client of package wl:
// frames from zwlr_screencopy_manager_v1 into shared memory, the pointer
// through zwlr_virtual_pointer_v1 (absolute motion on one output, buttons,
// axis), the keyboard through zwp_virtual_keyboard_v1 with a keymap this
// package writes (so any character can be typed), the outputs with their
// logical layout and scale (wl_output + zxdg_output_v1), the window list
// (zwlr_foreign_toplevel_manager_v1) and idle time (org_kde_kwin_idle).
//
// Coordinates: an Output's pixels are its buffer pixels (what a capture
// returns, its current mode), and a pointer motion names one of those pixels:
// the compositor scales it to its logical layout, so HiDPI and fractional
// scales need no rounding here.
package wlroots

import (
	"context"
	"errors"
	"fmt"
	"image"
	"slices"
	"sync"
	"time"

	"deskpilot/internal/wl"
)

// Global is one interface the compositor offers.
type Global struct {
	Name      uint32
	Interface string
	Version   uint32
}

// Output is one monitor as the compositor lays it out.
type Output struct {
	Name        string          // "HEADLESS-1", "DP-1"
	Description string          // make, model and connector, when the compositor says
	Pixels      image.Point     // size of the current mode, buffer pixels
	Logical     image.Rectangle // position and size in the compositor's logical layout
	Scale       int32           // wl_output's integer scale (a fractional scale shows only in Logical)
	Transform   int32           // wl_output transform
}

// PixelScale is how many buffer pixels one logical pixel spans across
// (1.5 on a 1.5-scaled output); 1 when the logical size is unknown.
func (o Output) PixelScale() float64 {
	if o.Logical.Dx() <= 0 || o.Pixels.X <= 0 {
		return 1
	}
	return float64(o.Pixels.X) / float64(o.Logical.Dx())
}

// ToPixels turns a rectangle of the logical layout into the output's pixels
// (origin at the output's top-left).
func (o Output) ToPixels(r image.Rectangle) image.Rectangle {
	s := o.PixelScale()
	r = r.Sub(o.Logical.Min)
	f := func(v int) int { return int(float64(v)*s + 0.5) }
	return image.Rect(f(r.Min.X), f(r.Min.Y), f(r.Max.X), f(r.Max.Y))
}

// output is an Output with its proxies.
type output struct {
	global uint32
	wl     *wl.WlOutput
	xdg    *wl.ZxdgOutputV1
	info   Output
	cap    *shot   // the capture buffer of CaptureNext, reused
	stream *stream // the stream of Capture, once started
}

// Client is one connection to a wlroots compositor. Safe for concurrent use.
type Client struct {
	conn *wl.Conn
	path string

	mu         sync.Mutex
	globals    []Global
	outputs    []*output
	shm        *wl.WlShm
	seat       *wl.WlSeat
	seatCaps   uint32
	capsSeen   chan struct{} // closed when the seat first reports a keyboard
	copier     *wl.ZwlrScreencopyManagerV1
	pointers   *wl.ZwlrVirtualPointerManagerV1
	ptrVer     uint32
	keyboard   *wl.ZwpVirtualKeyboardManagerV1
	tops       *toplevels
	xdgOutputs *wl.ZxdgOutputManagerV1
	idle       *idleWatch
	formats    []uint32

	capMu sync.Mutex // one capture at a time
}

// The interfaces Client needs, and the versions it speaks.
const (
	needScreencopy = wl.ZwlrScreencopyManagerV1Interface
	needPointer    = wl.ZwlrVirtualPointerManagerV1Interface
	needKeyboard   = wl.ZwpVirtualKeyboardManagerV1Interface
)

// Dial connects to the compositor's socket (an absolute path, see
// wl.SocketPath) and reads its globals and outputs.
func Dial(ctx context.Context, path string) (*Client, error) {
	conn, err := wl.Dial(path)
	if err != nil {
		return nil, err
	}
	c := &Client{conn: conn, path: path, capsSeen: make(chan struct{})}
	reg := &wl.WlRegistry{}
	reg.OnGlobal = func(name uint32, iface string, version uint32) { c.global(reg, name, iface, version) }
	reg.OnGlobalRemove = func(name uint32) { c.globalRemove(name) }
	if err := conn.Display().GetRegistry(reg); err != nil {
		conn.Close()
		return nil, err
	}
	// The first sync delivers the globals (and binds them), the second the
	// outputs' and the seat's first events.
	for range 2 {
		if err := conn.Sync(ctx); err != nil {
			conn.Close()
			return nil, fmt.Errorf("wayland: %s: %w", path, err)
		}
	}
	return c, nil
}

// Close closes the connection, which destroys every virtual device. Safe twice.
func (c *Client) Close() error { return c.conn.Close() }

// Done is closed when the connection is lost (the compositor quit).
func (c *Client) Done() <-chan struct{} { return c.conn.Done() }

// Err is why the connection ended; nil while it is up.
func (c *Client) Err() error { return c.conn.Err() }

// Globals lists what the compositor offers, in its order.
func (c *Client) Globals() []Global {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.globals)
}

// Has reports whether the compositor offers iface.
func (c *Client) Has(iface string) bool {
	return slices.ContainsFunc(c.Globals(), func(g Global) bool { return g.Interface == iface })
}

// Missing names the interfaces deskpilot needs that the compositor does not
// offer, so a caller can say what it cannot do.
func (c *Client) Missing() []string {
	var out []string
	for _, n := range []string{needScreencopy, needPointer, needKeyboard, wl.WlSeatInterface, wl.WlShmInterface} {
		if !c.Has(n) {
			out = append(out, n)
		}
	}
	return out
}

// Outputs lists the outputs, sorted left to right, then top to bottom.
func (c *Client) Outputs() []Output {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Output, 0, len(c.outputs))
	for _, o := range c.outputs {
		out = append(out, o.info)
	}
	slices.SortStableFunc(out, func(a, b Output) int {
		if a.Logical.Min.X != b.Logical.Min.X {
			return a.Logical.Min.X - b.Logical.Min.X
		}
		return a.Logical.Min.Y - b.Logical.Min.Y
	})
	return out
}

func (c *Client) outputNamed(name string) (*output, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range c.outputs {
		if o.info.Name == name {
			return o, nil
		}
	}
	return nil, fmt.Errorf("wayland: no output %q (it was unplugged?)", name)
}

// global binds the interfaces Client uses as the registry announces them.
// Runs on the reader goroutine.
func (c *Client) global(reg *wl.WlRegistry, name uint32, iface string, version uint32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.globals = append(c.globals, Global{Name: name, Interface: iface, Version: version})
	bind := func(o wl.Object, v uint32) { _ = reg.Bind(name, o, min(version, v)) }
	switch iface {
	case wl.WlShmInterface:
		c.shm = &wl.WlShm{OnFormat: func(f uint32) {
			c.mu.Lock()
			c.formats = append(c.formats, f)
			c.mu.Unlock()
		}}
		bind(c.shm, 1)
	case wl.WlSeatInterface:
		if c.seat != nil {
			return // the first seat is the one deskpilot drives
		}
		c.seat = &wl.WlSeat{OnCapabilities: c.seatCapabilities}
		bind(c.seat, 5)
	case wl.WlOutputInterface:
		c.addOutput(reg, name, version)
	case wl.ZxdgOutputManagerV1Interface:
		m := &wl.ZxdgOutputManagerV1{}
		bind(m, 3)
		c.xdgOutputs = m
		for _, o := range c.outputs {
			c.watchXdg(o)
		}
	case needScreencopy:
		c.copier = &wl.ZwlrScreencopyManagerV1{}
		bind(c.copier, 3)
	case needPointer:
		c.pointers = &wl.ZwlrVirtualPointerManagerV1{}
		c.ptrVer = min(version, 2)
		bind(c.pointers, 2)
	case needKeyboard:
		c.keyboard = &wl.ZwpVirtualKeyboardManagerV1{}
		bind(c.keyboard, 1)
	case wl.ZwlrForeignToplevelManagerV1Interface:
		c.tops = newToplevels()
		bind(c.tops.mgr, 3)
	case wl.OrgKdeKwinIdleInterface:
		c.idle = &idleWatch{mgr: &wl.OrgKdeKwinIdle{}}
		bind(c.idle.mgr, 1)
	}
}

func (c *Client) globalRemove(name uint32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.globals = slices.DeleteFunc(c.globals, func(g Global) bool { return g.Name == name })
	c.outputs = slices.DeleteFunc(c.outputs, func(o *output) bool { return o.global == name })
}

func (c *Client) seatCapabilities(caps uint32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seatCaps = caps
	if caps&wl.WlSeatCapabilityKeyboard != 0 {
		select {
		case <-c.capsSeen:
		default:
			close(c.capsSeen)
		}
	}
}

// addOutput binds a wl_output and keeps its info current. Called locked.
func (c *Client) addOutput(reg *wl.WlRegistry, name, version uint32) {
	o := &output{global: name}
	o.wl = &wl.WlOutput{
		OnGeometry: func(x, y, _, _ int32, _ int32, make_, model string, transform int32) {
			c.mu.Lock()
			o.info.Transform = transform
			if o.info.Description == "" {
				o.info.Description = make_ + " " + model
			}
			c.mu.Unlock()
		},
		OnMode: func(flags uint32, w, h, _ int32) {
			if flags&wl.WlOutputModeCurrent != 0 {
				c.mu.Lock()
				o.info.Pixels = image.Pt(int(w), int(h))
				c.mu.Unlock()
			}
		},
		OnScale:       func(s int32) { c.mu.Lock(); o.info.Scale = s; c.mu.Unlock() },
		OnName:        func(n string) { c.mu.Lock(); o.info.Name = n; c.mu.Unlock() },
		OnDescription: func(d string) { c.mu.Lock(); o.info.Description = d; c.mu.Unlock() },
	}
	o.info.Scale = 1
	_ = reg.Bind(name, o.wl, min(version, 4))
	c.outputs = append(c.outputs, o)
	if c.xdgOutputs != nil {
		c.watchXdg(o)
	}
}

// watchXdg asks for o's logical position and size. Called locked.
func (c *Client) watchXdg(o *output) {
	if o.xdg != nil {
		return
	}
	o.xdg = &wl.ZxdgOutputV1{
		OnLogicalPosition: func(x, y int32) {
			c.mu.Lock()
			o.info.Logical = image.Rectangle{Min: image.Pt(int(x), int(y)), Max: image.Pt(int(x), int(y)).Add(o.info.Logical.Size())}
			c.mu.Unlock()
		},
		OnLogicalSize: func(w, h int32) {
			c.mu.Lock()
			o.info.Logical.Max = o.info.Logical.Min.Add(image.Pt(int(w), int(h)))
			c.mu.Unlock()
		},
		OnName: func(n string) {
			c.mu.Lock()
			if o.info.Name == "" {
				o.info.Name = n
			}
			c.mu.Unlock()
		},
	}
	_ = c.xdgOutputs.GetXdgOutput(o.xdg, o.wl)
}

// errMissing says that the compositor lacks iface, and what that costs.
func errMissing(iface, what string) error {
	return fmt.Errorf("wayland: the compositor does not offer %s, so deskpilot cannot %s (sway, Hyprland, labwc and river do)", iface, what)
}

// ErrUnsupported is returned where the compositor cannot tell.
var ErrUnsupported = errors.ErrUnsupported

// now is the timestamp for input events: milliseconds on one clock.
func now() uint32 { return uint32(time.Now().UnixMilli()) }

// Sync waits until the compositor has handled every request sent so far.
func (c *Client) Sync(ctx context.Context) error { return c.conn.Sync(ctx) }
