//go:build !linux

package a11y

import (
	"context"
	"runtime"
)

// Client reads the accessibility tree of one X display. Off Linux there is no
// AT-SPI: Connect always fails with an *UnavailableError.
type Client struct{}

// Connect fails: AT-SPI exists only on Linux.
func Connect(ctx context.Context, o Options) (*Client, error) {
	return nil, &UnavailableError{Reason: "AT-SPI accessibility is only read on Linux, not on " + runtime.GOOS}
}

// Close does nothing.
func (c *Client) Close() error { return nil }

// Elements fails: AT-SPI exists only on Linux.
func (c *Client) Elements(ctx context.Context, q Query) ([]Element, Note, error) {
	return nil, Note{}, &UnavailableError{Reason: "AT-SPI accessibility is only read on Linux, not on " + runtime.GOOS}
}
