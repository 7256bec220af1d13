//go:build linux && !cgo

package desktop

// waylandOpeners are the backends that need cgo (libpipewire for frames):
// none in a build without cgo.
func waylandOpeners() map[string]opener { return nil }
