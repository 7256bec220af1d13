//go:build !linux

package desktop

import "context"

// DiagnoseWayland finds nothing where deskpilot has no Wayland backends.
func DiagnoseWayland(context.Context, Options, func(string) string) []Finding { return nil }
