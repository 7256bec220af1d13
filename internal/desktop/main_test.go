//go:build linux

package desktop

import (
	"os"
	"testing"

	"deskpilot/vision/xdisplay"
)

// TestMain runs every test on a private Xvfb display with openbox; DISPLAY
// and XAUTHORITY of the test process point at it, which is the display the
// robotgo backend drives.
func TestMain(m *testing.M) { os.Exit(xdisplay.Main(m, xdisplay.Options{})) }
