//go:build cgo && darwin

package desktop

import (
	"errors"
	"image"
	"time"
)

// systemIdle is unsupported on macOS in this build: takeover then goes by the
// pointer position only.
func systemIdle() (time.Duration, error) { return 0, errors.ErrUnsupported }

// systemOwnWindows is unsupported on macOS in this build: the app's window is
// then neither masked nor protected from clicks.
func systemOwnWindows(int) ([]image.Rectangle, error) { return nil, errors.ErrUnsupported }
