package wlroots

import (
	"fmt"
	"image"
	"sync"

	"deskpilot/internal/wl"
)

// Linux input button codes (linux/input-event-codes.h).
const (
	BtnLeft   = 0x110
	BtnRight  = 0x111
	BtnMiddle = 0x112
)

// Axes of Scroll.
const (
	AxisVertical   = 0
	AxisHorizontal = 1
)

// wheelStep is the axis value of one wheel notch, as libinput reports a
// physical mouse wheel (15 degrees).
const wheelStep = 15

// Pointer is a virtual pointer confined to one output. Safe for concurrent use.
type Pointer struct {
	c      *Client
	out    string
	p      *wl.ZwlrVirtualPointerV1
	mu     sync.Mutex
	at     image.Point // last position sent, output pixels
	moved  bool
	pixels image.Point
}

// NewPointer creates a virtual pointer on the output named out.
func (c *Client) NewPointer(out string) (*Pointer, error) {
	if c.pointers == nil || c.seat == nil {
		return nil, errMissing(needPointer, "move the pointer")
	}
	o, err := c.outputNamed(out)
	if err != nil {
		return nil, err
	}
	p := &Pointer{c: c, out: out, p: &wl.ZwlrVirtualPointerV1{}}
	c.mu.Lock()
	p.pixels = o.info.Pixels
	ver := c.ptrVer
	c.mu.Unlock()
	if ver >= 2 {
		err = c.pointers.CreateVirtualPointerWithOutput(c.seat, o.wl, p.p)
	} else {
		err = c.pointers.CreateVirtualPointer(c.seat, p.p)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// MoveTo puts the pointer on pixel pt of its output.
func (p *Pointer) MoveTo(pt image.Point) error {
	if !pt.In(image.Rectangle{Max: p.pixels}) {
		return fmt.Errorf("wayland pointer: %v is outside output %s (%v)", pt, p.out, p.pixels)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	// The extent is the output's size in pixels, so the compositor maps the
	// pixel's left edge; +0.5 of a pixel would need a doubled extent.
	if err := p.p.MotionAbsolute(now(), uint32(2*pt.X+1), uint32(2*pt.Y+1), uint32(2*p.pixels.X), uint32(2*p.pixels.Y)); err != nil {
		return err
	}
	if err := p.p.Frame(); err != nil {
		return err
	}
	p.at, p.moved = pt, true
	return nil
}

// At is where the pointer was last put, output pixels; false before the
// first move.
func (p *Pointer) At() (image.Point, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.at, p.moved
}

// Button presses (down) or releases a button (BtnLeft, ...).
func (p *Pointer) Button(button uint32, down bool) error {
	state := uint32(wl.WlPointerButtonStateReleased)
	if down {
		state = wl.WlPointerButtonStatePressed
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.p.Button(now(), button, state); err != nil {
		return err
	}
	return p.p.Frame()
}

// Scroll turns the wheel n notches on axis (positive: down or right).
func (p *Pointer) Scroll(axis uint32, n int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := now()
	if err := p.p.AxisSource(wl.WlPointerAxisSourceWheel); err != nil {
		return err
	}
	if err := p.p.AxisDiscrete(t, axis, wl.FixedFrom(float64(n*wheelStep)), int32(n)); err != nil {
		return err
	}
	if err := p.p.Frame(); err != nil {
		return err
	}
	if err := p.p.AxisStop(t, axis); err != nil {
		return err
	}
	return p.p.Frame()
}

// Close destroys the virtual pointer.
func (p *Pointer) Close() error { return p.p.Destroy() }
