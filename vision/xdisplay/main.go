//go:build linux

package xdisplay

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/jezek/xgb/xproto"

	"deskpilot/internal/xconn"
)

// Main is a TestMain helper: it starts a private display with o, points DISPLAY and
// XAUTHORITY of the whole test process at it (so robotgo, xgb and children use it;
// with o.Accessibility also DBUS_SESSION_BUS_ADDRESS, and AT_SPI_BUS_ADDRESS is unset),
// runs the tests, closes the display and returns the exit code for os.Exit:
//
//	func TestMain(m *testing.M) { os.Exit(xdisplay.Main(m, xdisplay.Options{})) }
//
// Tests reach the display with Attach(""). When the display cannot start (no
// Xvfb here), Main says why and runs the tests anyway with DISPLAY unset: the
// tests that need no display pass, those that need one fail, and none touches
// the developer's own display.
func Main(m *testing.M, o Options) int {
	xconn.Quiet() // xgb logs every connection closed by a test
	os.Unsetenv("WAYLAND_DISPLAY")
	d, err := Start(context.Background(), o)
	if err != nil {
		// The tests that need no display still run; those that do fail
		// for want of one. Never the developer's display: it is unset.
		fmt.Fprintln(os.Stderr, "xdisplay.Main: no private display, X tests will fail:", err)
		os.Unsetenv("DISPLAY")
		os.Unsetenv("XAUTHORITY")
		return m.Run()
	}
	defer func() {
		if err := d.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "xdisplay.Main:", err)
		}
	}()
	os.Setenv("DISPLAY", d.Name)
	os.Setenv("XAUTHORITY", d.XAuthority)
	if d.SessionBus != "" {
		os.Setenv("DBUS_SESSION_BUS_ADDRESS", d.SessionBus)
		os.Unsetenv("AT_SPI_BUS_ADDRESS")
	}
	return m.Run()
}

// Attach returns a Display for an existing X server (name "" means $DISPLAY), for
// example the one Main started. The display is not owned: Close only drops the
// connection and leaves the server running. Env, Command, StartApp, Windows and
// WaitWindow work as on a started display; XAuthority is $XAUTHORITY.
func Attach(name string) (*Display, error) {
	if name == "" {
		name = os.Getenv("DISPLAY")
	}
	conn, err := connect(name, "")
	if err != nil {
		return nil, fmt.Errorf("xdisplay: attach %q: %w", name, err)
	}
	s := xproto.Setup(conn).DefaultScreen(conn)
	return &Display{
		Name:       name,
		Width:      int(s.WidthInPixels),
		Height:     int(s.HeightInPixels),
		XAuthority: os.Getenv("XAUTHORITY"),
		conn:       conn,
	}, nil
}
