//go:build linux && cgo

package pipewire

import (
	"os"

	"golang.org/x/sys/unix"
)

// dupFD returns a duplicate of f's descriptor that the caller owns, and
// closes f.
func dupFD(f *os.File) (int, error) {
	defer f.Close()
	return unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
}
