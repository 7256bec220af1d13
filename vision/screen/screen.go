// Package screen captures the X11 screen: whole root window or any rectangle of it,
// over one persistent jezek/xgb connection, using the MIT-SHM extension with one
// reused shared-memory segment when the server is local, and plain GetImage
// otherwise. It also lists the displays (RandR monitors) and reads the pointer.
//
// Everything is in root-window coordinates (pixels). Captured frames are *image.RGBA
// with bounds starting at (0,0) and opaque alpha.
package screen

import (
	"context"
	"deskpilot/internal/xconn"
	"errors"
	"fmt"
	"image"
	"os"
	"strings"
	"sync"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// Screen is a connection to one X screen. It is safe for concurrent use; captures are
// serialised because they share one shared-memory segment.
type Screen struct {
	conn   *xgb.Conn
	root   xproto.Window
	format pixelFormat

	mu     sync.Mutex // guards everything below
	size   image.Point
	seg    *segment // nil until first SHM capture
	useSHM bool     // false once SHM proved unusable
	closed bool

	atomsMu sync.Mutex
	atoms   map[string]xproto.Atom
	idle    idle
}

// ErrClosed is returned by methods called after Close.
var ErrClosed = errors.New("screen: closed")

// Open connects to the X display name ("" means $DISPLAY). SHM is used when the
// server is on this machine and supports it.
func Open(name string) (*Screen, error) { return OpenAuth(name, "") }

// OpenAuth is Open with the X authority file to authenticate with: the cookie
// xauthority holds for the display, whatever $XAUTHORITY says (a process
// watching several private displays, each with its own cookie). "" is Open.
func OpenAuth(name, xauthority string) (*Screen, error) {
	if name == "" {
		name = os.Getenv("DISPLAY")
	}
	conn, err := xconn.DialAuth(name, xauthority)
	if err != nil {
		return nil, fmt.Errorf("screen: open %q: %w", name, err)
	}
	setup := xproto.Setup(conn)
	sc := setup.DefaultScreen(conn)
	format, err := rootFormat(setup, sc)
	if err != nil {
		closeConn(conn)
		return nil, fmt.Errorf("screen: open %q: %w", name, err)
	}
	s := &Screen{
		conn:   conn,
		root:   sc.Root,
		format: format,
		size:   image.Pt(int(sc.WidthInPixels), int(sc.HeightInPixels)),
	}
	s.useSHM = isLocal(name) && shmAvailable(conn)
	return s, nil
}

// SHM reports whether captures currently go through MIT-SHM.
func (s *Screen) SHM() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.useSHM
}

// DisableSHM makes later captures use plain GetImage (for comparison and fallback
// tests) and releases the shared-memory segment.
func (s *Screen) DisableSHM() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.useSHM = false
	s.releaseSegment()
}

// Size returns the root window's current size in pixels.
func (s *Screen) Size() (image.Point, error) {
	geo, err := xproto.GetGeometry(s.conn, xproto.Drawable(s.root)).Reply()
	if err != nil {
		return image.Point{}, fmt.Errorf("screen: root geometry: %w", err)
	}
	return image.Pt(int(geo.Width), int(geo.Height)), nil
}

// Capture grabs rectangle r of the root window (root coordinates; the zero Rectangle
// means the whole root) and returns it as a new image with bounds (0,0)-r.Size().
// r must lie inside the root window. ctx is checked before the request; one X
// request, a few milliseconds, is not interruptible.
func (s *Screen) Capture(ctx context.Context, r image.Rectangle) (*image.RGBA, error) {
	return s.CaptureInto(ctx, r, nil)
}

// CaptureInto is Capture writing into dst when dst has r's size (its bounds
// then become (0,0)-r.Size()), and into a new image otherwise (dst nil, or
// another size). It returns the image written. A caller that captures over
// and over (a loop watching the screen settle) passes a frame it no longer
// needs, so no new 8 MB buffer is allocated, zeroed and faulted in for
// every 1920x1080 capture.
func (s *Screen) CaptureInto(ctx context.Context, r image.Rectangle, dst *image.RGBA) (*image.RGBA, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	r, err := s.clip(r)
	if err != nil {
		return nil, err
	}
	dst = reusable(dst, r.Size())
	var shmErr error
	if s.useSHM {
		if shmErr = s.captureSHM(r, dst); shmErr == nil {
			return dst, nil
		}
		// SHM refused (no permission, segment limits, remote server): fall back for
		// good; if the connection itself is broken GetImage fails too.
		s.useSHM = false
		s.releaseSegment()
	}
	if err := s.captureGetImage(r, dst); err != nil {
		return nil, fmt.Errorf("capture %v: %w", r, errors.Join(err, shmErr))
	}
	return dst, nil
}

// reusable returns dst as an image with bounds (0,0)-size when its pixels
// have exactly that size and layout, else a new image.
func reusable(dst *image.RGBA, size image.Point) *image.RGBA {
	if dst == nil || dst.Rect.Size() != size || dst.Stride != 4*size.X || len(dst.Pix) != 4*size.X*size.Y {
		return image.NewRGBA(image.Rectangle{Max: size})
	}
	dst.Rect = image.Rectangle{Max: size}
	return dst
}

// clip resolves the zero rectangle to the root and checks that r lies inside it,
// re-reading the root size once in case RandR resized the screen.
func (s *Screen) clip(r image.Rectangle) (image.Rectangle, error) {
	for refreshed := false; ; refreshed = true {
		root := image.Rectangle{Max: s.size}
		if r == (image.Rectangle{}) {
			return root, nil
		}
		if !r.Empty() && r.In(root) {
			return r, nil
		}
		if refreshed || r.Empty() {
			return r, fmt.Errorf("capture: rectangle %v is empty or outside the root window %v", r, root)
		}
		size, err := s.Size()
		if err != nil {
			return r, err
		}
		s.size = size
	}
}

// captureSHM reads r into the shared segment and converts it into dst.
func (s *Screen) captureSHM(r image.Rectangle, dst *image.RGBA) error {
	stride := s.format.stride(r.Dx())
	need := stride * r.Dy()
	if s.seg == nil || len(s.seg.data) < need {
		s.releaseSegment()
		seg, err := newSegment(s.conn, max(need, s.format.stride(s.size.X)*s.size.Y))
		if err != nil {
			return err
		}
		s.seg = seg
	}
	_, err := s.seg.getImage(s.conn, xproto.Drawable(s.root), r)
	if err != nil {
		return err
	}
	return s.format.convert(dst, s.seg.data[:need], stride)
}

// captureGetImage reads r with a plain GetImage request.
func (s *Screen) captureGetImage(r image.Rectangle, dst *image.RGBA) error {
	reply, err := xproto.GetImage(s.conn, xproto.ImageFormatZPixmap, xproto.Drawable(s.root),
		int16(r.Min.X), int16(r.Min.Y), uint16(r.Dx()), uint16(r.Dy()), ^uint32(0)).Reply()
	if err != nil {
		return fmt.Errorf("get image: %w", err)
	}
	stride := s.format.stride(r.Dx())
	if len(reply.Data) < stride*r.Dy() {
		return fmt.Errorf("get image: short reply: %d bytes for %v", len(reply.Data), r)
	}
	return s.format.convert(dst, reply.Data, stride)
}

func (s *Screen) releaseSegment() {
	if s.seg != nil {
		s.seg.release(s.conn)
		s.seg = nil
	}
}

// Cursor returns the pointer position in root coordinates.
func (s *Screen) Cursor() (image.Point, error) {
	r, err := xproto.QueryPointer(s.conn, s.root).Reply()
	if err != nil {
		return image.Point{}, fmt.Errorf("screen: query pointer: %w", err)
	}
	return image.Pt(int(r.RootX), int(r.RootY)), nil
}

// Region returns a Capturer of rectangle r (root coordinates; zero means the root).
func (s *Screen) Region(r image.Rectangle) *Region { return &Region{s: s, r: r} }

// Close releases the shared-memory segment and the X connection. Later captures
// return ErrClosed. Close is idempotent.
func (s *Screen) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.releaseSegment()
	closeConn(s.conn)
	return nil
}

// Region captures one fixed rectangle of a Screen; it satisfies vision.Capturer and
// is safe for concurrent use.
type Region struct {
	s *Screen
	r image.Rectangle
}

// Capture grabs the region; see Screen.Capture.
func (g *Region) Capture(ctx context.Context) (*image.RGBA, error) {
	return g.s.Capture(ctx, g.r)
}

// CaptureInto grabs the region into dst when it fits; see Screen.CaptureInto.
func (g *Region) CaptureInto(ctx context.Context, dst *image.RGBA) (*image.RGBA, error) {
	return g.s.CaptureInto(ctx, g.r, dst)
}

// Bounds returns the region in root coordinates (the zero Rectangle for "the root").
func (g *Region) Bounds() image.Rectangle { return g.r }

// isLocal reports whether display name refers to a server on this machine, where a
// SysV shared-memory id means the same segment to both sides.
func isLocal(name string) bool {
	host, _, ok := strings.Cut(name, ":")
	if !ok {
		return false
	}
	if i := strings.LastIndex(host, "/"); i >= 0 {
		host = host[i+1:] // "unix/:0", "/tmp/launch-x/:0"
		if strings.HasPrefix(name, "/") {
			return true
		}
	}
	return host == "" || host == "unix"
}

// closeConn closes c and waits until xgb's goroutines are done with the socket.
func closeConn(c *xgb.Conn) {
	c.Close()
	for {
		if ev, err := c.WaitForEvent(); ev == nil && err == nil {
			return
		}
	}
}
