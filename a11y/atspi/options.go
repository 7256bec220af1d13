package atspi

import (
	"image"
	"time"
)

// Options configure Connect. The zero value finds the bus from the environment and
// reads the whole of $DISPLAY with the default limits.
type Options struct {
	// BusAddress is the D-Bus session bus address; "" = $DBUS_SESSION_BUS_ADDRESS.
	BusAddress string
	// A11yAddress is the accessibility bus address; "" = find it (package doc).
	A11yAddress string
	// XDisplay is the X display whose applications are read; "" = $DISPLAY.
	XDisplay string
	// XAuthority is the X authority file holding XDisplay's cookie; "" =
	// $XAUTHORITY (else ~/.Xauthority). A private display with a cookie of its
	// own (vision/xdisplay.Display.XAuthority, an eval task's display) needs it:
	// the process's $XAUTHORITY names another display's cookie, and the X server
	// refuses the connection.
	XAuthority string
	// IgnoreEnv leaves $AT_SPI_BUS_ADDRESS and $DBUS_SESSION_BUS_ADDRESS out of
	// the search for the bus: set it when XDisplay is not this session's display
	// (one given with --x-display, a private display), whose environment names
	// another display's buses. The root window's AT_SPI_BUS property, and the
	// addresses given here, are still used.
	IgnoreEnv bool
	// Bounds is the driven monitor in root coordinates; elements outside it are left
	// out. The empty rectangle means the whole root window.
	Bounds image.Rectangle
	// MaxDepth is the deepest level read below an application; 0 means 64.
	MaxDepth int
	// MaxNodes is the most accessible objects one Elements call reads across all
	// applications; 0 means 4000.
	MaxNodes int
	// MaxTime bounds one Elements call; what was read by then is returned with a
	// a11y.Note. 0 means 3 s.
	MaxTime time.Duration
	// CallTimeout is how long an application may leave calls unanswered (no reply
	// at all) before it counts as hung: it is skipped, and skipped without asking
	// for HungRetry after that. 0 means 1 s.
	CallTimeout time.Duration
	// HungRetry is how long an application that did not answer is skipped before it
	// is asked again; 0 means 15 s.
	HungRetry time.Duration
	// MaxText is the most characters of text content kept per element; 0 means 200.
	MaxText int
	// Containers keeps the structural containers with neither name nor text
	// (panels, fillers, split panes, scroll panes, ...) that are left out
	// otherwise, so that the elements give the whole visible tree, each
	// under its real parent: OSWorld's accessibility tree has them.
	Containers bool
	// NoCache reads every application object by object, never with
	// Cache.GetItems: slower, but it gives the tree as the application's
	// objects have it. LibreOffice's gtk3 plugin leaves its window contents
	// (the root pane and all below it) out of its cache, or links them to
	// no parent there, at times.
	NoCache bool
}

func (o Options) withDefaults() Options {
	if o.MaxDepth <= 0 {
		o.MaxDepth = 64
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = 4000
	}
	if o.MaxTime <= 0 {
		o.MaxTime = 3 * time.Second
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = time.Second
	}
	if o.HungRetry <= 0 {
		o.HungRetry = 15 * time.Second
	}
	if o.MaxText <= 0 {
		o.MaxText = 200
	}
	return o
}
