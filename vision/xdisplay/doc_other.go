//go:build !linux

// Package xdisplay owns private X displays (Xvfb and openbox) for tests,
// evaluation and CI. It needs Linux (process groups, parent-death signals):
// on other systems the package is empty.
package xdisplay
