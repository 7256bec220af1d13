package desktop

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/godbus/dbus/v5"
)

// xwaylandLook is how often xwaylandWindows looks again for the X display
// when it found none (Xwayland started on demand, or restarted).
const xwaylandLook = 2 * time.Second

// xwaylandWindows finds deskpilot's windows on the compositor's Xwayland, for
// the backends (gnome, portal) whose compositor tells a client nothing of
// other windows. deskpilot's app is an X11 client (GLFW), so under a Wayland
// compositor it runs through Xwayland, whose window manager is the
// compositor: Xwayland's root lists its windows with _NET_WM_PID and their
// frames, in the compositor's layout coordinates. The windows of this process
// and of its peers (Options.Peers) are tracked there as on X11 (windowTracker)
// and mapped into the backend's root coordinates by toRoot. Native Wayland
// windows are not on Xwayland: one stacked above a deskpilot window is not
// seen, so that part of the window stays masked.
type xwaylandWindows struct {
	find   func() (xDisplay, bool) // where Xwayland is; false: none now
	peers  func() []int
	toRoot func(image.Rectangle) image.Rectangle

	mu   sync.Mutex
	t    *windowTracker
	next time.Time // when to look for Xwayland again, while t is nil
}

// xDisplay is an X display and the authority file of its cookie.
type xDisplay struct{ name, auth string }

func newXwaylandWindows(find func() (xDisplay, bool), peers func() []int, toRoot func(image.Rectangle) image.Rectangle) *xwaylandWindows {
	return &xwaylandWindows{find: find, peers: peers, toRoot: toRoot}
}

// ownWindows lists the visible parts of deskpilot's windows on Xwayland, in
// root coordinates; none while there is no Xwayland. It connects on the first
// call (and again, at most every xwaylandLook, after Xwayland went or when
// there was none); then the tracker keeps the windows current from the
// root's events, so a call costs no round trip unless a window was shown.
func (x *xwaylandWindows) ownWindows() ([]image.Rectangle, error) {
	t, err := x.tracker()
	if t == nil {
		return nil, err
	}
	rs, err := t.ownWindows()
	if err != nil {
		// Xwayland went (it may come back): look again later.
		x.mu.Lock()
		if x.t == t {
			x.t, x.next = nil, time.Now().Add(xwaylandLook)
		}
		x.mu.Unlock()
		t.close()
		return nil, nil
	}
	for i, r := range rs {
		rs[i] = x.toRoot(r)
	}
	return rs, nil
}

// ownInput is when input last reached one of this process's windows on
// Xwayland; zero before the tracker runs.
func (x *xwaylandWindows) ownInput() time.Time {
	x.mu.Lock()
	t := x.t
	x.mu.Unlock()
	if t == nil {
		return time.Time{}
	}
	return t.lastOwnInput()
}

func (x *xwaylandWindows) tracker() (*windowTracker, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.t != nil || time.Now().Before(x.next) {
		return x.t, nil
	}
	x.next = time.Now().Add(xwaylandLook)
	d, ok := x.find()
	if !ok {
		return nil, nil
	}
	t, err := trackWindows(d.name, d.auth, os.Getpid())
	if err != nil {
		return nil, nil // not up yet, or gone: looked for again later
	}
	t.peers = x.peers
	x.t = t
	return t, nil
}

func (x *xwaylandWindows) close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.t != nil {
		x.t.close()
		x.t = nil
	}
}

// findXwayland says where the X display of a Wayland session is: xdisplay
// when given (Options.XDisplay, with auth); else the display of the Xwayland
// that the compositor runs (a descendant of compositor, the process that
// serves the session's Wayland socket or its display API), with the cookie
// file on its command line; else, when the compositor is not known, $DISPLAY
// and $XAUTHORITY. A known compositor without Xwayland has no X display: on
// one that starts Xwayland on demand, connecting would start it.
func findXwayland(xdisplay, auth string, compositor func() (int, bool)) (xDisplay, bool) {
	if xdisplay != "" {
		return xDisplay{xdisplay, auth}, true
	}
	if pid, ok := compositor(); ok {
		return xwaylandOf(pid, "/proc")
	}
	if d := os.Getenv("DISPLAY"); d != "" {
		return xDisplay{d, os.Getenv("XAUTHORITY")}, true
	}
	return xDisplay{}, false
}

// mutterPID is the pid of the Mutter that serves the session bus's display
// API, else of the compositor on the session's Wayland socket.
func mutterPID(conn *dbus.Conn, o Options) (int, bool) {
	if pid, ok := busOwnerPID(conn, "org.gnome.Mutter.DisplayConfig"); ok {
		return pid, true
	}
	if socket, err := waylandSocket(o); err == nil {
		return socketPeer(socket)
	}
	return 0, false
}

// busOwnerPID is the pid of the process owning name on the bus.
func busOwnerPID(conn *dbus.Conn, name string) (int, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var pid uint32
	if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.GetConnectionUnixProcessID", 0, name).Store(&pid); err != nil || pid == 0 {
		return 0, false
	}
	return int(pid), true
}

// compositorPID is the pid of the compositor on the session's Wayland
// socket, else of the Mutter on the session bus.
func compositorPID(conn *dbus.Conn, o Options) (int, bool) {
	if socket, err := waylandSocket(o); err == nil {
		if pid, ok := socketPeer(socket); ok {
			return pid, true
		}
	}
	return busOwnerPID(conn, "org.gnome.Mutter.DisplayConfig")
}

// diagnoseXwayland tells where the gnome and portal backends find
// deskpilot's X11 windows (the app's), or that they find none.
func diagnoseXwayland(conn *dbus.Conn, o Options, backend string) Finding {
	pid := func() (int, bool) { return compositorPID(conn, o) }
	if backend == "gnome" {
		pid = func() (int, bool) { return mutterPID(conn, o) }
	}
	d, ok := findXwayland(o.XDisplay, o.XAuthority, pid)
	if !ok {
		return Finding{Name: "xwayland", Note: true, Detail: "no Xwayland found: deskpilot's windows cannot be masked or refused on this backend (native Wayland windows never can)"}
	}
	t, err := trackWindows(d.name, d.auth, os.Getpid())
	if err != nil {
		return Finding{Name: "xwayland", Note: true, Detail: fmt.Sprintf("Xwayland %s: %v; deskpilot's windows cannot be masked or refused", d.name, err)}
	}
	t.close()
	return Finding{Name: "xwayland", OK: true, Detail: fmt.Sprintf("Xwayland %s: deskpilot's X11 windows (the app's) are masked and refused; native Wayland ones cannot be found", d.name)}
}

// socketPeer is the pid of the process serving the unix socket at path (the
// Wayland compositor, for its socket).
func socketPeer(path string) (int, bool) {
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return 0, false
	}
	defer c.Close()
	raw, err := c.(*net.UnixConn).SyscallConn()
	if err != nil {
		return 0, false
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || cerr != nil || cred.Pid <= 0 {
		return 0, false
	}
	return int(cred.Pid), true
}

// xwaylandOf finds an Xwayland process among the descendants of pid (up to
// three levels: KDE's wrapper serves the socket and runs kwin, which runs
// Xwayland) in the process table at procDir, and reads its display and
// cookie file from its command line ("Xwayland :2 -rootless ... -auth FILE").
func xwaylandOf(pid int, procDir string) (xDisplay, bool) {
	ents, err := os.ReadDir(procDir)
	if err != nil {
		return xDisplay{}, false
	}
	children := map[int][]int{}
	names := map[int]string{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		name, ppid, ok := procStat(filepath.Join(procDir, e.Name(), "stat"))
		if !ok {
			continue
		}
		children[ppid] = append(children[ppid], p)
		names[p] = name
	}
	level := []int{pid}
	for range 3 {
		var below []int
		for _, p := range level {
			for _, c := range children[p] {
				if names[c] == "Xwayland" {
					if d, ok := xwaylandArgs(filepath.Join(procDir, strconv.Itoa(c), "cmdline")); ok {
						return d, true
					}
				}
				below = append(below, c)
			}
		}
		level = below
	}
	return xDisplay{}, false
}

// procStat reads a process's name and parent from its stat file; the name,
// in parentheses, may hold spaces and parentheses itself.
func procStat(path string) (string, int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", 0, false
	}
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return "", 0, false
	}
	fields := bytes.Fields(b[end+1:])
	if len(fields) < 2 {
		return "", 0, false
	}
	ppid, err := strconv.Atoi(string(fields[1]))
	if err != nil {
		return "", 0, false
	}
	return string(b[open+1 : end]), ppid, true
}

// xwaylandArgs reads the display (":N") and -auth file from an Xwayland
// command line.
func xwaylandArgs(path string) (xDisplay, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return xDisplay{}, false
	}
	var d xDisplay
	args := bytes.Split(bytes.TrimRight(b, "\x00"), []byte{0})
	for i, a := range args {
		switch {
		case len(a) > 1 && a[0] == ':' && d.name == "":
			d.name = string(a)
		case string(a) == "-auth" && i+1 < len(args):
			d.auth = string(args[i+1])
		}
	}
	return d, d.name != ""
}
