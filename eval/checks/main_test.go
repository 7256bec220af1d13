package checks

import (
	"os"
	"testing"

	"deskpilot/vision/xdisplay"
)

// TestMain gives the package's tests a private display for the real
// applications some of them drive (Chromium, VLC, zenity), with an
// accessibility bus.
func TestMain(m *testing.M) { os.Exit(xdisplay.Main(m, xdisplay.Options{Accessibility: true})) }
