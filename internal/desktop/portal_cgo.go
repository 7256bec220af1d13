//go:build linux && cgo

package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"

	"deskpilot/internal/mutter"
	"deskpilot/internal/pipewire"
	"deskpilot/internal/portal"
)

// consentTimeout is how long the portal backend waits for the person to
// answer the desktop's consent dialog.
const consentTimeout = 2 * time.Minute

// portalBackend drives the desktop through xdg-desktop-portal (KDE, and
// GNOME where Mutter's own API is not reachable). The person picks the
// monitor in the consent dialog; its stream is the only display. Where the
// RemoteDesktop portal can persist (version 2+) the restore token is kept
// (0600, PortalTokenPath) so the dialog shows once per install; where it
// cannot, deskpilot says so once. No portal tells of windows or idle time
// (on GNOME the idle time comes from Mutter when it is on the bus);
// deskpilot's own and its peers' windows are X11 clients of the compositor's
// Xwayland, found there (xwaylandWindows).
type portalBackend struct {
	conn   *dbus.Conn
	opts   Options
	sess   *portal.Session
	st     *pipewire.Stream
	stream portal.Stream
	bounds image.Rectangle
	in     *vinput
	xw     *xwaylandWindows // nil unless Options.HasWindow or Peers
}

func openPortal(o Options) (backend, error) {
	conn, err := mutter.Connect(o.SessionBus)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), consentTimeout)
	defer cancel()
	rd, _, err := portal.Versions(ctx, conn)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("portal backend: %w (deskpilot doctor shows which portal implementation answers)", err)
	}
	tokenPath := PortalTokenPath()
	var restore string
	if rd >= 2 {
		if b, err := os.ReadFile(tokenPath); err == nil {
			restore = strings.TrimSpace(string(b))
		}
	} else {
		sayOnce(tokenPath+".no-persist-said", NoPersistNote(rd))
	}
	sess, err := portal.Start(ctx, conn, rd, portal.Options{RestoreToken: restore, Persist: true})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("portal backend: %w", err)
	}
	if sess.RestoreToken != "" {
		if err := writePrivate(tokenPath, sess.RestoreToken); err != nil {
			sess.Close()
			conn.Close()
			return nil, fmt.Errorf("portal backend: keep the restore token: %w", err)
		}
	}
	b := &portalBackend{conn: conn, opts: o, sess: sess, stream: sess.Streams[0]}
	fd, err := sess.OpenPipeWireRemote(ctx)
	if err == nil {
		b.st, err = pipewire.Open(fd, b.stream.Node)
	}
	if err == nil {
		err = b.st.WaitFrame(ctx)
	}
	if err != nil {
		b.close()
		return nil, fmt.Errorf("portal backend: %w", err)
	}
	size, _ := b.st.Size()
	min := image.Pt(int(b.stream.Position[0]), int(b.stream.Position[1]))
	b.bounds = image.Rectangle{Min: min, Max: min.Add(size)}
	if o.HasWindow || o.Peers != nil {
		b.xw = newXwaylandWindows(func() (xDisplay, bool) {
			return findXwayland(o.XDisplay, o.XAuthority, func() (int, bool) { return compositorPID(conn, o) })
		}, o.Peers, b.xToRoot)
	}
	return b, nil
}

// xToRoot maps a rectangle of Xwayland's root (the compositor's layout) into
// root pixels: the stream sits at its logical position, its pixels over its
// logical size (when the portal tells it; else scale 1).
func (b *portalBackend) xToRoot(r image.Rectangle) image.Rectangle {
	s := 1.0
	if w := b.stream.Size[0]; w > 0 {
		s = float64(b.bounds.Dx()) / float64(w)
	}
	return logicalToPixels(r, b.bounds.Min, b.bounds.Min, s)
}

// writePrivate writes s to path, readable by its owner only.
func writePrivate(path, s string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(s+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// sayOnce prints note on stderr unless marker exists, then makes marker.
func sayOnce(marker, note string) {
	if _, err := os.Stat(marker); err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, note)
	_ = writePrivate(marker, note)
}

func (b *portalBackend) displays() ([]Display, error) {
	return []Display{{Index: 0, Name: fmt.Sprintf("portal stream %d", b.stream.Node), Bounds: b.bounds, Primary: true}}, nil
}

func (b *portalBackend) input(bounds image.Rectangle) (Input, error) {
	dev := portalDevice{s: b.sess, node: b.stream.Node}
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	if err := dev.move(bounds.Size().Div(2)); err != nil {
		return nil, err
	}
	if err := settleFirstKey(ctx, dev); err != nil {
		return nil, err
	}
	b.in = newVInput("portal", dev, bounds)
	return b.in, nil
}

func (b *portalBackend) capture(_ context.Context, r image.Rectangle, dst *image.RGBA) (*image.RGBA, error) {
	select {
	case <-b.sess.Done():
		return nil, errors.New("portal backend: the session ended (revoked, or the portal quit)")
	default:
	}
	f, err := streamCapture(b.st, b.bounds, r, dst)
	if err != nil {
		return nil, fmt.Errorf("portal backend: capture: %w", err)
	}
	return f, nil
}

func (b *portalBackend) cursor() (image.Point, error) {
	if p, ok := b.st.Cursor(); ok {
		return p.Add(b.bounds.Min), nil
	}
	if b.in == nil {
		return image.Point{}, errors.ErrUnsupported
	}
	return b.in.cursor()
}

func (b *portalBackend) idle() (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if d, err := mutter.Idle(ctx, b.conn); err == nil {
		return d, nil
	}
	return 0, errors.ErrUnsupported
}

func (b *portalBackend) ownWindows() ([]image.Rectangle, error) {
	if b.xw == nil {
		return nil, errors.ErrUnsupported
	}
	return b.xw.ownWindows()
}

func (b *portalBackend) ownInput() time.Time {
	if b.xw == nil {
		return time.Time{}
	}
	return b.xw.ownInput()
}

func (b *portalBackend) displayEnv() []string {
	var env []string
	if b.opts.SessionBus != "" {
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+b.opts.SessionBus)
	}
	if b.opts.Wayland != "" {
		env = append(env, "WAYLAND_DISPLAY="+b.opts.Wayland)
	}
	return env
}

func (b *portalBackend) close() error {
	var errs []error
	if b.in != nil {
		if err := b.in.close(); !errors.Is(err, errVInputClosed) {
			errs = append(errs, err)
		}
	}
	if b.st != nil {
		errs = append(errs, b.st.Close())
	}
	_ = b.sess.Close()
	if b.xw != nil {
		b.xw.close()
	}
	errs = append(errs, b.conn.Close())
	return errors.Join(errs...)
}

// portalDevice is the vdevice of a portal RemoteDesktop session.
type portalDevice struct {
	s    *portal.Session
	node uint32
}

func (d portalDevice) move(p image.Point) error {
	return d.s.MoveTo(d.node, float64(p.X)+0.5, float64(p.Y)+0.5)
}
func (d portalDevice) button(code uint32, down bool) error { return d.s.Button(code, down) }
func (d portalDevice) key(sym uint32, down bool) error     { return d.s.Key(sym, down) }
func (d portalDevice) prepare([]uint32) error              { return nil }
func (d portalDevice) flush(ctx context.Context) error     { return d.s.Sync(ctx) }
func (d portalDevice) scroll(vertical bool, n int) error {
	axis := uint32(0)
	if !vertical {
		axis = 1
	}
	return d.s.Scroll(axis, n)
}

// typeText types keyboard text as keysyms. The portal has no clipboard here
// (xdg-desktop-portal 1.16), and GNOME drops a keysym its layout lacks, so
// other text is refused before anything is typed rather than typed in part.
func (d portalDevice) typeText(ctx context.Context, text string, syms []uint32) error {
	if !keyboardSyms(syms) {
		for _, r := range text {
			if (r < ' ' || r > '~') && r != '\n' && r != '\t' && r != '\r' {
				return fmt.Errorf("the portal backend types only keyboard characters (printable ASCII, newline, tab), not %q; on GNOME use --backend gnome, which pastes other text", r)
			}
		}
	}
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
