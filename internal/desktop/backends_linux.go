package desktop

// DefaultBackend is the backend Open uses when Options.Backend is "" and the
// session is not a Wayland one (Choose): x11 on Linux, where deskpilot's own
// XTest and MIT-SHM code drives any display.
const DefaultBackend = "x11"

// backends lists the backends of this build by name.
func backends() map[string]opener {
	m := map[string]opener{"x11": openX11, "wlroots": openWlroots}
	if open := robotgoOpener(); open != nil {
		m["robotgo"] = open
	}
	for name, open := range waylandOpeners() {
		m[name] = open
	}
	return m
}
