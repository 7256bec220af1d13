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
// XAUTHORITY of the whole test process at it (so robotgo, xgb and children use it),
// runs the tests, closes the display and returns the exit code for os.Exit:
//
//	func TestMain(m *testing.M) { os.Exit(xdisplay.Main(m, xdisplay.Options{})) }
//
// Tests reach the display with Attach(""). When the display cannot start, Main
// prints why and returns 1 without running tests.
func Main(m *testing.M, o Options) int {
	xconn.Quiet() // xgb logs every connection closed by a test
	d, err := Start(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "xdisplay.Main:", err)
		return 1
	}
	defer func() {
		if err := d.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "xdisplay.Main:", err)
		}
	}()
	os.Unsetenv("WAYLAND_DISPLAY")
	os.Setenv("DISPLAY", d.Name)
	os.Setenv("XAUTHORITY", d.XAuthority)
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
