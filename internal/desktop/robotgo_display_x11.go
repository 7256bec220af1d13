//go:build cgo && linux && !wayland

package desktop

import "github.com/go-vgo/robotgo"

// closeRobotgoDisplay closes robotgo's process-wide X display.
func closeRobotgoDisplay() { robotgo.CloseMainDisplay() }
