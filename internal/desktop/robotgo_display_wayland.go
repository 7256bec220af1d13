//go:build cgo && linux && wayland

package desktop

// closeRobotgoDisplay does nothing in a build with the wayland tag (the
// app's native Wayland window, see docs/wayland.md): robotgo built with that
// tag has no X display of its own to close.
func closeRobotgoDisplay() {}
