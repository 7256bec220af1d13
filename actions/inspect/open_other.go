//go:build !unix

package inspect

import "os"

// openNoBlock opens p for reading. Outside Unix there are no named pipes in
// the file system to block on; the kind of file is checked after the open.
func openNoBlock(p string) (*os.File, error) { return os.Open(p) }
