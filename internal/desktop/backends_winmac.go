//go:build windows || darwin

package desktop

// DefaultBackend is the backend Open uses when Options.Backend is "": robotgo
// on Windows and macOS (it needs cgo; a build without cgo has no backend).
const DefaultBackend = "robotgo"

// backends lists the backends of this build by name.
func backends() map[string]opener {
	m := map[string]opener{}
	if open := robotgoOpener(); open != nil {
		m["robotgo"] = open
	}
	return m
}
