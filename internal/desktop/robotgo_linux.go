//go:build cgo && linux

package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"strings"
	"time"

	"deskpilot/actions/robot"
	"deskpilot/vision/screen"
)

// rgLinux is the robotgo backend on X11: input through robotgo; capture,
// monitors, idle time and own windows through the x11 code, which reads the
// same display. Capture does not go through kbinani/screenshot here: on X11
// it opens a connection per capture and calls xgb's shm.Init each time, which
// writes xgb's process-wide event and error tables while the readers of
// deskpilot's other X connections read them, a "concurrent map read and map
// write" crash waiting to happen. Windows and macOS capture with kbinani.
type rgLinux struct {
	name    string
	sc      *screen.Screen
	keys    *robot.Robot // reads the keymap only; never sends input
	own     *windowTracker
	in      *rgInput
	clip    *selectionOwner // created by the first paste
	release func()
}

// openRobotgo opens the robotgo backend on $DISPLAY. It refuses any other
// display: robotgo opens its one X connection from $DISPLAY (XOpenDisplay)
// and, when that fails, silently falls back to ":0.0", so asked for another
// display it would drive the wrong desktop. It also checks that $DISPLAY
// answers before robotgo ever touches it.
func openRobotgo(o Options) (backend, error) {
	name := os.Getenv("DISPLAY")
	switch {
	case name == "":
		return nil, errors.New("backend robotgo drives the display in $DISPLAY, and DISPLAY is not set: run deskpilot inside the desktop session, or use --backend x11 with --x-display :N")
	case o.XDisplay != "" && o.XDisplay != name:
		return nil, fmt.Errorf("backend robotgo can only drive $DISPLAY (%s), not %s: robotgo opens one X connection per process from $DISPLAY and silently falls back to :0 when that fails. Set DISPLAY=%s, or use --backend x11, which drives any display", name, o.XDisplay, o.XDisplay)
	case o.XAuthority != "" && o.XAuthority != os.Getenv("XAUTHORITY"):
		return nil, fmt.Errorf("backend robotgo connects with $XAUTHORITY's cookie only, not %s's: use --backend x11, which takes any authority file", o.XAuthority)
	}
	release, err := claimRobotgo()
	if err != nil {
		return nil, err
	}
	b := &rgLinux{name: name, release: release}
	if err := b.open(o); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *rgLinux) open(o Options) error {
	var err error
	if b.sc, err = screen.Open(b.name); err != nil {
		return fmt.Errorf("backend robotgo: display %s does not answer, so robotgo would fall back to another: %w", b.name, err)
	}
	if b.keys, err = robot.New(b.name, image.Rectangle{}); err != nil {
		return fmt.Errorf("backend robotgo: %w", err)
	}
	if o.HasWindow || o.Peers != nil {
		if b.own, err = trackWindows(b.name, "", os.Getpid()); err != nil {
			return err
		}
		b.own.peers = o.Peers
	}
	return nil
}

func (b *rgLinux) displays() ([]Display, error) {
	ds, err := b.sc.Displays()
	if err != nil {
		return nil, err
	}
	out := make([]Display, len(ds))
	for i, d := range ds {
		out[i] = Display{Index: d.Index, Name: d.Name, Bounds: d.Bounds, Primary: d.Primary}
	}
	return out, nil
}

func (b *rgLinux) capture(ctx context.Context, r image.Rectangle, dst *image.RGBA) (*image.RGBA, error) {
	return b.sc.CaptureInto(ctx, r, dst)
}

func (b *rgLinux) input(bounds image.Rectangle) (Input, error) {
	b.in = newRGInput(bounds, b)
	return b.in, nil
}

// cursor reads the pointer through robotgo, under the input's lock.
func (b *rgLinux) cursor() (image.Point, error) {
	if b.in == nil {
		return b.sc.Cursor()
	}
	p, err := b.in.Cursor()
	return image.Pt(p.X, p.Y), err
}

func (b *rgLinux) idle() (time.Duration, error) { return b.sc.IdleTime() }

func (b *rgLinux) ownWindows() ([]image.Rectangle, error) {
	if b.own != nil {
		if rs, err := b.own.ownWindows(); err == nil {
			return rs, nil
		}
	}
	return b.sc.WindowsOfPID(os.Getpid())
}

func (b *rgLinux) displayEnv() []string { return nil }

// ownInput is when input last reached this process's windows (the x11 tracker).
func (b *rgLinux) ownInput() time.Time {
	if b.own == nil {
		return time.Time{}
	}
	return b.own.lastOwnInput()
}

// checkKeys refuses keys whose keysym the keymap lacks: robotgo would send
// keycode 0, and the BadValue error would end the process in Xlib.
func (b *rgLinux) checkKeys(keys []string) error {
	return b.checkNames(expandShifted(keys))
}

// checkNames refuses canonical key names whose own keysym the keymap lacks.
func (b *rgLinux) checkNames(keys []string) error {
	var syms []uint32
	var names []string
	for _, k := range keys {
		s, ok := robot.KeySym(k)
		if !ok {
			return fmt.Errorf("no keysym for key %q", k)
		}
		syms, names = append(syms, s), append(names, k)
	}
	missing, err := b.keys.Unmapped(syms)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		var what []string
		for _, m := range missing {
			for i, s := range syms {
				if s == m {
					what = append(what, names[i])
					break
				}
			}
		}
		return fmt.Errorf("key %s is not on this keyboard layout; the robotgo backend cannot map missing keys (the x11 backend can)", strings.Join(what, ", "))
	}
	return nil
}

func (b *rgLinux) close() error {
	var errs []error
	if b.in != nil {
		errs = append(errs, b.in.close())
		// robotgo keeps its Display* open and closes it at exit; a display
		// gone by then is a fatal Xlib I/O error that ends the process with
		// status 1 (seen when a test's Xvfb stopped before the test binary).
		closeRobotgoDisplay()
	}
	if b.clip != nil {
		b.clip.close()
	}
	if b.own != nil {
		b.own.close()
	}
	if b.keys != nil {
		errs = append(errs, b.keys.Close())
	}
	if b.sc != nil {
		errs = append(errs, b.sc.Close())
	}
	if b.release != nil {
		b.release()
	}
	return errors.Join(errs...)
}
