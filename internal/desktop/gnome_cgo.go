//go:build linux && cgo

package desktop

// waylandOpeners are the Wayland backends whose frames come from PipeWire
// (cgo): gnome and portal.
func waylandOpeners() map[string]opener { return map[string]opener{} }
