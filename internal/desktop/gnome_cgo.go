//go:build linux && cgo

package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"time"

	"github.com/godbus/dbus/v5"

	"deskpilot/actions/keysym"
	"deskpilot/internal/mutter"
	"deskpilot/internal/pipewire"
)

// waylandOpeners are the Wayland backends whose frames come from PipeWire
// (cgo): gnome and portal.
func waylandOpeners() map[string]opener {
	return map[string]opener{"gnome": openGnome, "portal": openPortal}
}

// firstKeySettle is how long the gnome and portal backends wait after
// tapping Shift at the start of a session: Mutter drops the first key event
// of a new remote-desktop session (a fresh one sometimes its whole first
// burst), however long one waits before it; a Shift tap, which types
// nothing, takes the loss, and 100 ms after it every key arrived.
const firstKeySettle = 100 * time.Millisecond

// gnomeBackend drives GNOME through Mutter's RemoteDesktop and ScreenCast
// (internal/mutter), with frames from the ScreenCast's PipeWire stream
// (internal/pipewire). Root coordinates are the monitors' pixels (logical
// position times scale). GNOME tells a client nothing of other windows;
// deskpilot's own and its peers' are X11 clients of Mutter's Xwayland, found
// there (xwaylandWindows): masked and refused as on X11. The person's pointer
// is the stream's cursor metadata.
type gnomeBackend struct {
	conn   *dbus.Conn
	opts   Options
	mons   []mutter.Monitor
	sess   *mutter.Session
	st     *pipewire.Stream
	in     *vinput
	target image.Rectangle
	xw     *xwaylandWindows // nil unless Options.HasWindow or Peers
}

func openGnome(o Options) (backend, error) {
	conn, err := mutter.Connect(o.SessionBus)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	if err := mutter.Available(ctx, conn); err != nil {
		conn.Close()
		return nil, fmt.Errorf("gnome backend: %w; outside GNOME pick --backend wlroots or portal", err)
	}
	mons, err := mutter.Monitors(ctx, conn)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if len(mons) == 0 {
		conn.Close()
		return nil, errors.New("gnome backend: GNOME reports no monitor")
	}
	b := &gnomeBackend{conn: conn, opts: o, mons: mons}
	if o.HasWindow || o.Peers != nil {
		b.xw = newXwaylandWindows(func() (xDisplay, bool) {
			return findXwayland(o.XDisplay, o.XAuthority, func() (int, bool) { return mutterPID(conn, o) })
		}, o.Peers, b.xToRoot)
	}
	return b, nil
}

// xToRoot maps a rectangle of Xwayland's root, which is Mutter's layout
// (logical coordinates), into root pixels: by the scale of the monitor it is
// on. At scale 1 on monitors laid out from the origin the two are the same.
func (b *gnomeBackend) xToRoot(r image.Rectangle) image.Rectangle {
	mid := r.Min.Add(r.Size().Div(2))
	for _, m := range b.mons {
		if mid.In(m.Bounds) {
			return logicalToPixels(r, m.Bounds.Min, monitorPixels(m).Min, m.Scale)
		}
	}
	return r
}

// logicalToPixels maps r from logical coordinates, where a monitor's origin
// is at logical, into pixels, where it is at pixels, at scale s.
func logicalToPixels(r image.Rectangle, logical, pixels image.Point, s float64) image.Rectangle {
	if s <= 0 {
		s = 1
	}
	f := func(v, o, p int) int { return p + int(float64(v-o)*s+0.5) }
	return image.Rect(f(r.Min.X, logical.X, pixels.X), f(r.Min.Y, logical.Y, pixels.Y),
		f(r.Max.X, logical.X, pixels.X), f(r.Max.Y, logical.Y, pixels.Y))
}

func monitorPixels(m mutter.Monitor) image.Rectangle {
	s := m.Scale
	if s <= 0 {
		s = 1
	}
	f := func(v int) int { return int(float64(v)*s + 0.5) }
	return image.Rect(f(m.Bounds.Min.X), f(m.Bounds.Min.Y), f(m.Bounds.Max.X), f(m.Bounds.Max.Y))
}

func (b *gnomeBackend) displays() ([]Display, error) {
	out := make([]Display, len(b.mons))
	for i, m := range b.mons {
		out[i] = Display{Index: i, Name: m.Connector, Bounds: monitorPixels(m), Primary: m.Primary}
	}
	return out, nil
}

// input starts the session on the monitor at bounds: its stream gives the
// frames, its devices the input.
func (b *gnomeBackend) input(bounds image.Rectangle) (Input, error) {
	var connector string
	for _, m := range b.mons {
		if monitorPixels(m) == bounds {
			connector = m.Connector
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	sess, err := mutter.Start(ctx, b.conn, connector)
	if err != nil {
		return nil, err
	}
	b.sess, b.target = sess, bounds
	path := b.opts.PipeWire
	if path == "" {
		path = pipewire.SocketPath()
	}
	fd, err := pipewire.Dial(path)
	if err != nil {
		return nil, err
	}
	if b.st, err = pipewire.Open(fd, sess.Node()); err != nil {
		return nil, err
	}
	if err := b.st.WaitFrame(ctx); err != nil {
		return nil, fmt.Errorf("gnome backend: %w", err)
	}
	dev := gnomeDevice{s: sess}
	// Put the pointer where it is (or in the middle), so the session's first
	// motion is not the one a click depends on.
	at := bounds.Size().Div(2)
	if p, ok := b.st.Cursor(); ok && p.In(image.Rectangle{Max: bounds.Size()}) {
		at = p
	}
	if err := dev.move(at); err != nil {
		return nil, err
	}
	if err := settleFirstKey(ctx, dev); err != nil {
		return nil, err
	}
	b.in = newVInput("gnome", dev, bounds)
	return b.in, nil
}

// settleFirstKey taps Shift so that the session's lost first key is that
// one, and waits firstKeySettle.
func settleFirstKey(ctx context.Context, d vdevice) error {
	if err := d.key(keysym.ShiftL, true); err != nil {
		return err
	}
	if err := d.key(keysym.ShiftL, false); err != nil {
		return err
	}
	if err := d.flush(ctx); err != nil {
		return err
	}
	return sleepCtx(ctx, firstKeySettle)
}

// streamCapture copies the stream's newest frame (the target's) into dst, or
// the part r of it.
func streamCapture(st *pipewire.Stream, target, r image.Rectangle, dst *image.RGBA) (*image.RGBA, error) {
	if st == nil {
		return nil, errors.New("no screencast stream")
	}
	if r == target {
		f, _, err := st.Frame(dst)
		return f, err
	}
	full, _, err := st.Frame(nil)
	if err != nil {
		return nil, err
	}
	return crop(full, r.Sub(target.Min)), nil
}

// crop copies r of img into a new image at the origin.
func crop(img *image.RGBA, r image.Rectangle) *image.RGBA {
	r = r.Intersect(img.Rect)
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := range r.Dy() {
		o := img.PixOffset(r.Min.X, r.Min.Y+y)
		copy(out.Pix[y*out.Stride:y*out.Stride+4*r.Dx()], img.Pix[o:])
	}
	return out
}

func (b *gnomeBackend) capture(_ context.Context, r image.Rectangle, dst *image.RGBA) (*image.RGBA, error) {
	select {
	case <-b.sess.Done():
		return nil, errors.New("gnome backend: the screencast ended (GNOME closed the session or quit)")
	default:
	}
	f, err := streamCapture(b.st, b.target, r, dst)
	if err != nil {
		return nil, fmt.Errorf("gnome backend: capture: %w", err)
	}
	return f, nil
}

func (b *gnomeBackend) cursor() (image.Point, error) {
	if b.st != nil {
		if p, ok := b.st.Cursor(); ok {
			return p.Add(b.target.Min), nil
		}
	}
	if b.in == nil {
		return image.Point{}, errors.ErrUnsupported
	}
	return b.in.cursor()
}

func (b *gnomeBackend) idle() (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return mutter.Idle(ctx, b.conn)
}

func (b *gnomeBackend) ownWindows() ([]image.Rectangle, error) {
	if b.xw == nil {
		return nil, errors.ErrUnsupported
	}
	return b.xw.ownWindows()
}

func (b *gnomeBackend) ownInput() time.Time {
	if b.xw == nil {
		return time.Time{}
	}
	return b.xw.ownInput()
}

func (b *gnomeBackend) displayEnv() []string {
	var env []string
	if b.opts.SessionBus != "" {
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+b.opts.SessionBus)
	}
	if b.opts.Wayland != "" {
		env = append(env, "WAYLAND_DISPLAY="+b.opts.Wayland)
	}
	return env
}

func (b *gnomeBackend) close() error {
	var errs []error
	if b.in != nil {
		if err := b.in.close(); !errors.Is(err, errVInputClosed) {
			errs = append(errs, err)
		}
	}
	if b.st != nil {
		errs = append(errs, b.st.Close())
	}
	if b.sess != nil {
		_ = b.sess.Close() // fails when GNOME already ended it
	}
	if b.xw != nil {
		b.xw.close()
	}
	errs = append(errs, b.conn.Close())
	return errors.Join(errs...)
}

// gnomeDevice is the vdevice of a Mutter RemoteDesktop session.
type gnomeDevice struct{ s *mutter.Session }

func (d gnomeDevice) move(p image.Point) error            { return d.s.MoveTo(p) }
func (d gnomeDevice) button(code uint32, down bool) error { return d.s.Button(code, down) }
func (d gnomeDevice) key(sym uint32, down bool) error     { return d.s.Key(sym, down) }
func (d gnomeDevice) prepare([]uint32) error              { return nil }
func (d gnomeDevice) flush(ctx context.Context) error     { return d.s.Sync(ctx) }
func (d gnomeDevice) scroll(vertical bool, n int) error {
	axis := uint32(0)
	if !vertical {
		axis = 1
	}
	return d.s.Scroll(axis, n)
}

// typeText types keyboard text (printable ASCII, Return, Tab) as keysyms;
// Mutter finds those on any Latin layout. Any other text is pasted: Mutter
// 43 drops a keysym its keymap lacks, so the session offers the text as the
// clipboard and presses Shift+Insert, which pastes it in GTK, Qt and most
// terminals (foot pastes its primary selection there instead).
func (d gnomeDevice) typeText(ctx context.Context, text string, syms []uint32) error {
	if keyboardSyms(syms) {
		for _, s := range syms {
			if err := d.key(s, true); err != nil {
				return err
			}
			if err := d.key(s, false); err != nil {
				return err
			}
		}
		return d.flush(ctx)
	}
	if err := d.s.SetClipboard(ctx, text); err != nil {
		return err
	}
	for _, k := range []struct {
		sym  uint32
		down bool
	}{{keysym.ShiftL, true}, {0xff63, true}, {0xff63, false}, {keysym.ShiftL, false}} {
		if err := d.key(k.sym, k.down); err != nil {
			return err
		}
	}
	return d.flush(ctx)
}

// keyboardSyms reports whether every keysym is printable ASCII, Return or Tab.
func keyboardSyms(syms []uint32) bool {
	for _, s := range syms {
		if (s < ' ' || s > '~') && s != keysym.Return && s != keysym.Tab {
			return false
		}
	}
	return true
}
