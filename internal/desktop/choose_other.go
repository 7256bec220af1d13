//go:build !linux

package desktop

// Choose picks the backend for o when Options.Backend is "": the platform's
// default (DefaultBackend) outside Linux.
func Choose(o Options, getenv func(string) string) (name, why string) {
	return DefaultBackend, "the default on this system"
}
