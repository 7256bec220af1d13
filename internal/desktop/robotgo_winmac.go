//go:build cgo && (windows || darwin)

package desktop

import (
	"context"
	"errors"
	"image"
	"os"
	"sync"
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
	own     *ownPointer // nil unless Options.HasWindow
}

// ownPointerEvery is how often ownPointer looks where the pointer is.
const ownPointerEvery = 50 * time.Millisecond

// ownPointer keeps when the pointer was last over one of deskpilot's
// windows. These systems report no input events to watch (the X11 tracker
// does), so the pointer's place stands for the person's use of the strip, a
// question or an approval, and for its way there and back.
type ownPointer struct {
	mu   sync.Mutex
	last time.Time
	stop chan struct{}
	done chan struct{}
}

func startOwnPointer() *ownPointer {
	p := &ownPointer{stop: make(chan struct{}), done: make(chan struct{})}
	go p.watch()
	return p
}

func (p *ownPointer) watch() {
	defer close(p.done)
	t := time.NewTicker(ownPointerEvery)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		rects, err := systemOwnWindows(os.Getpid())
		if errors.Is(err, errors.ErrUnsupported) {
			return
		}
		x, y := robotgo.Location()
		for _, r := range rects {
			if image.Pt(x, y).In(r) {
				p.mu.Lock()
				p.last = time.Now()
				p.mu.Unlock()
				break
			}
		}
	}
}

func (p *ownPointer) when() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

func (p *ownPointer) halt() {
	close(p.stop)
	<-p.done
}

func openRobotgo(o Options) (backend, error) {
	if o.XDisplay != "" || o.XAuthority != "" {
		return nil, errors.New("backend robotgo: --x-display names an X11 display (and an X authority file goes with one); on this system robotgo drives the desktop of the session deskpilot runs in")
	}
	release, err := claimRobotgo()
	if err != nil {
		return nil, err
	}
	b := &rgNative{release: release}
	if o.HasWindow {
		b.own = startOwnPointer()
	}
	return b, nil
}

func (b *rgNative) displays() ([]Display, error) { return kbinaniDisplays() }

func (b *rgNative) capture(ctx context.Context, r image.Rectangle, _ *image.RGBA) (*image.RGBA, error) {
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

// ownInput is when the pointer was last seen over deskpilot's windows (on
// Windows; macOS lists no own windows, so there using them counts as a
// takeover).
func (b *rgNative) ownInput() time.Time {
	if b.own == nil {
		return time.Time{}
	}
	return b.own.when()
}

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
	if b.own != nil {
		b.own.halt()
		b.own = nil
	}
	var err error
	if b.in != nil {
		err = b.in.close()
	}
	b.release()
	return err
}
