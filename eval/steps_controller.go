//go:build linux

package eval

import (
	"context"
	"fmt"
)

// runControllerStep runs a SetupController step not run in steps.go.
func (b *box) runControllerStep(ctx context.Context, s step) error {
	if s.cannot != "" {
		return &UnsupportedError{What: "config step", Name: s.kind + ": " + s.cannot}
	}
	return fmt.Errorf("unknown step type %q", s.kind)
}
