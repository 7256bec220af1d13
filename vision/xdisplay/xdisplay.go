//go:build linux

// Package xdisplay owns private X displays for tests, evaluation and CI: an Xvfb server
// on a display number Xvfb picks itself, with its own MIT-MAGIC-COOKIE-1 authority file,
// plus an openbox window manager. Nothing here touches the caller's DISPLAY unless asked
// to (Main sets it for the test binary on purpose).
//
// Every child process runs in its own process group, so Close and App.Stop reach
// grandchildren too. Many displays may run side by side in one process or in many
// processes at once (go test ./... runs packages concurrently).
package xdisplay

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jezek/xgb"
)

// Options configures Start. The zero value is a 1280x800x24 display with openbox.
type Options struct {
	// Width is the screen width in pixels; 0 means 1280.
	Width int
	// Height is the screen height in pixels; 0 means 800.
	Height int
	// Depth is the colour depth in bits; 0 means 24.
	Depth int
	// NoWindowManager skips starting openbox.
	NoWindowManager bool
	// Accessibility also starts a private D-Bus session bus for the display, with
	// the AT-SPI accessibility bus launcher activated on it (needs dbus-daemon and
	// at-spi2-core). Applications started with Env, Command or StartApp then
	// register their accessibility trees on that bus and no other; see
	// Display.SessionBus.
	Accessibility bool
	// OnlyA11yActivation (with Accessibility) lets the session bus start no
	// service but the AT-SPI bus launcher. The bus daemon starts a D-Bus
	// activated service as its own child, with its environment: a display
	// whose programs run in a sandbox (eval's task boxes) would otherwise
	// have org.gnome.Terminal, Nautilus, GVfs and every other service of
	// /usr/share/dbus-1/services started outside it on request.
	OnlyA11yActivation bool
}

func (o Options) withDefaults() Options {
	if o.Width <= 0 {
		o.Width = 1280
	}
	if o.Height <= 0 {
		o.Height = 800
	}
	if o.Depth <= 0 {
		o.Depth = 24
	}
	return o
}

// Display is a running private X display. Its methods are safe for concurrent use;
// Close must be called once the display is no longer needed.
type Display struct {
	// Name is the X display name, e.g. ":42".
	Name string
	// Width and Height are the screen size in pixels.
	Width, Height int
	// XAuthority is the path of the authority file clients must use
	// (Env and Command set XAUTHORITY to it).
	XAuthority string
	// SessionBus is the address of the display's private D-Bus session bus, ""
	// unless Options.Accessibility was set. When set, Env points
	// DBUS_SESSION_BUS_ADDRESS at it, drops AT_SPI_BUS_ADDRESS, NO_AT_BRIDGE and
	// GTK_A11Y, and sets QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 and GNOME_ACCESSIBILITY=1.
	SessionBus string
	// AccessibilityBus is the address of the AT-SPI bus the launcher started for
	// the display ("" unless Options.Accessibility). The launcher also publishes it
	// as the AT_SPI_BUS property of the root window.
	AccessibilityBus string

	cookie string // hex MIT-MAGIC-COOKIE-1; "" when attached to a display not owned
	dir    string // temporary directory holding the authority files; "" when not owned
	server *proc
	wm     *proc
	bus    *proc // session bus daemon; its process group holds the AT-SPI launcher
	conn   *xgb.Conn

	closeOnce sync.Once
	closeErr  error
}

const (
	startTimeout  = 30 * time.Second
	stopTimeout   = 5 * time.Second
	pollInterval  = 20 * time.Millisecond
	cookieName    = "MIT-MAGIC-COOKIE-1"
	familyWild    = 0xffff
	xvfbBinary    = "Xvfb"
	openboxBinary = "openbox"
)

// Start launches Xvfb (and openbox unless o.NoWindowManager) and returns once the
// display answers and the window manager owns the screen. Cancelling ctx aborts the
// start; the display itself outlives ctx until Close.
func Start(ctx context.Context, o Options) (_ *Display, err error) {
	o = o.withDefaults()
	dir, err := os.MkdirTemp("", "deskpilot-xdisplay-")
	if err != nil {
		return nil, fmt.Errorf("xdisplay: %w", err)
	}
	d := &Display{Width: o.Width, Height: o.Height, dir: dir}
	defer func() {
		if err != nil {
			_ = d.Close()
		}
	}()
	cookie := make([]byte, 16)
	if _, err := rand.Read(cookie); err != nil {
		return nil, fmt.Errorf("xdisplay: cookie: %w", err)
	}
	serverAuth := filepath.Join(dir, "server.xauth")
	d.cookie = hex.EncodeToString(cookie)
	if err := writeAuthority(serverAuth, "0", cookie); err != nil {
		return nil, fmt.Errorf("xdisplay: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if err := d.startServer(ctx, o, serverAuth); err != nil {
		return nil, err
	}
	d.XAuthority = filepath.Join(dir, "Xauthority")
	if err := writeAuthority(d.XAuthority, strings.TrimPrefix(d.Name, ":"), cookie); err != nil {
		return nil, fmt.Errorf("xdisplay: %w", err)
	}
	if d.conn, err = d.dial(ctx); err != nil {
		return nil, err
	}
	if !o.NoWindowManager {
		if err := d.startWM(ctx); err != nil {
			return nil, err
		}
	}
	if o.Accessibility {
		if err := d.startSessionBus(ctx, o.OnlyA11yActivation); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// startServer runs Xvfb with -displayfd and reads the display number it picked.
func (d *Display) startServer(ctx context.Context, o Options, auth string) error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("xdisplay: pipe: %w", err)
	}
	defer r.Close()
	stderr := &limitedBuffer{max: 8 << 10}
	cmd := exec.Command(xvfbBinary,
		"-displayfd", "3",
		"-screen", "0", fmt.Sprintf("%dx%dx%d", o.Width, o.Height, o.Depth),
		"-nolisten", "tcp", "-noreset", "-auth", auth,
		"+extension", "RANDR", "+extension", "MIT-SHM")
	cmd.ExtraFiles = []*os.File{w}
	cmd.Stderr = stderr
	d.server, err = startProc(cmd)
	w.Close()
	if err != nil {
		return fmt.Errorf("xdisplay: start Xvfb: %w", err)
	}
	num := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		num <- strings.TrimSpace(line)
	}()
	select {
	case n := <-num:
		if _, err := strconv.Atoi(n); err != nil {
			return fmt.Errorf("xdisplay: Xvfb exited before reporting a display: %s", tail(stderr.String()))
		}
		d.Name = ":" + n
		return nil
	case <-ctx.Done():
		return fmt.Errorf("xdisplay: waiting for Xvfb: %w", ctx.Err())
	}
}

// dial connects to the new display, retrying until it answers.
func (d *Display) dial(ctx context.Context) (*xgb.Conn, error) {
	for {
		conn, err := connect(d.Name, d.cookie)
		if err == nil {
			return conn, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("xdisplay: connect %s: %w (last error: %v)", d.Name, ctx.Err(), err)
		case <-time.After(pollInterval):
		}
	}
}

// startWM runs openbox and waits until it owns the WM_S0 selection.
func (d *Display) startWM(ctx context.Context) error {
	stderr := &limitedBuffer{max: 8 << 10}
	cmd := exec.Command(openboxBinary, "--sm-disable")
	cmd.Env = d.Env()
	cmd.Dir = d.dir
	cmd.Stdout = stderr
	cmd.Stderr = stderr
	var err error
	if d.wm, err = startProc(cmd); err != nil {
		return fmt.Errorf("xdisplay: start openbox: %w", err)
	}
	for {
		ok, err := wmRunning(d.conn)
		if err != nil {
			return fmt.Errorf("xdisplay: wait for openbox: %w", err)
		}
		if ok {
			return nil
		}
		select {
		case <-d.wm.done:
			return fmt.Errorf("xdisplay: openbox exited: %s", tail(stderr.String()))
		case <-ctx.Done():
			return fmt.Errorf("xdisplay: wait for openbox: %w", ctx.Err())
		case <-time.After(pollInterval):
		}
	}
}

// Close stops the session bus (when Options.Accessibility), the window manager and
// the X server (whole process groups) and waits for them, then removes the authority files. Calling Close again returns the first
// result. Applications still running on the display lose their connection.
func (d *Display) Close() error {
	d.closeOnce.Do(func() {
		if d.conn != nil {
			closeConn(d.conn)
		}
		var errs []error
		for _, p := range []*proc{d.bus, d.wm, d.server} {
			if p != nil {
				errs = append(errs, p.stop())
			}
		}
		if d.dir != "" {
			errs = append(errs, os.RemoveAll(d.dir))
		}
		if err := errors.Join(errs...); err != nil {
			d.closeErr = fmt.Errorf("xdisplay: close %s: %w", d.Name, err)
		}
	})
	return d.closeErr
}

// Env returns os.Environ() with DISPLAY and XAUTHORITY set for this display and
// WAYLAND_DISPLAY removed, for child processes; with a SessionBus, the session bus
// and accessibility variables are set as SessionBus says.
func (d *Display) Env() []string {
	env := make([]string, 0, len(os.Environ())+2)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "DISPLAY="+d.Name)
	if d.XAuthority != "" {
		env = append(env, "XAUTHORITY="+d.XAuthority)
	}
	if d.SessionBus != "" {
		env = a11yEnv(env, d.SessionBus)
	}
	return env
}

// Command returns an exec.Cmd that runs name on this display, in its own process
// group; cancelling ctx kills the whole group.
func (d *Display) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = d.Env()
	ownGroup(cmd)
	cmd.WaitDelay = stopTimeout
	return cmd
}

// writeAuthority writes an Xauthority file with one wildcard-address entry.
func writeAuthority(path, display string, cookie []byte) error {
	var b bytes.Buffer
	put := func(s []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint16(len(s)))
		b.Write(s)
	}
	_ = binary.Write(&b, binary.BigEndian, uint16(familyWild))
	put(nil)
	put([]byte(display))
	put([]byte(cookieName))
	put(cookie)
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("write authority: %w", err)
	}
	return nil
}

// limitedBuffer keeps the first max bytes written to it; safe for concurrent use.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 600 {
		s = "..." + s[len(s)-600:]
	}
	if s == "" {
		return "(no output)"
	}
	return s
}
