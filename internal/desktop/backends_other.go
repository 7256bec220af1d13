//go:build !linux && !windows && !darwin

package desktop

// DefaultBackend is the backend Open uses when Options.Backend is "". This
// system has none: Open explains that.
const DefaultBackend = "none"

// backends lists the backends of this build by name: none here.
func backends() map[string]opener { return map[string]opener{} }
