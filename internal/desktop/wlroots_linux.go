package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"slices"
	"sync"
	"time"

	"deskpilot/internal/swayipc"
	"deskpilot/internal/wl"
	"deskpilot/internal/wlroots"
)

// openTimeout bounds connecting to a compositor and setting up its devices.
const openTimeout = 10 * time.Second

// wlrootsBackend drives a wlroots compositor with its own protocols
// (internal/wlroots). Its root coordinates are buffer pixels: each output
// sits at its logical position times its pixel scale, so on one output (or
// several of one scale) they are the pixels a capture returns. Window
// geometry and deskpilot's own windows come from sway's IPC when the
// compositor is sway; elsewhere own windows cannot be found (errors.ErrUnsupported).
// Sway's tree names each window's process, so the windows of the other
// deskpilot processes (Options.Peers: the app, when this is a run or an MCP
// session) count as own too, as on X11.
type wlrootsBackend struct {
	socket string
	c      *wlroots.Client
	outs   []wlroots.Output
	target wlroots.Output
	in     *vinput
	ptr    *wlroots.Pointer
	kb     *wlroots.Keyboard
	sway   *swayWatch // nil when the compositor is not sway
}

// waylandSocket is the compositor's socket for o: Options.Wayland, else
// $WAYLAND_DISPLAY.
func waylandSocket(o Options) (string, error) {
	name := o.Wayland
	if name == "" {
		name = os.Getenv("WAYLAND_DISPLAY")
	}
	if name == "" {
		return "", errors.New("no Wayland display: WAYLAND_DISPLAY is not set. Run deskpilot inside a Wayland session, or pick --backend x11")
	}
	return wl.SocketPath(name)
}

func openWlroots(o Options) (backend, error) {
	socket, err := waylandSocket(o)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	c, err := wlroots.Dial(ctx, socket)
	if err != nil {
		return nil, err
	}
	if m := c.Missing(); len(m) > 0 {
		c.Close()
		return nil, fmt.Errorf("wlroots backend: the compositor at %s does not offer %v; on GNOME use --backend gnome, on KDE --backend portal (deskpilot doctor lists what it offers)", socket, m)
	}
	b := &wlrootsBackend{socket: socket, c: c, outs: c.Outputs()}
	if len(b.outs) == 0 {
		c.Close()
		return nil, fmt.Errorf("wlroots backend: the compositor at %s has no output", socket)
	}
	if path, err := swayipc.Find(socket); err == nil {
		if b.sway, err = watchSway(path, os.Getpid(), o.HasWindow || o.Peers != nil, o.Peers); err != nil {
			b.sway = nil
		}
	}
	return b, nil
}

// bounds is where output o sits in root coordinates.
func outputBounds(o wlroots.Output) image.Rectangle {
	s := o.PixelScale()
	min := image.Pt(int(float64(o.Logical.Min.X)*s+0.5), int(float64(o.Logical.Min.Y)*s+0.5))
	return image.Rectangle{Min: min, Max: min.Add(o.Pixels)}
}

func (b *wlrootsBackend) displays() ([]Display, error) {
	out := make([]Display, len(b.outs))
	for i, o := range b.outs {
		out[i] = Display{Index: i, Name: o.Name, Bounds: outputBounds(o), Primary: i == 0}
	}
	return out, nil
}

// outputAt is the output whose bounds are r's (the target).
func (b *wlrootsBackend) outputFor(r image.Rectangle) (wlroots.Output, image.Rectangle, error) {
	for _, o := range b.outs {
		if ob := outputBounds(o); r.In(ob) {
			return o, ob, nil
		}
	}
	return wlroots.Output{}, image.Rectangle{}, fmt.Errorf("wlroots backend: %v is not inside one output", r)
}

func (b *wlrootsBackend) capture(ctx context.Context, r image.Rectangle, dst *image.RGBA) (*image.RGBA, error) {
	o, ob, err := b.outputFor(r)
	if err != nil {
		return nil, err
	}
	if r == ob {
		return b.c.Capture(ctx, o.Name, dst)
	}
	full, err := b.c.Capture(ctx, o.Name, nil)
	if err != nil {
		return nil, err
	}
	sub := full.SubImage(r.Sub(ob.Min)).(*image.RGBA)
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := range r.Dy() {
		copy(out.Pix[y*out.Stride:y*out.Stride+4*r.Dx()], sub.Pix[y*sub.Stride:])
	}
	return out, nil
}

func (b *wlrootsBackend) input(bounds image.Rectangle) (Input, error) {
	o, _, err := b.outputFor(bounds)
	if err != nil {
		return nil, err
	}
	b.target = o
	if b.ptr, err = b.c.NewPointer(o.Name); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	if b.kb, err = b.c.NewKeyboard(ctx); err != nil {
		return nil, err
	}
	b.in = newVInput("wlroots", wlrDevice{c: b.c, ptr: b.ptr, kb: b.kb}, bounds)
	return b.in, nil
}

func (b *wlrootsBackend) cursor() (image.Point, error) {
	if b.in == nil {
		return image.Point{}, errors.ErrUnsupported
	}
	return b.in.cursor()
}

func (b *wlrootsBackend) idle() (time.Duration, error) { return b.c.Idle() }

// ownWindows converts sway's logical window rectangles into root pixels:
// this process's windows and its peers'.
func (b *wlrootsBackend) ownWindows() ([]image.Rectangle, error) {
	if b.sway == nil {
		return nil, errors.ErrUnsupported
	}
	wins, err := b.sway.windows()
	if err != nil {
		return nil, err
	}
	st := make([]stacked, 0, len(wins))
	for _, w := range wins {
		st = append(st, stacked{rect: b.toRoot(w.Output, w.Frame), own: w.own})
	}
	return visibleParts(st), nil
}

// toRoot turns a logical rectangle on the named output into root pixels.
func (b *wlrootsBackend) toRoot(output string, r image.Rectangle) image.Rectangle {
	for _, o := range b.outs {
		if o.Name == output {
			return o.ToPixels(r).Add(outputBounds(o).Min)
		}
	}
	return r
}

func (b *wlrootsBackend) ownInput() time.Time {
	if b.sway == nil {
		return time.Time{}
	}
	return b.sway.ownFocus()
}

func (b *wlrootsBackend) displayEnv() []string {
	env := []string{"WAYLAND_DISPLAY=" + b.socket}
	if b.sway != nil {
		env = append(env, "SWAYSOCK="+b.sway.path)
	}
	return env
}

func (b *wlrootsBackend) close() error {
	var errs []error
	if b.in != nil {
		errs = append(errs, b.in.close())
	}
	if b.sway != nil {
		b.sway.close()
	}
	errs = append(errs, b.c.Close())
	return errors.Join(slices.DeleteFunc(errs, func(e error) bool { return errors.Is(e, errVInputClosed) })...)
}

// wlrDevice is the vdevice of the wlroots virtual pointer and keyboard.
type wlrDevice struct {
	c   *wlroots.Client
	ptr *wlroots.Pointer
	kb  *wlroots.Keyboard
}

func (d wlrDevice) move(p image.Point) error            { return d.ptr.MoveTo(p) }
func (d wlrDevice) button(code uint32, down bool) error { return d.ptr.Button(code, down) }
func (d wlrDevice) key(sym uint32, down bool) error     { return d.kb.Key(sym, down) }
func (d wlrDevice) prepare(syms []uint32) error         { return d.kb.Prepare(syms) }
func (d wlrDevice) flush(ctx context.Context) error     { return d.c.Sync(ctx) }
func (d wlrDevice) typeText(ctx context.Context, _ string, s []uint32) error {
	return d.kb.Type(ctx, s, 0)
}
func (d wlrDevice) scroll(vertical bool, n int) error {
	axis := uint32(wlroots.AxisVertical)
	if !vertical {
		axis = wlroots.AxisHorizontal
	}
	return d.ptr.Scroll(axis, n)
}

// swayWatch keeps sway's window list, refreshed after each window event,
// which of them are deskpilot's, and when one of this process's windows
// last took the focus.
type swayWatch struct {
	path   string
	conn   *swayipc.Conn
	pid    int
	peers  func() []int // Options.Peers; nil = none
	cancel context.CancelFunc
	mu     sync.Mutex
	dirty  bool
	wins   []swayWindow
	owners map[int64]bool // window id → deskpilot's, told once when first listed
	focus  time.Time
}

// swayWindow is a window of sway's tree and whether it is deskpilot's: this
// process's or a peer's.
type swayWindow struct {
	swayipc.Window
	own bool
}

func watchSway(path string, pid int, subscribe bool, peers func() []int) (*swayWatch, error) {
	conn, err := swayipc.Dial(path)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &swayWatch{path: path, conn: conn, pid: pid, peers: peers, cancel: cancel, dirty: true, owners: map[int64]bool{}}
	if subscribe {
		if err := swayipc.Subscribe(ctx, path, w.event); err != nil {
			cancel()
			conn.Close()
			return nil, err
		}
	}
	return w, nil
}

func (w *swayWatch) event(change string) {
	w.mu.Lock()
	w.dirty = true
	w.mu.Unlock()
	if change != "focus" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	wins, err := w.conn.Windows(ctx)
	if err != nil {
		return
	}
	for _, win := range wins {
		if win.Focused && win.PID == w.pid {
			w.mu.Lock()
			w.focus = time.Now()
			w.mu.Unlock()
		}
	}
}

// windows returns sway's windows, bottom first, reading the tree again only
// after a window event. A window listed for the first time is told to be
// deskpilot's by its process: this one, or one the peers list names then
// (asked once for all the new windows of a reading, so a still desktop
// costs no look at the control folder).
func (w *swayWatch) windows() ([]swayWindow, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.dirty {
		return w.wins, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	wins, err := w.conn.Windows(ctx)
	if err != nil {
		return nil, err
	}
	var peers []int
	asked := false
	owners := make(map[int64]bool, len(wins))
	out := make([]swayWindow, len(wins))
	for i, win := range wins {
		own, known := w.owners[win.ID]
		if !known {
			if !asked && w.peers != nil {
				peers, asked = w.peers(), true
			}
			own = win.PID == w.pid || slices.Contains(peers, win.PID)
		}
		owners[win.ID] = own
		out[i] = swayWindow{Window: win, own: own}
	}
	w.wins, w.owners, w.dirty = out, owners, false
	return out, nil
}

func (w *swayWatch) ownFocus() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.focus
}

func (w *swayWatch) close() {
	w.cancel()
	w.conn.Close()
}
