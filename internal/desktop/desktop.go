// Package desktop owns the seam between deskpilot and the desktop it drives: a
// Desktop is one target monitor of one display, with its frames, its mouse and
// keyboard, the pointer, the person's idle time, deskpilot's own windows and
// program launch. A backend fills it: "x11" (XTest input and MIT-SHM capture over
// the project's own X connections; Linux, the default there) and "robotgo"
// (github.com/go-vgo/robotgo input, github.com/kbinani/screenshot capture and
// monitors; needs cgo; the default on Windows and macOS, selectable on Linux).
// docs/architecture.md says how to add one.
//
// What each backend does on each system, and what is untested:
//
//   - x11 (Linux): everything, tested on Xvfb.
//   - robotgo on Linux: input through robotgo (one process-wide X connection to
//     $DISPLAY, which is why it refuses any other display); text that robotgo
//     cannot type exactly is pasted (see typing_linux.go); capture, idle time and
//     own windows reuse the x11 code. Tested on Xvfb with the same form app.
//   - robotgo on Windows: robotgo input (SendInput), kbinani capture (GDI),
//     idle time from GetLastInputInfo, own windows from EnumWindows. Cross-built
//     here, never run.
//   - robotgo on macOS: robotgo input, kbinani capture; idle time and own windows
//     are unsupported (errors.ErrUnsupported, nil). Not even built here: no
//     macOS SDK.
package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"deskpilot/actions"
)

// Display is one monitor of the desktop.
type Display struct {
	Index   int
	Name    string
	Bounds  image.Rectangle // root coordinates
	Primary bool
}

// Input is the mouse and keyboard of the target monitor: actions.Input, with
// every point confined to the monitor.
type Input = actions.Input

// backend is what a desktop backend provides; Desktop adds the target monitor.
type backend interface {
	displays() ([]Display, error)
	// capture grabs r into dst when dst has r's size (a backend may also
	// ignore dst), else into a new image.
	capture(ctx context.Context, r image.Rectangle, dst *image.RGBA) (*image.RGBA, error)
	input(bounds image.Rectangle) (Input, error)
	cursor() (image.Point, error)
	// idle is how long ago any input reached the desktop; errors.ErrUnsupported
	// when the backend cannot tell.
	idle() (time.Duration, error)
	// ownWindows lists the visible parts of this process's top-level windows
	// (what other windows cover is left out), root coordinates. Called only
	// when Options.HasWindow; it must be cheap: the agent calls it before every
	// input action.
	ownWindows() ([]image.Rectangle, error)
	// displayEnv are the variables that point a program at this desktop
	// ("DISPLAY=:1", "XAUTHORITY=..."); nil when the session's own do.
	displayEnv() []string
	// ownInput is when a person last gave input to one of this process's
	// windows; zero when never or when the backend cannot tell. Called only
	// when Options.HasWindow; it must be cheap (the agent calls it before
	// every input action).
	ownInput() time.Time
	close() error
}

// Options say which desktop to open.
type Options struct {
	// Backend is "x11" or "robotgo"; "" = the platform's default (DefaultBackend).
	Backend string
	// XDisplay names the X display ("" = $DISPLAY). Only x11 can drive a display
	// other than $DISPLAY; the gnome and portal backends look for deskpilot's
	// windows on it ("" = the compositor's Xwayland, found from its process).
	XDisplay string
	// Wayland names the Wayland compositor's socket, as $WAYLAND_DISPLAY does
	// (a name in $XDG_RUNTIME_DIR or an absolute path; "" = $WAYLAND_DISPLAY),
	// for the wlroots backend.
	Wayland string
	// SessionBus is the D-Bus session bus address of the gnome and portal
	// backends ("" = $DBUS_SESSION_BUS_ADDRESS); PipeWire is PipeWire's socket
	// for the gnome backend ("" = pipewire-0 in $XDG_RUNTIME_DIR).
	SessionBus, PipeWire string
	// XAuthority is the X authority file whose cookie the x11 backend connects
	// with ("" = $XAUTHORITY, as every X client): a process driving several
	// private displays, each with a cookie of its own, names each one's file.
	// Programs launched on the desktop get XAUTHORITY set to it.
	XAuthority string
	// Env is the environment of programs launched on the desktop (Launch), to
	// which the display's variables (DISPLAY, XAUTHORITY) are added; nil = this
	// process's own environment. Either way, its credentials are left out
	// (CleanEnv with PassEnv, DropEnv and IsSecret).
	Env []string
	// PassEnv names variables launched programs get even though their names
	// look like credentials (config pass_env).
	PassEnv []string
	// DropEnv names more variables launched programs never get: those the
	// config names as holding API keys.
	DropEnv []string
	// IsSecret reports a value that is (or holds) a secret or a key; a
	// variable holding one is left out. nil = none.
	IsSecret func(value string) bool
	// Monitor is the index of the target monitor (0 = the first, left to right).
	Monitor int
	// HasWindow says this process shows windows of its own (the app); only then
	// are they looked for, masked and refused. A CLI run has none.
	HasWindow bool
	// Peers, when set, lists the pids of other deskpilot processes of this
	// user that show windows (the app: runctl.Peers); their windows are
	// masked and refused as this process's own are, on X11, on sway, and on
	// GNOME and through the portal for X11 windows (Xwayland). It is called
	// only when a window shown since the last look needs its owner told.
	Peers func() []int
	// OwnInput, when set, is when the app itself last saw the person's input
	// in its windows; OwnInput reports the later of it and the backend's
	// (which on Wayland sees little or nothing of it).
	OwnInput func() time.Time
}

// opener opens a backend.
type opener func(Options) (backend, error)

// Desktop is one target monitor, ready to observe and drive. Safe for concurrent use.
type Desktop struct {
	b        backend
	name     string
	target   Display
	displays []Display
	in       Input
	own      bool
	env      []string         // Options.Env; nil = os.Environ()
	ownIn    func() time.Time // Options.OwnInput
	clean    func([]string) []string
}

// Open connects to the desktop and picks the target monitor.
func Open(o Options) (*Desktop, error) {
	name := o.Backend
	if name == "" {
		name, _ = Choose(o, os.Getenv)
	}
	open, ok := backends()[name]
	if !ok {
		return nil, unavailable(name)
	}
	b, err := open(o)
	if err != nil {
		return nil, err
	}
	ds, err := b.displays()
	if err != nil {
		b.close()
		return nil, fmt.Errorf("list monitors: %w", err)
	}
	if o.Monitor < 0 || o.Monitor >= len(ds) {
		b.close()
		return nil, fmt.Errorf("--display %d: this desktop has %d monitor(s), 0..%d", o.Monitor, len(ds), len(ds)-1)
	}
	target := ds[o.Monitor]
	in, err := b.input(target.Bounds)
	if err != nil {
		b.close()
		return nil, fmt.Errorf("input: %w", err)
	}
	clean := func(env []string) []string { return CleanEnv(env, o.PassEnv, o.DropEnv, o.IsSecret) }
	return &Desktop{b: b, name: name, target: target, displays: ds, in: in, own: o.HasWindow || o.Peers != nil, env: slices.Clone(o.Env),
		ownIn: o.OwnInput, clean: clean}, nil
}

// unavailable explains why backend name cannot be opened in this build.
func unavailable(name string) error {
	names := BackendNames()
	if len(names) == 0 {
		return fmt.Errorf("backend %q: this build of deskpilot has no desktop backend for %s (robotgo needs cgo: build with CGO_ENABLED=1)", name, runtime.GOOS)
	}
	return fmt.Errorf("backend %q is not available in this build on %s; backends: %s", name, runtime.GOOS, strings.Join(names, ", "))
}

// BackendNames lists the backends this build has, sorted.
func BackendNames() []string {
	var out []string
	for n := range backends() {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Backend is the name of the backend in use.
func (d *Desktop) Backend() string { return d.name }

// Target is the monitor the agent drives.
func (d *Desktop) Target() Display { return d.target }

// Displays are all monitors of the desktop.
func (d *Desktop) Displays() []Display { return slices.Clone(d.displays) }

// Capture returns a fresh full-resolution frame of the target monitor (bounds
// (0,0)-size); it satisfies vision.Capturer.
func (d *Desktop) Capture(ctx context.Context) (*image.RGBA, error) {
	return d.b.capture(ctx, d.target.Bounds, nil)
}

// CaptureInto is Capture writing into dst, a frame the caller no longer needs,
// when it has the target's size (on X11; elsewhere a new image); it returns
// the image written. Settle passes its own spent frames this way.
func (d *Desktop) CaptureInto(ctx context.Context, dst *image.RGBA) (*image.RGBA, error) {
	return d.b.capture(ctx, d.target.Bounds, dst)
}

// CaptureRect returns a fresh frame of r, in root coordinates.
func (d *Desktop) CaptureRect(ctx context.Context, r image.Rectangle) (*image.RGBA, error) {
	return d.b.capture(ctx, r, nil)
}

// Input is the mouse and keyboard, confined to the target monitor.
func (d *Desktop) Input() Input { return d.in }

// Cursor returns the pointer in root coordinates.
func (d *Desktop) Cursor() (image.Point, error) { return d.b.cursor() }

// Idle returns how long ago the desktop last saw input from any device;
// errors.ErrUnsupported when the backend cannot tell.
func (d *Desktop) Idle() (time.Duration, error) { return d.b.idle() }

// OwnWindows returns the visible parts of deskpilot's own windows, root
// coordinates: where a window of another program is stacked above one of
// deskpilot's, that part is left out. Nil when this process shows no window
// (Options.HasWindow false) or the backend cannot tell. It is cheap: on X11
// the windows are kept current from window events, and a window's owner is
// read once, the first time it is listed after being shown.
func (d *Desktop) OwnWindows() []image.Rectangle {
	if !d.own {
		return nil
	}
	rs, err := d.b.ownWindows()
	if err != nil {
		return nil
	}
	return rs
}

// Env is the environment for programs started on this desktop: Options.Env
// (else the process's own) without its credentials (CleanEnv), with the
// display's variables (DISPLAY, XAUTHORITY) set. On a display other than this session's, the process's
// $AT_SPI_BUS_ADDRESS (this session's accessibility bus) is left out, so that
// toolkits find the display's own bus (its root window's AT_SPI_BUS
// property), where find_elements reads them.
func (d *Desktop) Env() []string {
	base := d.env
	if base == nil {
		base = os.Environ()
		if f, ok := d.b.(interface{ foreignDisplay() bool }); ok && f.foreignDisplay() {
			base = slices.DeleteFunc(slices.Clone(base), func(kv string) bool { return strings.HasPrefix(kv, "AT_SPI_BUS_ADDRESS=") })
		}
	}
	if d.clean != nil {
		base = d.clean(base)
	}
	return setEnv(base, d.b.displayEnv()...)
}

// setEnv returns env with each "K=V" of kvs replacing any earlier value of K.
func setEnv(env []string, kvs ...string) []string {
	out := make([]string, 0, len(env)+len(kvs))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(kvs, func(s string) bool { return strings.HasPrefix(s, k+"=") }) {
			out = append(out, kv)
		}
	}
	return append(out, kvs...)
}

// OwnInput reports when a person last gave input to one of deskpilot's own
// windows: the pointer moving over them, a button released or a key pressed
// there, the pointer entering or leaving one. The agent does not count input
// that went there as a takeover. Zero when there was none, when this process
// shows no window (Options.HasWindow false), or when the backend cannot tell
// (x11 and robotgo on Linux watch input events; on Windows the pointer seen over
// deskpilot's windows, sampled every 50 ms, stands for it; macOS cannot tell).
func (d *Desktop) OwnInput() time.Time {
	if !d.own {
		return time.Time{}
	}
	t := d.b.ownInput()
	if d.ownIn != nil {
		if app := d.ownIn(); app.After(t) {
			t = app
		}
	}
	return t
}

// Launch starts a program on this desktop, detached from deskpilot (its own
// session, so it outlives the run and never gets the agent's signals), and
// returns its process id.
// On Windows it starts in a new process group without a console of deskpilot's.
func (d *Desktop) Launch(name string, args ...string) (int, error) {
	return launch(d.Env(), name, args...)
}

// Close releases held input and the backend's connections. Safe twice.
func (d *Desktop) Close() error {
	if d == nil || d.b == nil {
		return nil
	}
	var errs []error
	if d.in != nil {
		errs = append(errs, d.in.ReleaseAll())
	}
	errs = append(errs, d.b.close())
	d.b = nil
	return errors.Join(errs...)
}
