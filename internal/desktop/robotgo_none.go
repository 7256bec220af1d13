//go:build !cgo || !(linux || windows || darwin)

package desktop

// robotgoOpener is nil: robotgo needs cgo and Linux, Windows or macOS.
func robotgoOpener() opener { return nil }
