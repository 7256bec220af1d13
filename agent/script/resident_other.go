//go:build !linux

package script

// residentBytes is unknown off Linux: the child's soft memory limit (its Go
// runtime's) is the only bound there.
func residentBytes(int) (int64, bool) { return 0, false }
