//go:build linux

package eval

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"deskpilot/internal/wait"
)

// With --task-network host a task's box shares the machine's ports. OSWorld's
// Chrome tasks start `socat tcp-listen:9222,fork tcp:localhost:1337`, which
// binds without SO_REUSEADDR: for about a minute after the task before it
// ended, the port is still held by that task's connections in TCP's
// TIME_WAIT, socat exits at once with "Address already in use", and the
// task's DevTools steps fail. So before such a launch the harness waits
// until the port can be bound as socat binds it.

// hostPortWait bounds that wait: TIME_WAIT lasts 60 s on Linux.
const hostPortWait = 75 * time.Second

// listenPort is the port a socat command listens on (tcp-listen:PORT,...),
// or 0.
func listenPort(argv []string) int {
	if len(argv) == 0 || filepath.Base(argv[0]) != "socat" {
		return 0
	}
	for _, a := range argv[1:] {
		l := strings.ToLower(a)
		for _, p := range []string{"tcp-listen:", "tcp4-listen:", "tcp-l:", "tcp4-l:"} {
			if rest, ok := strings.CutPrefix(l, p); ok {
				rest, _, _ = strings.Cut(rest, ",")
				if n, err := strconv.Atoi(rest); err == nil && n > 0 && n < 65536 {
					return n
				}
			}
		}
	}
	return 0
}

// portFree reports whether a socket without SO_REUSEADDR can bind port on
// every IPv4 address, as socat's tcp-listen does.
func portFree(port int) bool {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return true // cannot tell: let socat try
	}
	defer syscall.Close(fd)
	return syscall.Bind(fd, &syscall.SockaddrInet4{Port: port}) == nil
}

// waitHostPort waits, with the host's network, until the port a socat
// launch listens on is free (at most hostPortWait).
func (b *box) waitHostPort(ctx context.Context, argv []string) error {
	port := listenPort(argv)
	if !b.hostNet || port == 0 || portFree(port) {
		return nil
	}
	b.log.printf("port %d of this machine is still held (an earlier task's connections in TIME_WAIT): waiting for it\n", port)
	deadline := time.Now().Add(hostPortWait)
	for !portFree(port) {
		if time.Now().After(deadline) {
			b.log.printf("port %d still held after %s: launching anyway\n", port, hostPortWait)
			return nil
		}
		if err := wait.Sleep(ctx, 500*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}
