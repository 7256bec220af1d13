//go:build !linux

package hotkey

import "context"

// Watch is not available on this platform: it returns ErrUnavailable.
func Watch(ctx context.Context, o Options, fire func()) error { return ErrUnavailable }
