package desktop

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"

	"deskpilot/internal/mutter"
	"deskpilot/internal/portal"
	"deskpilot/internal/swayipc"
	"deskpilot/internal/wl"
	"deskpilot/internal/wlroots"
)

// wlrootsProtocols are the Wayland interfaces the wlroots backend uses, and
// whether it needs them.
var wlrootsProtocols = []struct {
	iface, use string
	need       bool
}{
	{wl.ZwlrScreencopyManagerV1Interface, "capture", true},
	{"ext_image_copy_capture_manager_v1", "capture (newer protocol; deskpilot uses wlr screencopy)", false},
	{wl.ZwlrVirtualPointerManagerV1Interface, "pointer", true},
	{wl.ZwpVirtualKeyboardManagerV1Interface, "keyboard", true},
	{wl.ZxdgOutputManagerV1Interface, "output layout and scale", false},
	{wl.ZwlrForeignToplevelManagerV1Interface, "window list", false},
	{wl.OrgKdeKwinIdleInterface, "idle time (takeover)", false},
}

// DiagnoseWayland says which backend a Wayland session gets and why, what
// the compositor, Mutter and the desktop portal offer, and which portal
// set-up traps are present, each with its fix. name is the backend in use
// (Options.Backend, or Choose's).
func DiagnoseWayland(ctx context.Context, o Options, getenv func(string) string) []Finding {
	var out []Finding
	add := func(f Finding) { out = append(out, f) }
	add(Finding{Name: "session", Note: true, Detail: fmt.Sprintf("WAYLAND_DISPLAY=%q XDG_SESSION_TYPE=%q XDG_CURRENT_DESKTOP=%q",
		getenv("WAYLAND_DISPLAY"), getenv("XDG_SESSION_TYPE"), getenv("XDG_CURRENT_DESKTOP"))})
	name, why := Choose(o, getenv)
	if o.Backend != "" {
		name, why = o.Backend, "set with --backend (the session alone would pick "+name+": "+why+")"
	}
	add(Finding{Name: "backend", OK: true, Detail: name + ": " + why})
	out = append(out, diagnoseCompositor(ctx, o, name)...)
	out = append(out, diagnoseDBus(ctx, o, name, getenv)...)
	return out
}

func diagnoseCompositor(ctx context.Context, o Options, backend string) []Finding {
	socket, err := waylandSocket(o)
	if err != nil {
		return []Finding{{Name: "compositor", OK: backend != "wlroots", Note: backend != "wlroots", Detail: err.Error(),
			Fix: "run deskpilot inside the Wayland session (WAYLAND_DISPLAY set)"}}
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := wlroots.Dial(cctx, socket)
	if err != nil {
		return []Finding{{Name: "compositor", Detail: err.Error(), Fix: "is the compositor running? WAYLAND_DISPLAY names its socket"}}
	}
	defer c.Close()
	detail := fmt.Sprintf("%s: %d globals", socket, len(c.Globals()))
	if path, err := swayipc.Find(socket); err == nil {
		if s, err := swayipc.Dial(path); err == nil {
			if v, err := s.Version(cctx); err == nil {
				detail = "sway " + v + " at " + detail + "; IPC " + path + " (window geometry, own windows)"
			}
			s.Close()
		}
	}
	out := []Finding{{Name: "compositor", OK: true, Detail: detail}}
	for _, p := range wlrootsProtocols {
		f := Finding{Name: "protocol", OK: true, Detail: p.iface + ": missing (" + p.use + ")"}
		for _, g := range c.Globals() {
			if g.Interface == p.iface {
				f.Detail = fmt.Sprintf("%s v%d: found (%s)", p.iface, g.Version, p.use)
			}
		}
		if strings.HasSuffix(f.Detail, ")") && strings.Contains(f.Detail, ": missing") {
			switch {
			case backend == "wlroots" && p.need:
				f.OK, f.Fix = false, "this compositor cannot be driven by the wlroots backend; on GNOME use --backend gnome, on KDE --backend portal"
			default:
				f.Note = true
			}
		}
		out = append(out, f)
	}
	return out
}

func diagnoseDBus(ctx context.Context, o Options, backend string, getenv func(string) string) []Finding {
	conn, err := mutter.Connect(o.SessionBus)
	if err != nil {
		return []Finding{{Name: "dbus", OK: backend == "wlroots", Note: backend == "wlroots", Detail: err.Error(),
			Fix: "the gnome and portal backends need the session bus (DBUS_SESSION_BUS_ADDRESS)"}}
	}
	defer conn.Close()
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var out []Finding
	for _, api := range []struct{ name, path, iface string }{
		{"org.gnome.Mutter.RemoteDesktop", "/org/gnome/Mutter/RemoteDesktop", "org.gnome.Mutter.RemoteDesktop"},
		{"org.gnome.Mutter.ScreenCast", "/org/gnome/Mutter/ScreenCast", "org.gnome.Mutter.ScreenCast"},
	} {
		f := Finding{Name: "mutter", OK: true}
		v, err := conn.Object(api.name, dbus.ObjectPath(api.path)).GetProperty(api.iface + ".Version")
		if err != nil {
			f.Detail = api.name + ": missing"
			if backend == "gnome" {
				f.OK, f.Fix = false, "the gnome backend needs GNOME's Mutter; elsewhere use --backend wlroots or portal"
			} else {
				f.Note = true
			}
		} else {
			f.Detail = fmt.Sprintf("%s version %v: found", api.name, v.Value())
		}
		out = append(out, f)
	}
	rd, sc, err := portal.Versions(cctx, conn)
	switch {
	case err != nil:
		f := Finding{Name: "portal", OK: backend != "portal", Note: backend != "portal", Detail: err.Error(),
			Fix: "install xdg-desktop-portal and the desktop's implementation (xdg-desktop-portal-gnome or -kde)"}
		out = append(out, f)
	default:
		f := Finding{Name: "portal", OK: true, Detail: fmt.Sprintf("RemoteDesktop version %d, ScreenCast version %d", rd, sc)}
		out = append(out, f)
		if rd < 2 {
			out = append(out, Finding{Name: "portal", Note: true, Detail: NoPersistNote(rd)})
		}
	}
	out = append(out, diagnosePortalConf(getenv, backend)...)
	if backend == "gnome" || backend == "portal" {
		out = append(out, diagnoseXwayland(conn, o, backend))
	}
	return out
}

// portalVersion is xdg-desktop-portal's version ("1.16.0"), or "".
func portalVersion() string {
	for _, p := range []string{"/usr/libexec/xdg-desktop-portal", "/usr/lib/xdg-desktop-portal"} {
		if b, err := exec.Command(p, "--version").Output(); err == nil {
			if m := regexp.MustCompile(`\d+\.\d+(\.\d+)?`).Find(b); m != nil {
				return string(m)
			}
		}
	}
	return ""
}

// readsPortalsConf reports whether xdg-desktop-portal of version v reads
// portals.conf (1.17 and later); true when the version is unknown.
func readsPortalsConf(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return true
	}
	major, _ := strconv.Atoi(parts[0])
	minor, _ := strconv.Atoi(parts[1])
	return major > 1 || (major == 1 && minor >= 17)
}

func diagnosePortalConf(getenv func(string) string, backend string) []Finding {
	return portalConfFindings(FindPortalConfig(DefaultPortalDirs(getenv), getenv("XDG_CURRENT_DESKTOP")), portalVersion(), backend)
}

// portalConfFindings turns a portal set-up into findings: the
// implementations, the portals.conf in force, the files skipped, and whether
// RemoteDesktop and ScreenCast have an implementation.
func portalConfFindings(pc PortalConfig, version, backend string) []Finding {
	var out []Finding
	var impls []string
	for _, p := range pc.Impls {
		s := p.Name
		var has []string
		for _, i := range []string{"RemoteDesktop", "ScreenCast"} {
			if p.Has(i) {
				has = append(has, i)
			}
		}
		if len(has) > 0 {
			s += " (" + strings.Join(has, ", ") + ")"
		}
		impls = append(impls, s)
	}
	if len(impls) == 0 {
		impls = []string{"none installed"}
	}
	out = append(out, Finding{Name: "portals", Note: true, Detail: "implementations: " + strings.Join(impls, ", ")})
	reads := readsPortalsConf(version)
	for _, path := range pc.Ignored {
		out = append(out, Finding{Name: "portals", OK: false,
			Detail: path + " cannot be read by the user the portal runs as (mode 0600 of another user?), so xdg-desktop-portal skips it without a word",
			Fix:    "chmod 644 " + path})
	}
	switch {
	case pc.Conf == "":
		out = append(out, Finding{Name: "portals", Note: true, Detail: "no portals.conf: each implementation's UseIn decides"})
	case !reads:
		out = append(out, Finding{Name: "portals", Note: true, Detail: fmt.Sprintf("%s is there, but xdg-desktop-portal %s (before 1.17) does not read portals.conf: UseIn decides", pc.Conf, version)})
	default:
		out = append(out, Finding{Name: "portals", Note: true, Detail: "in force: " + pc.Conf})
	}
	for _, iface := range []string{"RemoteDesktop", "ScreenCast"} {
		f := Finding{Name: "portals", OK: true, Detail: iface + " served by " + pc.Chosen[iface]}
		if pc.Chosen[iface] == "" {
			f.OK = false
			f.Detail = iface + ": no implementation serves it"
			conf := pc.Conf
			if conf == "" || !reads {
				conf = "~/.config/xdg-desktop-portal/portals.conf"
			}
			f.Fix = fmt.Sprintf("an implementation without %s wins; add org.freedesktop.impl.portal.%s=gnome (GNOME) or =kde (KDE) under [preferred] in %s, or install xdg-desktop-portal-gnome / -kde", iface, iface, conf)
			if backend != "portal" {
				f.OK, f.Note = true, true
			}
		}
		out = append(out, f)
	}
	return out
}

// TakeoverNote is what the person should be told when the backend the
// session gets cannot see them take over (it sees no idle time, so the
// agent would go on while they type): "" when it can.
func TakeoverNote(ctx context.Context, o Options, getenv func(string) string) string {
	const stop = " Press Pause or Stop to take over."
	name := o.Backend
	if name == "" {
		name, _ = Choose(o, getenv)
	}
	idleOnBus := func() bool {
		conn, err := mutter.Connect(o.SessionBus)
		if err != nil {
			return false
		}
		defer conn.Close()
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		_, err = mutter.Idle(cctx, conn)
		return err == nil
	}
	switch name {
	case "wlroots":
		socket, err := waylandSocket(o)
		if err != nil {
			return ""
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		c, err := wlroots.Dial(cctx, socket)
		if err != nil {
			return ""
		}
		defer c.Close()
		if !c.Has(wl.OrgKdeKwinIdleInterface) {
			return "This compositor does not tell deskpilot when you use the mouse or keyboard." + stop
		}
	case "gnome":
		if !idleOnBus() {
			return "GNOME does not tell deskpilot when you use the keyboard here." + stop
		}
	case "portal":
		if !idleOnBus() {
			return "The desktop portal shows deskpilot your pointer but not your keyboard." + stop
		}
	}
	return ""
}
