package checks

import (
	"context"
	"errors"
	"image"
	"net"
)

// Env is the task's desktop as getters see it. The harness implements it for a
// task's box; tests implement it over a folder. Every method is safe to call
// from one goroutine at a time.
type Env interface {
	// Path maps a path the task names ("/home/user/x.xlsx", "~/x", "$HOME/x",
	// relative to the task file) to where that file is on this machine.
	Path(p string) string
	// CacheDir is the task's own folder for fetched copies (OSWorld's
	// env.cache_dir): getters copy files there under the name the task gives as
	// "dest", and metrics may unpack archives next to them.
	CacheDir() string
	// CloudFile returns the local path of the content of url, from the
	// harness's download cache. It never reaches the network when the harness
	// runs offline; an input that is not cached is an error wrapping
	// ErrNotCached.
	CloudFile(ctx context.Context, url string) (string, error)
	// Exec runs a command in the task's box, as OSWorld's /execute endpoint
	// does: command is a string or a list of strings, shell says whether a
	// shell runs it. A command that cannot run is an error; a non-zero exit is
	// not.
	Exec(ctx context.Context, command any, shell bool) (ExecResult, error)
	// Dial connects to a TCP port on the box's loopback (the browser's DevTools
	// endpoint 9222, VLC's HTTP interface 8080).
	Dial(ctx context.Context, port int) (net.Conn, error)
	// AccessibilityTree returns the desktop's accessibility tree as the XML
	// OSWorld's server gives (tags are role names, attributes in the
	// uri:deskat:* namespaces).
	AccessibilityTree(ctx context.Context) (string, error)
	// Accessibility connects to the display's accessibility tree (AT-SPI)
	// for a getter that reads elements and their whole text; the getter
	// closes it.
	Accessibility(ctx context.Context) (A11yReader, error)
	// Windows lists the display's top-level windows, in stacking order.
	Windows(ctx context.Context) ([]Window, error)
	// Screen is the display's size in pixels.
	Screen() image.Point
	// Infeasible reports whether the agent ended its run declaring the task
	// infeasible (OSWorld's FAIL action).
	Infeasible() bool
}

// ExecResult is what a finished command gave.
type ExecResult struct {
	Stdout, Stderr string
	Code           int
}

// Window is a top-level window of the task's display.
type Window struct {
	Title string      // _NET_WM_NAME, else WM_NAME
	Class []string    // WM_CLASS: instance and class ("vlc", "Vlc")
	Size  image.Point // the client window's size in pixels
}

// ErrNotCached is wrapped by Env.CloudFile for an input the cache lacks.
var ErrNotCached = errors.New("not cached")

// ErrUnavailable is wrapped by getters for a part of the desktop that this
// machine cannot give (no accessibility bus, no VM snapshot): the check cannot
// be done, which is never a pass.
var ErrUnavailable = errors.New("unavailable here")
