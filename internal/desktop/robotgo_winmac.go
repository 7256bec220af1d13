//go:build cgo && (windows || darwin)

package desktop

import (
	"context"
	"errors"
	"image"
	"os"
	"time"
	"unicode/utf16"

	"github.com/go-vgo/robotgo"
)

// rgNative is the robotgo backend on Windows and macOS: robotgo input and
// kbinani/screenshot capture and monitors, over the desktop of the session
// deskpilot runs in. Idle time and own windows come from the system
// (robotgo_windows.go, robotgo_darwin.go).
type rgNative struct {
	in      *rgInput
	release func()
}

func openRobotgo(o Options) (backend, error) {
	if o.XDisplay != "" || o.XAuthority != "" {
		return nil, errors.New("backend robotgo: --x-display names an X11 display (and an X authority file goes with one); on this system robotgo drives the desktop of the session deskpilot runs in")
	}
	release, err := claimRobotgo()
	if err != nil {
		return nil, err
	}
	return &rgNative{release: release}, nil
}

func (b *rgNative) displays() ([]Display, error) { return kbinaniDisplays() }

func (b *rgNative) capture(ctx context.Context, r image.Rectangle) (*image.RGBA, error) {
	return kbinaniCapture(ctx, r)
}

func (b *rgNative) input(bounds image.Rectangle) (Input, error) {
	b.in = newRGInput(bounds, b)
	return b.in, nil
}

func (b *rgNative) cursor() (image.Point, error) {
	if b.in == nil {
		x, y := robotgo.Location()
		return image.Pt(x, y), nil
	}
	p, err := b.in.Cursor()
	return image.Pt(p.X, p.Y), err
}

func (b *rgNative) idle() (time.Duration, error) { return systemIdle() }

func (b *rgNative) ownWindows() ([]image.Rectangle, error) { return systemOwnWindows(os.Getpid()) }

func (b *rgNative) displayEnv() []string { return nil }

// ownInput is unknown here: no input to deskpilot's windows is told apart,
// so using them during a run counts as a takeover.
func (b *rgNative) ownInput() time.Time { return time.Time{} }

// checkKeys accepts every key: robotgo maps the key names itself here and
// reports the ones it lacks as errors.
func (b *rgNative) checkKeys([]string) error { return nil }

// typeText types each character as a Unicode key event (on Windows SendInput
// with KEYEVENTF_UNICODE), one UTF-16 unit at a time so characters beyond the
// Basic Multilingual Plane go as surrogate pairs (robotgo.Type would cut them
// to 16 bits); "\n" presses Enter and "\t" Tab. ctx is checked every 64
// characters.
func (b *rgNative) typeText(ctx context.Context, in *rgInput, text string) error {
	n := 0
	for _, r := range text {
		if n++; n%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		switch r {
		case '\n':
			if err := in.pressKeys([]string{"enter"}); err != nil {
				return err
			}
		case '\t':
			if err := in.pressKeys([]string{"tab"}); err != nil {
				return err
			}
		default:
			for _, u := range utf16.Encode([]rune{r}) {
				robotgo.UnicodeType(uint32(u))
			}
		}
	}
	return nil
}

func (b *rgNative) close() error {
	var err error
	if b.in != nil {
		err = b.in.close()
	}
	b.release()
	return err
}
