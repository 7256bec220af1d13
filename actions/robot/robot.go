package robot

import (
	"context"
	"errors"
	"fmt"
	"image"
	"maps"
	"slices"
	"sync"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"deskpilot/actions"
	"deskpilot/internal/xconn"
)

// X event types for XTest FakeInput.
const (
	keyPress      = xproto.KeyPress
	keyRelease    = xproto.KeyRelease
	buttonPress   = xproto.ButtonPress
	buttonRelease = xproto.ButtonRelease
	motionNotify  = xproto.MotionNotify
)

// ErrClosed is returned by every method called after Close.
var ErrClosed = errors.New("robot: closed")

// Robot sends mouse and keyboard input to one X display through XTest. Create
// it with New; it is safe for concurrent use (see the package doc).
type Robot struct {
	mu      sync.Mutex
	conn    *xgb.Conn
	root    xproto.Window
	bounds  image.Rectangle
	closed  bool
	keys    map[xproto.Keycode]bool // keys this Robot holds down
	buttons map[byte]bool           // buttons this Robot holds down
	spares  map[xproto.Keycode]*spare
}

// New connects to the X display named display ("" means $DISPLAY) and returns
// a Robot whose primitives accept only points inside bounds, the target
// monitor in root coordinates. An empty bounds means the whole root window;
// otherwise bounds must lie within it. New fails when the display does not
// answer or lacks the XTEST extension; it never falls back to another display.
func New(display string, bounds image.Rectangle) (*Robot, error) {
	return NewAuth(display, "", bounds)
}

// NewAuth is New with the X authority file to authenticate with: the cookie
// xauthority holds for the display, whatever $XAUTHORITY says (a process
// driving several private displays, each with its own cookie). "" is New.
func NewAuth(display, xauthority string, bounds image.Rectangle) (*Robot, error) {
	conn, err := xconn.DialAuth(display, xauthority)
	if err != nil {
		return nil, fmt.Errorf("robot: connect to display %q: %w", display, err)
	}
	r, err := newRobot(conn, bounds)
	if err != nil {
		xconn.Close(conn)
		return nil, fmt.Errorf("robot: display %q: %w", display, err)
	}
	return r, nil
}

func newRobot(conn *xgb.Conn, bounds image.Rectangle) (*Robot, error) {
	if err := xconn.Enable(conn, xconn.XTest); err != nil {
		return nil, fmt.Errorf("init XTEST: %w", err)
	}
	v, err := xtest.GetVersion(conn, 2, 2).Reply()
	if err != nil {
		return nil, fmt.Errorf("XTEST version: %w", err)
	}
	if v.MajorVersion < 2 {
		return nil, fmt.Errorf("XTEST %d.%d is too old, need 2.x", v.MajorVersion, v.MinorVersion)
	}
	screen := xproto.Setup(conn).DefaultScreen(conn)
	rootRect := image.Rect(0, 0, int(screen.WidthInPixels), int(screen.HeightInPixels))
	switch {
	case bounds.Empty():
		bounds = rootRect
	case !bounds.In(rootRect):
		return nil, fmt.Errorf("target bounds %v are not within the screen %v", bounds, rootRect)
	}
	return &Robot{
		conn:    conn,
		root:    screen.Root,
		bounds:  bounds,
		keys:    map[xproto.Keycode]bool{},
		buttons: map[byte]bool{},
		spares:  map[xproto.Keycode]*spare{},
	}, nil
}

// Bounds returns the target monitor in root coordinates.
func (r *Robot) Bounds() image.Rectangle { return r.bounds }

// Cursor returns the pointer position in root coordinates (it may lie outside
// the target bounds).
func (r *Robot) Cursor() (actions.Point, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return actions.Point{}, ErrClosed
	}
	q, err := xproto.QueryPointer(r.conn, r.root).Reply()
	if err != nil {
		return actions.Point{}, fmt.Errorf("robot: cursor: %w", err)
	}
	return actions.Point{X: int(q.RootX), Y: int(q.RootY)}, nil
}

// ReleaseAll releases every key and mouse button this Robot holds down, for
// example during a Hold or after a primitive failed halfway. Keys the user
// holds are left alone.
func (r *Robot) ReleaseAll() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	if err := r.releaseAll(); err != nil {
		return fmt.Errorf("robot: release all: %w", err)
	}
	return nil
}

// ReleaseStuck releases every key and mouse button the X server has down now.
// Keys and buttons sent with XTest stay down when their client dies without
// releasing them (checked on Xvfb: a key pressed by a killed client stays
// down, and autorepeat would type it again and again), so a new agent calls
// it once at start, after a crash or kill -9 of a previous one. A key the
// person holds at that instant is released too; releasing a key that is up
// does nothing.
func (r *Robot) ReleaseStuck() error {
	if err := r.begin(context.Background()); err != nil {
		return err
	}
	defer r.mu.Unlock()
	km, err := xproto.QueryKeymap(r.conn).Reply()
	if err != nil {
		return fmt.Errorf("robot: read the keyboard: %w", err)
	}
	q, err := xproto.QueryPointer(r.conn, r.root).Reply()
	if err != nil {
		return fmt.Errorf("robot: read the pointer: %w", err)
	}
	for i, bits := range km.Keys {
		for b := range 8 {
			if bits&(1<<b) != 0 {
				r.key(xproto.Keycode(i*8+b), false)
			}
		}
	}
	for b := byte(1); b <= 5; b++ {
		if q.Mask&(uint16(xproto.KeyButMaskButton1)<<(b-1)) != 0 {
			r.button(b, false)
		}
	}
	return r.sync()
}

// Close releases what the Robot holds, gives back the spare keycodes Type
// borrowed, and closes the X connection. Later calls return ErrClosed; a
// second Close returns nil.
func (r *Robot) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	err := errors.Join(r.releaseAll(), r.restoreSpares())
	xconn.Close(r.conn)
	if err != nil {
		return fmt.Errorf("robot: close: %w", err)
	}
	return nil
}

// begin locks the Robot for one primitive after checking ctx; the caller
// must call r.mu.Unlock when it returns nil.
func (r *Robot) begin(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrClosed
	}
	return nil
}

// releaseAll sends a release for every key and button held. Called locked.
func (r *Robot) releaseAll() error {
	for _, code := range slices.Sorted(maps.Keys(r.keys)) {
		r.key(code, false)
	}
	for _, b := range slices.Sorted(maps.Keys(r.buttons)) {
		r.button(b, false)
	}
	return r.sync()
}

// key sends a key press or release and tracks it. Called locked.
func (r *Robot) key(code xproto.Keycode, down bool) {
	typ := byte(keyRelease)
	if down {
		typ = keyPress
	}
	xtest.FakeInput(r.conn, typ, byte(code), 0, r.root, 0, 0, 0)
	if down {
		r.keys[code] = true
	} else {
		delete(r.keys, code)
	}
}

// button sends a button press or release and tracks it. Called locked.
func (r *Robot) button(b byte, down bool) {
	typ := byte(buttonRelease)
	if down {
		typ = buttonPress
	}
	xtest.FakeInput(r.conn, typ, b, 0, r.root, 0, 0, 0)
	if down {
		r.buttons[b] = true
	} else {
		delete(r.buttons, b)
	}
}

// motion moves the pointer to p (root coordinates). Called locked.
func (r *Robot) motion(p actions.Point) {
	xtest.FakeInput(r.conn, motionNotify, 0, 0, r.root, int16(p.X), int16(p.Y), 0)
}

// sync waits until the X server has processed every request sent so far and
// returns the first X error they caused. Called locked.
func (r *Robot) sync() error {
	if _, err := xproto.GetInputFocus(r.conn).Reply(); err != nil {
		return fmt.Errorf("x round trip: %w", err)
	}
	var first error
	for {
		ev, xerr := r.conn.PollForEvent()
		if ev == nil && xerr == nil {
			return first
		}
		if xerr != nil && first == nil {
			first = fmt.Errorf("x error: %w", xerr)
		}
	}
}
