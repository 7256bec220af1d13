//go:build linux

package xdisplay

import (
	"bufio"
	"context"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/godbus/dbus/v5"
)

const (
	dbusDaemonBinary = "dbus-daemon"
	a11yBusName      = "org.a11y.Bus"
	a11yBusPath      = "/org/a11y/bus"
)

// a11yEnv rewrites env for a child of a display with its own session bus. It drops
// the variables that would point an application at another bus or switch its
// accessibility bridge off, sets DBUS_SESSION_BUS_ADDRESS to bus, and switches
// accessibility on in toolkits that ask first: Qt reads
// QT_LINUX_ACCESSIBILITY_ALWAYS_ON, GTK 2 and Java's ATK wrapper
// GNOME_ACCESSIBILITY. GTK 3 needs neither (it registers whenever it finds the bus).
func a11yEnv(env []string, bus string) []string {
	env = dropEnv(env, "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS", "NO_AT_BRIDGE", "GTK_A11Y",
		"QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "GNOME_ACCESSIBILITY")
	return append(env, "DBUS_SESSION_BUS_ADDRESS="+bus, "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1", "GNOME_ACCESSIBILITY=1")
}

// startSessionBus runs a private session bus (dbus-daemon --session) for the display
// and activates the AT-SPI bus launcher on it by asking it for the accessibility
// bus. Everything the bus starts (the launcher, the accessibility bus daemon and the
// registry) stays in the bus daemon's process group, so Close stops it all.
//
// The bus gets XDG_RUNTIME_DIR set to the display's temporary directory: the
// launcher puts its socket there (instead of ~/.cache/at-spi), and Close removes it.
//
// With onlyA11y the bus reads a configuration of its own (busConfig): the
// session bus's, with the AT-SPI launcher's service file as the only one it
// may start.
func (d *Display) startSessionBus(ctx context.Context, onlyA11y bool) error {
	args := []string{"--session", "--nofork", "--nopidfile", "--print-address=3"}
	if onlyA11y {
		conf, err := d.writeBusConfig()
		if err != nil {
			return fmt.Errorf("xdisplay: session bus configuration: %w", err)
		}
		args[0] = "--config-file=" + conf
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("xdisplay: pipe: %w", err)
	}
	defer r.Close()
	stderr := &limitedBuffer{max: 8 << 10}
	cmd := exec.Command(dbusDaemonBinary, args...)
	env := dropEnv(d.Env(), "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS", "NO_AT_BRIDGE", "GTK_A11Y", "XDG_RUNTIME_DIR")
	cmd.Env = append(env, "XDG_RUNTIME_DIR="+d.dir)
	cmd.Dir = d.dir
	cmd.ExtraFiles = []*os.File{w}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	d.bus, err = startProc(cmd)
	w.Close()
	if err != nil {
		return fmt.Errorf("xdisplay: start %s: %w", dbusDaemonBinary, err)
	}
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	select {
	case a := <-addr:
		if a == "" {
			return fmt.Errorf("xdisplay: %s exited before printing its address: %s", dbusDaemonBinary, tail(stderr.String()))
		}
		d.SessionBus = a
	case <-ctx.Done():
		return fmt.Errorf("xdisplay: waiting for %s: %w", dbusDaemonBinary, ctx.Err())
	}
	a11y, err := accessibilityBus(ctx, d.SessionBus)
	if err != nil {
		return fmt.Errorf("xdisplay: accessibility bus: %w (bus output: %s)", err, tail(stderr.String()))
	}
	d.AccessibilityBus = a11y
	return nil
}

// a11yServiceFiles are where the AT-SPI launcher's service file may be.
var a11yServiceFiles = []string{"/usr/share/dbus-1/services/org.a11y.Bus.service", "/usr/local/share/dbus-1/services/org.a11y.Bus.service"}

// writeBusConfig writes, in the display's folder, a session bus
// configuration (the policy and limits of dbus-daemon's session.conf) whose
// only service folder holds a copy of the AT-SPI launcher's service file,
// and returns its path.
func (d *Display) writeBusConfig() (string, error) {
	var svc []byte
	var err error
	for _, f := range a11yServiceFiles {
		if svc, err = os.ReadFile(f); err == nil {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("the AT-SPI bus launcher's service file (is at-spi2-core installed?): %w", err)
	}
	dir := filepath.Join(d.dir, "services")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "org.a11y.Bus.service"), svc, 0o600); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(`<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <servicedir>`)
	if err := xml.EscapeText(&b, []byte(dir)); err != nil {
		return "", err
	}
	b.WriteString(`</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
  <limit name="max_incoming_bytes">1000000000</limit>
  <limit name="max_outgoing_bytes">1000000000</limit>
  <limit name="max_message_size">1000000000</limit>
  <limit name="service_start_timeout">120000</limit>
  <limit name="auth_timeout">240000</limit>
  <limit name="pending_fd_timeout">150000</limit>
  <limit name="max_completed_connections">100000</limit>
  <limit name="max_incomplete_connections">10000</limit>
  <limit name="max_connections_per_user">100000</limit>
  <limit name="max_pending_service_starts">10000</limit>
  <limit name="max_names_per_connection">50000</limit>
  <limit name="max_match_rules_per_connection">50000</limit>
  <limit name="max_replies_per_connection">50000</limit>
</busconfig>
`)
	conf := filepath.Join(d.dir, "session-bus.conf")
	return conf, os.WriteFile(conf, []byte(b.String()), 0o600)
}

// accessibilityBus asks the session bus at addr for the AT-SPI bus address, which
// starts at-spi-bus-launcher through D-Bus activation; the launcher answers once its
// bus daemon runs.
func accessibilityBus(ctx context.Context, addr string) (string, error) {
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("connect to session bus: %w", err)
	}
	defer conn.Close()
	var a11y string
	err = conn.Object(a11yBusName, a11yBusPath).CallWithContext(ctx, a11yBusName+".GetAddress", 0).Store(&a11y)
	if err != nil {
		return "", fmt.Errorf("%s.GetAddress (is at-spi2-core installed?): %w", a11yBusName, err)
	}
	if a11y == "" {
		return "", fmt.Errorf("%s.GetAddress returned no address", a11yBusName)
	}
	return a11y, nil
}

// dropEnv returns env without the variables named in names.
func dropEnv(env []string, names ...string) []string {
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			if k == n {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}
