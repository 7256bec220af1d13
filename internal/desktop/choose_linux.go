package desktop

import (
	"fmt"
	"strings"
)

// Choose picks the backend for o when Options.Backend is "", from the
// session's variables (getenv): an X display named with --x-display is
// x11's; a Wayland session (WAYLAND_DISPLAY, XDG_SESSION_TYPE=wayland) is
// gnome's on GNOME, portal's on KDE and wlroots' on every other compositor;
// anything else is x11's. why says which variable decided.
func Choose(o Options, getenv func(string) string) (name, why string) {
	if o.XDisplay != "" {
		return "x11", "--x-display names an X display"
	}
	socket := o.Wayland
	if socket == "" {
		socket = getenv("WAYLAND_DISPLAY")
	}
	session := getenv("XDG_SESSION_TYPE")
	if socket == "" && session != "wayland" {
		if getenv("DISPLAY") == "" {
			return DefaultBackend, "neither WAYLAND_DISPLAY nor DISPLAY is set"
		}
		return "x11", "not a Wayland session (WAYLAND_DISPLAY is unset, DISPLAY=" + getenv("DISPLAY") + ")"
	}
	on := "WAYLAND_DISPLAY=" + socket
	if socket == "" {
		on = "XDG_SESSION_TYPE=wayland"
	}
	desk := getenv("XDG_CURRENT_DESKTOP")
	has := func(names ...string) bool {
		for _, d := range strings.Split(desk, ":") {
			for _, n := range names {
				if strings.EqualFold(strings.TrimSpace(d), n) {
					return true
				}
			}
		}
		return false
	}
	switch {
	case has("GNOME", "Unity", "Pantheon", "Budgie"):
		return "gnome", fmt.Sprintf("%s and XDG_CURRENT_DESKTOP=%s: GNOME's compositor, Mutter, is driven through its RemoteDesktop and ScreenCast D-Bus API", on, desk)
	case has("KDE"):
		return "portal", fmt.Sprintf("%s and XDG_CURRENT_DESKTOP=%s: KWin offers no wlroots protocols, so the desktop portal's RemoteDesktop is used", on, desk)
	case socket == "":
		return "x11", "XDG_SESSION_TYPE=wayland but WAYLAND_DISPLAY is unset: only an X display (Xwayland) can be reached"
	case desk == "":
		return "wlroots", on + " and no XDG_CURRENT_DESKTOP: a wlroots compositor's protocols are tried"
	}
	return "wlroots", fmt.Sprintf("%s and XDG_CURRENT_DESKTOP=%s: a wlroots compositor (sway, Hyprland, labwc, river, ...)", on, desk)
}
