//go:build linux

package xdisplay

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb/xproto"
)

// TestAccessibilityBus starts a display with its own session and AT-SPI buses and
// checks the effect: a GTK application started on it registers on that
// accessibility bus (its PID shows up among the registry's applications), the root
// window advertises the bus, and Close leaves none of the bus processes behind.
func TestAccessibilityBus(t *testing.T) {
	t.Setenv("AT_SPI_BUS_ADDRESS", "unix:path=/nonexistent/deskpilot-test-bus")
	t.Setenv("NO_AT_BRIDGE", "1")
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	d, err := Start(ctx, Options{Width: 800, Height: 600, Accessibility: true})
	if err != nil {
		t.Fatal(err)
	}
	busPID := d.bus.cmd.Process.Pid
	closed := false
	defer func() {
		if !closed {
			d.Close()
		}
	}()
	if d.SessionBus == "" || d.AccessibilityBus == "" || d.SessionBus == d.AccessibilityBus {
		t.Fatalf("SessionBus %q, AccessibilityBus %q", d.SessionBus, d.AccessibilityBus)
	}
	env := d.Env()
	for _, want := range []string{"DBUS_SESSION_BUS_ADDRESS=" + d.SessionBus, "DISPLAY=" + d.Name} {
		if !slices.Contains(env, want) {
			t.Errorf("Env lacks %s", want)
		}
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "AT_SPI_BUS_ADDRESS=") || strings.HasPrefix(kv, "NO_AT_BRIDGE=") {
			t.Errorf("Env keeps %s", kv)
		}
	}
	root := xproto.Setup(d.conn).DefaultScreen(d.conn).Root
	if r, err := property(d.conn, root, "AT_SPI_BUS"); err != nil || r == nil || string(r.Value) != d.AccessibilityBus {
		t.Errorf("root AT_SPI_BUS = %v (%v), want %q", r, err, d.AccessibilityBus)
	}

	app, err := d.StartApp(ctx, "zenity", "--info", "--text", "registered?")
	if err != nil {
		t.Fatal(err)
	}
	defer app.Stop()
	if err := waitRegistered(ctx, d.AccessibilityBus, app.Cmd.Process.Pid); err != nil {
		t.Fatalf("%v (zenity output: %s)", err, app.Output())
	}

	group := processGroup(busPID)
	if len(group) < 3 { // dbus-daemon, at-spi-bus-launcher, the accessibility bus daemon
		t.Errorf("bus process group %d holds %v, want the bus, the launcher and its daemon", busPID, group)
	}
	app.Stop()
	closed = true
	closeAndCheck(t, d)
	for _, pid := range group {
		if alive(pid) {
			t.Errorf("bus process %d still runs after Close", pid)
		}
	}
}

// waitRegistered polls the AT-SPI registry on the bus at addr until an application
// owned by process pid is among its children.
func waitRegistered(ctx context.Context, addr string, pid int) error {
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return err
	}
	defer conn.Close()
	for {
		var apps []struct {
			Bus  string
			Path dbus.ObjectPath
		}
		err := conn.Object("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root").
			CallWithContext(ctx, "org.a11y.atspi.Accessible.GetChildren", 0).Store(&apps)
		if err == nil {
			for _, a := range apps {
				var p uint32
				if conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.GetConnectionUnixProcessID", 0, a.Bus).Store(&p) == nil && int(p) == pid {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("application pid %d never registered (last error %v): %w", pid, err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// alive reports whether process pid exists and is not a zombie (a container's
// init may leave orphans unreaped).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, ok := strings.Cut(string(stat), ") ")
	return ok && !strings.HasPrefix(rest, "Z")
}

// processGroup lists the processes whose process group is pgid.
func processGroup(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(pid); err == nil && g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}
