//go:build unix

package inspect

import (
	"os"
	"syscall"
)

// openNoBlock opens p for reading without blocking on a named pipe or a
// device and without following a symlink at the last step (the path given is
// already resolved, so a link there now was swapped in after the check).
func openNoBlock(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}
