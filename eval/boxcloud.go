//go:build linux

package eval

import (
	"context"
	"fmt"

	"deskpilot/eval/checks"
)

// cloudFile returns the local copy of url from the harness's download cache.
//
// Placeholder until the harness's fetch cache lands: nothing is cached, so a
// cloud_file getter reports its URL as not cached. The harness replaces this
// file.
func (b *box) cloudFile(_ context.Context, url string) (string, error) {
	return "", fmt.Errorf("%w: %s", checks.ErrNotCached, url)
}
