//go:build !linux

// Package testapps runs the small target apps that end-to-end tests drive on a
// private X display; it needs Linux (vision/xdisplay), and is empty elsewhere.
package testapps
