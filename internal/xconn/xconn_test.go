//go:build linux

package xconn_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"deskpilot/internal/xconn"
	"deskpilot/vision/xdisplay"
)

func TestMain(m *testing.M) {
	os.Exit(xdisplay.Main(m, xdisplay.Options{NoWindowManager: true}))
}

// TestEnableOnManyConnections: extensions work on every connection, the first and
// the later ones (which never run xgb's own Init), under -race.
func TestEnableOnManyConnections(t *testing.T) {
	for i := range 3 {
		c, err := xconn.Dial("")
		if err != nil {
			t.Fatal(err)
		}
		for _, ext := range []string{xconn.SHM, xconn.RandR, xconn.XTest, xconn.ScreenSaver} {
			if err := xconn.Enable(c, ext); err != nil {
				t.Errorf("connection %d: Enable(%s): %v", i, ext, err)
			}
		}
		if _, err := xtest.GetVersion(c, 2, 2).Reply(); err != nil {
			t.Errorf("connection %d: XTEST request after Enable: %v", i, err)
		}
		xconn.Close(c)
	}
}

func TestEnableUnknownExtension(t *testing.T) {
	c, err := xconn.Dial("")
	if err != nil {
		t.Fatal(err)
	}
	defer xconn.Close(c)
	if err := xconn.Enable(c, "NO-SUCH-EXTENSION"); err == nil || !strings.Contains(err.Error(), "unknown extension") {
		t.Errorf("Enable(unknown) = %v", err)
	}
}

// TestDialAuth: a second private display with a cookie of its own is reached
// through its authority file while $XAUTHORITY names the first display's, which
// xgb's own lookup cannot do; another display's file or a wrong cookie is refused.
func TestDialAuth(t *testing.T) {
	b, err := xdisplay.Start(t.Context(), xdisplay.Options{NoWindowManager: true, Width: 640, Height: 480})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	c, err := xconn.DialAuth(b.Name, b.XAuthority)
	if err != nil {
		t.Fatalf("DialAuth(%s, its own file): %v", b.Name, err)
	}
	if s := xproto.Setup(c).DefaultScreen(c); s.WidthInPixels != 640 || s.HeightInPixels != 480 {
		t.Errorf("connected to a %dx%d screen, want display %s's 640x480", s.WidthInPixels, s.HeightInPixels, b.Name)
	}
	if err := xconn.Enable(c, xconn.XTest); err != nil {
		t.Errorf("Enable on an authorised connection: %v", err)
	}
	xconn.Close(c)

	if c, err := xconn.Dial(b.Name); err == nil {
		xconn.Close(c)
		t.Errorf("Dial(%s) with $XAUTHORITY of another display connected: the test proves nothing", b.Name)
	}
	if c, err := xconn.DialAuth(b.Name, os.Getenv("XAUTHORITY")); err == nil || !strings.Contains(err.Error(), "no MIT-MAGIC-COOKIE-1") {
		if c != nil {
			xconn.Close(c)
		}
		t.Errorf("DialAuth with the other display's file: %v, want no cookie", err)
	}
	wrong := filepath.Join(t.TempDir(), "wrong")
	num := strings.TrimPrefix(b.Name, ":")
	if err := os.WriteFile(wrong, authFile(xconn.AuthEntry{Family: 65535, Number: num, Name: "MIT-MAGIC-COOKIE-1", Data: cookie(7)}), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err := xconn.DialAuth(b.Name, wrong); err == nil || !strings.Contains(err.Error(), "refused") {
		if c != nil {
			xconn.Close(c)
		}
		t.Errorf("DialAuth with a wrong cookie: %v, want refused", err)
	}
	if c, err := xconn.DialAuth(b.Name+".1", b.XAuthority); err == nil || !strings.Contains(err.Error(), "screen") {
		if c != nil {
			xconn.Close(c)
		}
		t.Errorf("DialAuth to screen 1 of a one-screen display: %v", err)
	}
}
