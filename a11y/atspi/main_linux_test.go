package atspi

import (
	"os"
	"testing"

	"deskpilot/vision/xdisplay"
)

// TestMain runs every test on a private 1280x800 display with openbox, its own
// session bus and AT-SPI bus: nothing here touches the developer's desktop or buses.
func TestMain(m *testing.M) {
	os.Exit(xdisplay.Main(m, xdisplay.Options{Accessibility: true}))
}
