//go:build linux

package eval

import (
	"bufio"
	"encoding/hex"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBusProxyAuth speaks D-Bus's authentication protocol through a busProxy
// to a bus stand-in: the EXTERNAL identity the client claims (the box's uid)
// reaches the bus as the harness's uid, NEGOTIATE_UNIX_FD is refused by the
// proxy without reaching the bus, and after BEGIN bytes pass unchanged both
// ways. A client whose line never ends within the bound is cut off.
func TestBusProxyAuth(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("unix", filepath.Join(dir, "bus"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	p, err := startBusProxy(filepath.Join(dir, "proxy"), filepath.Join(dir, "bus"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	deadline := time.Now().Add(30 * time.Second)
	dial := func() (net.Conn, *bufio.Reader) {
		c, err := net.Dial("unix", p.path)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(deadline)
		return c, bufio.NewReader(c)
	}
	accept := func() (net.Conn, *bufio.Reader) {
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(deadline)
		return c, bufio.NewReader(c)
	}
	line := func(r *bufio.Reader, who string) string {
		s, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: %v (read %q)", who, err, s)
		}
		return s
	}

	client, fromBus := dial()
	defer client.Close()
	if _, err := client.Write([]byte("\x00AUTH EXTERNAL " + hex.EncodeToString([]byte("1000")) + "\r\n")); err != nil {
		t.Fatal(err)
	}
	bus, fromClient := accept()
	defer bus.Close()
	if b, err := fromClient.ReadByte(); err != nil || b != 0 {
		t.Fatalf("credentials byte %v, %v", b, err)
	}
	want := "AUTH EXTERNAL " + hex.EncodeToString([]byte(strconv.Itoa(os.Getuid()))) + "\r\n"
	if got := line(fromClient, "bus"); got != want {
		t.Errorf("the bus got %q, want %q", got, want)
	}
	io.WriteString(bus, "OK 0123456789abcdef0123456789abcdef\r\n")
	if got := line(fromBus, "client"); !strings.HasPrefix(got, "OK ") {
		t.Errorf("the client got %q, want the bus's OK", got)
	}
	io.WriteString(client, "NEGOTIATE_UNIX_FD\r\n")
	if got := line(fromBus, "client"); !strings.HasPrefix(got, "ERROR") {
		t.Errorf("NEGOTIATE_UNIX_FD answered %q, want ERROR", got)
	}
	io.WriteString(client, "BEGIN\r\n\x6c\x01hello")
	if got := line(fromClient, "bus"); got != "BEGIN\r\n" {
		t.Errorf("the bus got %q after OK, want BEGIN (NEGOTIATE_UNIX_FD must not reach it)", got)
	}
	msg := make([]byte, 7)
	if _, err := io.ReadFull(fromClient, msg); err != nil || string(msg) != "\x6c\x01hello" {
		t.Errorf("the bus got %q, %v after BEGIN", msg, err)
	}
	io.WriteString(bus, "\x6c\x02world")
	if _, err := io.ReadFull(fromBus, msg); err != nil || string(msg) != "\x6c\x02world" {
		t.Errorf("the client got %q, %v", msg, err)
	}

	t.Run("endless line", func(t *testing.T) {
		c, r := dial()
		defer c.Close()
		go func() {
			c.Write([]byte("\x00AUTH EXTERNAL "))
			c.Write([]byte(strings.Repeat("3", 2*busAuthLine)))
		}()
		b, bf := accept()
		defer b.Close()
		if n, _ := io.Copy(io.Discard, bf); n > 1 {
			t.Errorf("the bus got %d bytes of an endless line", n)
		}
		if n, _ := io.Copy(io.Discard, r); n != 0 { // EOF, or reset: it had unread bytes
			t.Errorf("the client got %d bytes; want the connection closed", n)
		}
	})
}

// TestBoxBuses: programs in the box use the display's session bus with libdbus
// (dbus-send) and GDBus, and reach its AT-SPI bus, through the box's proxies.
func TestBoxBuses(t *testing.T) {
	needTools(t, "dbus-send", "gdbus")
	b := testBox(t)
	res, err := b.exec(t.Context(), shell(`dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.ListNames | grep -c org.a11y.Bus
gdbus call --session --dest org.a11y.Bus --object-path /org/a11y/bus --method org.a11y.Bus.GetAddress
dbus-send --bus="$(xprop -root AT_SPI_BUS | cut -d'"' -f2)" --print-reply --dest=org.a11y.atspi.Registry /org/a11y/atspi/accessible/root org.freedesktop.DBus.Peer.Ping && echo registry=ok`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1\n", unixPath(b.d.AccessibilityBus), "registry=ok"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("the box says:\n%s%s\nwant %q in it", res.stdout, res.stderr, want)
		}
	}
}
