package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"

	"deskpilot/internal/config"
	"deskpilot/internal/desktop"
)

// waylandBackends are the backends that drive a Wayland session.
var waylandBackends = []string{"wlroots", "gnome", "portal"}

// doctorWayland prints, in a Wayland session or with a Wayland backend set,
// the compositor, the backend chosen and why, each protocol and D-Bus API
// found or missing, the portal implementations and the portals.conf traps,
// each failure with its fix. It reports whether nothing failed.
func doctorWayland(ctx context.Context, w io.Writer, cfg config.Config) bool {
	wayland := os.Getenv("WAYLAND_DISPLAY") != "" || os.Getenv("XDG_SESSION_TYPE") == "wayland"
	if !wayland && !slices.Contains(waylandBackends, cfg.Backend) {
		return true
	}
	ok := true
	for _, f := range desktop.DiagnoseWayland(ctx, desktop.Options{Backend: cfg.Backend}, os.Getenv) {
		mark := "ok  "
		switch {
		case f.Note:
			mark = "note"
		case !f.OK:
			mark, ok = "FAIL", false
		}
		fmt.Fprintf(w, "%s %-10s %s\n", mark, f.Name, f.Detail)
		if f.Fix != "" && !f.OK {
			fmt.Fprintf(w, "%-15s fix: %s\n", "", f.Fix)
		}
	}
	return ok
}
