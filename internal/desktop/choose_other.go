//go:build !linux

package desktop

import "context"

// Choose picks the backend for o when Options.Backend is "": the platform's
// default (DefaultBackend) outside Linux.
func Choose(o Options, getenv func(string) string) (name, why string) {
	return DefaultBackend, "the default on this system"
}

// TakeoverNote is "" outside Linux: the backends there see the person's input.
func TakeoverNote(ctx context.Context, o Options, getenv func(string) string) string { return "" }
