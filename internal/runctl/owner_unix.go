//go:build unix

package runctl

import (
	"errors"
	"io/fs"
	"syscall"
)

// ownerOf is the user id owning a file.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// processExists reports whether a process pid runs (signal 0 reaches it,
// or it exists but is not ours to signal).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
