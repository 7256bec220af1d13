//go:build !linux

// Package eval runs evaluation suites on private X displays, which need Linux
// (Xvfb, process groups): on other systems the package is empty and
// `deskpilot eval` says so.
package eval
