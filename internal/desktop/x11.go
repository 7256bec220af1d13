//go:build linux

package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"time"

	"deskpilot/actions/robot"
	"deskpilot/vision/screen"
)

// x11 captures with MIT-SHM and sends input with XTest over deskpilot's own X
// connections (actions/robot's package doc says why not robotgo on X11).
type x11 struct {
	name string
	auth string // Options.XAuthority
	sc   *screen.Screen
	rb   *robot.Robot
	own  *windowTracker // nil unless Options.HasWindow
}

func openX11(o Options) (backend, error) {
	name := o.XDisplay
	if name == "" {
		name = os.Getenv("DISPLAY")
	}
	if name == "" {
		return nil, errors.New("no X display: DISPLAY is not set. Run deskpilot inside a desktop session, or point it at one with --x-display :N (for a private one: Xvfb :1 & deskpilot --x-display :1)")
	}
	sc, err := screen.OpenAuth(name, o.XAuthority)
	if err != nil {
		return nil, fmt.Errorf("open display %s: %w", name, err)
	}
	x := &x11{name: name, auth: o.XAuthority, sc: sc}
	if o.HasWindow || o.Peers != nil {
		if x.own, err = trackWindows(name, o.XAuthority, os.Getpid()); err != nil {
			sc.Close()
			return nil, err
		}
		x.own.peers = o.Peers
	}
	return x, nil
}

func (x *x11) displays() ([]Display, error) {
	ds, err := x.sc.Displays()
	if err != nil {
		return nil, err
	}
	out := make([]Display, len(ds))
	for i, d := range ds {
		out[i] = Display{Index: d.Index, Name: d.Name, Bounds: d.Bounds, Primary: d.Primary}
	}
	return out, nil
}

func (x *x11) capture(ctx context.Context, r image.Rectangle, dst *image.RGBA) (*image.RGBA, error) {
	return x.sc.CaptureInto(ctx, r, dst)
}

func (x *x11) input(bounds image.Rectangle) (Input, error) {
	rb, err := robot.NewAuth(x.name, x.auth, bounds)
	if err != nil {
		return nil, fmt.Errorf("input on %s: %w", x.name, err)
	}
	// A previous agent killed mid-hold left its keys and buttons down.
	if err := rb.ReleaseStuck(); err != nil {
		rb.Close()
		return nil, fmt.Errorf("input on %s: %w", x.name, err)
	}
	x.rb = rb
	return rb, nil
}

func (x *x11) cursor() (image.Point, error) { return x.sc.Cursor() }

func (x *x11) idle() (time.Duration, error) { return x.sc.IdleTime() }

// ownWindows answers from the window tracker; should tracking have stopped,
// it falls back to walking the window tree (every window counted whole).
func (x *x11) ownWindows() ([]image.Rectangle, error) {
	if x.own != nil {
		if rs, err := x.own.ownWindows(); err == nil {
			return rs, nil
		}
	}
	return x.sc.WindowsOfPID(os.Getpid())
}

// ownInput is when input last reached this process's windows (the tracker
// watches them); zero without a tracker.
func (x *x11) ownInput() time.Time {
	if x.own == nil {
		return time.Time{}
	}
	return x.own.lastOwnInput()
}

// foreignDisplay reports whether the display is not this session's
// ($DISPLAY): then $AT_SPI_BUS_ADDRESS names this session's accessibility
// bus, not the display's.
func (x *x11) foreignDisplay() bool { return x.name != os.Getenv("DISPLAY") }

func (x *x11) displayEnv() []string {
	if x.auth == "" {
		return []string{"DISPLAY=" + x.name}
	}
	return []string{"DISPLAY=" + x.name, "XAUTHORITY=" + x.auth}
}

func (x *x11) close() error {
	var errs []error
	if x.rb != nil {
		errs = append(errs, x.rb.Close())
	}
	if x.own != nil {
		x.own.close()
	}
	errs = append(errs, x.sc.Close())
	return errors.Join(errs...)
}
