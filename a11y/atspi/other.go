//go:build !linux

package atspi

import (
	"context"
	"runtime"

	"deskpilot/a11y"
)

// Client reads the accessibility tree of one X display. Off Linux there is no
// AT-SPI: Connect always fails with an *a11y.UnavailableError.
type Client struct{}

// Connect fails: AT-SPI exists only on Linux.
func Connect(ctx context.Context, o Options) (*Client, error) {
	return nil, &a11y.UnavailableError{Reason: "AT-SPI accessibility is only read on Linux, not on " + runtime.GOOS}
}

// Close does nothing.
func (c *Client) Close() error { return nil }

// Elements fails: AT-SPI exists only on Linux.
func (c *Client) Elements(ctx context.Context, q a11y.Query) ([]a11y.Element, a11y.Note, error) {
	return nil, a11y.Note{}, &a11y.UnavailableError{Reason: "AT-SPI accessibility is only read on Linux, not on " + runtime.GOOS}
}

// Text fails: AT-SPI exists only on Linux.
func (c *Client) Text(ctx context.Context, e a11y.Element) (string, error) {
	return "", &a11y.UnavailableError{Reason: "AT-SPI accessibility is only read on Linux, not on " + runtime.GOOS}
}
