//go:build !linux

package xdisplay

import (
	"errors"
	"fmt"
	"os/exec"
)

// proc is a started child process; off Linux none is ever started.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// startProc fails off Linux: private displays need Xvfb, process groups and
// parent-death signals. The error wraps errors.ErrUnsupported.
func startProc(*exec.Cmd) (*proc, error) {
	return nil, fmt.Errorf("private X displays need Linux: %w", errors.ErrUnsupported)
}

func (p *proc) stop() error { return nil }

// ownGroup leaves cmd as it is: there are no process groups to give it.
func ownGroup(*exec.Cmd) {}
