//go:build !unix && !windows

package desktop

import (
	"errors"
	"fmt"
)

// launch is unsupported on this system.
func launch(_ []string, name string, _ ...string) (int, error) {
	return 0, fmt.Errorf("launch %s: %w", name, errors.ErrUnsupported)
}
