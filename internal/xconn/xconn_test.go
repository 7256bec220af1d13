//go:build linux

package xconn_test

import (
	"os"
	"strings"
	"testing"

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
