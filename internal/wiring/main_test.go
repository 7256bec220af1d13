package wiring

import (
	"os"
	"testing"

	"deskpilot/agent/dialect"
	"deskpilot/agent/script"
	"deskpilot/vision/xdisplay"
)

// The grounding tests drive private displays of their own, each with its own
// session and AT-SPI buses, the way --x-display drives one: the process's
// environment names this display's buses (1280x800, with accessibility), which
// the wiring must pass over for the driven display's.
func TestMain(m *testing.M) {
	script.ServeIfChild(dialect.ModuleSet) // the model's code runs in this binary, started again
	os.Exit(xdisplay.Main(m, xdisplay.Options{Width: 1280, Height: 800, Accessibility: true}))
}
