package wldisplay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// MutterOptions say what headless mutter shows.
type MutterOptions struct {
	// Width and Height are the virtual monitor's size; 0 means 1280x720.
	Width, Height int
	// Portal also makes xdg-desktop-portal (with its GNOME backend) reachable
	// on the session bus, D-Bus activated as in a desktop session.
	Portal bool
	// X11 has mutter start Xwayland, as a GNOME session does: X11 clients
	// (StartX11) then show on the Wayland screen, with mutter as their
	// window manager.
	X11 bool
}

// Mutter is a running headless mutter in a session bus of its own, with
// pipewire and wireplumber, as a GNOME session has them.
type Mutter struct {
	// Bus is the session bus address (DBUS_SESSION_BUS_ADDRESS).
	Bus string
	// RuntimeDir is the private XDG_RUNTIME_DIR, holding the Wayland and
	// PipeWire sockets.
	RuntimeDir string
	// Socket is the Wayland socket, an absolute path.
	Socket string
	// PipeWire is PipeWire's socket.
	PipeWire string
	// Width and Height are the virtual monitor's size.
	Width, Height int
	// XDisplay and XAuthority are Xwayland's display (":2") and the file of
	// its cookie, as mutter gives them to its session; "" without X11.
	XDisplay, XAuthority string

	home  string
	procs []*proc // bus, pipewire, wireplumber, mutter
	mu    sync.Mutex
	apps  []*App
}

// StartMutter starts the bus, pipewire, wireplumber and mutter, and waits
// until Mutter's RemoteDesktop API is on the bus. The caller must Close it.
func StartMutter(ctx context.Context, o MutterOptions) (_ *Mutter, err error) {
	progs := map[string]string{"mutter": "mutter", "dbus-daemon": "dbus-daemon", "pipewire": "pipewire",
		"wireplumber": "wireplumber", "gdbus": "libglib2.0-bin"}
	if o.Portal {
		progs["/usr/libexec/xdg-desktop-portal"] = "xdg-desktop-portal"
		progs["/usr/libexec/xdg-desktop-portal-gnome"] = "xdg-desktop-portal-gnome"
	}
	if o.X11 {
		progs["Xwayland"] = "xwayland"
	}
	if err := need(progs); err != nil {
		return nil, err
	}
	if o.Width == 0 || o.Height == 0 {
		o.Width, o.Height = 1280, 720
	}
	m := &Mutter{Width: o.Width, Height: o.Height}
	if m.RuntimeDir, err = privateDir("wl-mutter-rt-*", -1); err != nil {
		return nil, err
	}
	if m.home, err = privateDir("wl-mutter-home-*", -1); err != nil {
		os.RemoveAll(m.RuntimeDir)
		return nil, err
	}
	m.Socket = filepath.Join(m.RuntimeDir, "wayland-gw")
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := m.startBus(ctx); err != nil {
		return nil, err
	}
	m.PipeWire = filepath.Join(m.RuntimeDir, "pipewire-0")
	if err := m.run(ctx, "pipewire", func() bool { return exists(m.PipeWire) }, "pipewire"); err != nil {
		return nil, err
	}
	if err := m.run(ctx, "", nil, "wireplumber"); err != nil {
		return nil, err
	}
	size := fmt.Sprintf("%dx%d", o.Width, o.Height)
	args := []string{"--headless", "--virtual-monitor", size, "--wayland", "--wayland-display=wayland-gw"}
	ready := m.hasRemoteDesktop
	if o.X11 {
		// Mutter gives the session's program (after "--") Xwayland's DISPLAY
		// and XAUTHORITY; this one writes them down and stays while mutter
		// runs.
		xenv := filepath.Join(m.RuntimeDir, "xwayland-env")
		args = append(args, "--", "sh", "-c", `printf '%s\n%s\n' "$DISPLAY" "$XAUTHORITY" > "$1.tmp" && mv "$1.tmp" "$1"; `+
			`while kill -0 $PPID 2>/dev/null; do sleep 1; done`, "sh", xenv)
		ready = func() bool { return m.hasRemoteDesktop() && m.readXEnv(xenv) }
	} else {
		args = append(args, "--no-x11")
	}
	if err := m.run(ctx, "mutter's RemoteDesktop on the bus", ready, "mutter", args...); err != nil {
		return nil, err
	}
	return m, nil
}

// readXEnv reads the display and cookie file that mutter's session program
// wrote to path.
func (m *Mutter) readXEnv(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 2 || lines[0] == "" {
		return false
	}
	m.XDisplay, m.XAuthority = lines[0], lines[1]
	return true
}

// startBus starts a private session bus and reads its address.
func (m *Mutter) startBus(ctx context.Context) error {
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1",
		"--address=unix:path="+filepath.Join(m.RuntimeDir, "bus"))
	// Programs the bus activates (the portals) get the session's variables.
	cmd.Env = m.Env()
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	p, err := startKeepStdout(cmd)
	if err != nil {
		return fmt.Errorf("wldisplay: start dbus-daemon: %w", err)
	}
	m.procs = append(m.procs, p)
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	select {
	case m.Bus = <-addr:
	case <-ctx.Done():
		return fmt.Errorf("wldisplay: the session bus did not start: %w", ctx.Err())
	}
	if m.Bus == "" {
		return fmt.Errorf("wldisplay: dbus-daemon printed no address: %s", p.out.String())
	}
	return nil
}

// run starts a program of the session and waits until ready holds (when given).
func (m *Mutter) run(ctx context.Context, what string, ready func() bool, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Env = m.Env()
	p, err := start(cmd)
	if err != nil {
		return fmt.Errorf("wldisplay: start %s: %w", name, err)
	}
	m.procs = append(m.procs, p)
	if ready == nil {
		return nil
	}
	return waitFor(ctx, p, "wldisplay: "+what, ready)
}

func (m *Mutter) hasRemoteDesktop() bool {
	out, err := m.Command(context.Background(), "gdbus", "call", "--session", "--dest", "org.freedesktop.DBus",
		"--object-path", "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.NameHasOwner", "org.gnome.Mutter.RemoteDesktop").Output()
	return err == nil && strings.Contains(string(out), "true")
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func (m *Mutter) baseEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + m.home, "XDG_RUNTIME_DIR=" + m.RuntimeDir,
		"LANG=C.UTF-8", "LC_ALL=C.UTF-8"}
}

// Env is a clean environment for a program in this session: its bus, runtime
// dir, Wayland socket and GNOME's desktop name; no X display.
func (m *Mutter) Env() []string {
	env := append(m.baseEnv(), "DBUS_SESSION_BUS_ADDRESS="+m.Bus, "XDG_SESSION_TYPE=wayland",
		"XDG_CURRENT_DESKTOP=GNOME", "GDK_BACKEND=wayland", "NO_AT_BRIDGE=1", "GSETTINGS_BACKEND=memory")
	if m.Socket != "" {
		env = append(env, "WAYLAND_DISPLAY="+m.Socket)
	}
	return env
}

// Command is exec.Command with Env.
func (m *Mutter) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = m.Env()
	return cmd
}

// Start starts a program in the session; Close stops it.
func (m *Mutter) Start(name string, args ...string) (*App, error) { return startApp(m, name, args...) }

// StartX11 starts a program in the session as an X11 client of Xwayland
// (MutterOptions.X11): GTK and Qt are told to use X11; Close stops it.
func (m *Mutter) StartX11(name string, args ...string) (*App, error) {
	if m.XDisplay == "" {
		return nil, errors.New("wldisplay: mutter runs without Xwayland (MutterOptions.X11)")
	}
	return startApp(x11Starter{m}, name, args...)
}

// X11Command is Command for an X11 client of mutter's Xwayland
// (MutterOptions.X11): DISPLAY and XAUTHORITY set, GTK and Qt told to use X11.
func (m *Mutter) X11Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := m.Command(ctx, name, args...)
	cmd.Env = append(cmd.Env, "DISPLAY="+m.XDisplay, "XAUTHORITY="+m.XAuthority, "GDK_BACKEND=x11", "QT_QPA_PLATFORM=xcb")
	return cmd
}

// x11Starter starts programs on mutter's Xwayland.
type x11Starter struct{ m *Mutter }

func (s x11Starter) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	return s.m.X11Command(ctx, name, args...)
}

func (s x11Starter) track(a *App) { s.m.track(a) }

func (m *Mutter) track(a *App) {
	m.mu.Lock()
	m.apps = append(m.apps, a)
	m.mu.Unlock()
}

// Log is the tail of mutter's output.
func (m *Mutter) Log() string {
	if len(m.procs) == 0 {
		return ""
	}
	return m.procs[len(m.procs)-1].out.String()
}

// Close stops the programs, mutter, wireplumber, pipewire and the bus (the
// portals it activated go with it), and removes the private directories.
func (m *Mutter) Close() error {
	m.mu.Lock()
	apps := m.apps
	m.apps = nil
	m.mu.Unlock()
	for _, a := range apps {
		a.Stop()
	}
	for i := len(m.procs) - 1; i >= 0; i-- {
		m.procs[i].stop()
	}
	m.procs = nil
	var errs []error
	for _, d := range []string{m.RuntimeDir, m.home} {
		if d == "" {
			continue
		}
		// The document portal mounts a FUSE file system in the runtime dir;
		// it goes with the bus, but an unmount left behind would keep it.
		_ = exec.Command("fusermount", "-u", "-q", filepath.Join(d, "doc")).Run()
		errs = append(errs, os.RemoveAll(d))
	}
	return errors.Join(errs...)
}
