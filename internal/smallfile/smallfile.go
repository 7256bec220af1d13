// Package smallfile reads a whole file that has a size limit, without ever
// holding more than the limit: task files, settings, the files a check reads.
// It imports no deskpilot package.
package smallfile

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// Read returns the content of the regular file at path, or an error naming
// path when it is not a regular file (a FIFO would block, a device never
// end) or holds more than max bytes, also when it grows while being read.
func Read(path string, max int64) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO for reading would wait for a writer; this
	// way it opens at once, and Stat refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d allowed", path, fi.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: more than the %d bytes allowed", path, max)
	}
	return data, nil
}
