package xconn

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// Why an explicit authority: xgb reads the cookie of every connection from the
// file $XAUTHORITY names, once per dial, for the whole process. A process that
// drives several private displays at once (deskpilot eval: one Xvfb per task,
// each with a cookie of its own) cannot point that one variable at all of
// them. DialAuth reads the file it is given and hands xgb the cookie directly.

// Limits of what an authority file may hold.
const (
	// MaxAuthorityBytes is the largest authority file DialAuth reads (a real one
	// holds a few entries of under 100 bytes each).
	MaxAuthorityBytes = 1 << 20
	// dialTimeout bounds connecting and the connection setup handshake: a server
	// that accepts and never answers must not hang the caller.
	dialTimeout = 15 * time.Second
)

// Address families of authority entries (X11/Xauth.h).
const (
	familyInternet  = 0
	familyInternet6 = 6
	familyLocal     = 256
	familyWild      = 65535
)

const cookieName = "MIT-MAGIC-COOKIE-1"

// AuthEntry is one entry of an X authority file.
type AuthEntry struct {
	// Family is the address family: 0 IPv4, 6 IPv6, 256 local (Address is a
	// host name), 65535 any address.
	Family uint16
	// Address is the host address: raw IP bytes, or the host name for local.
	Address string
	// Number is the display number ("" matches every display).
	Number string
	// Name is the authorization protocol, e.g. MIT-MAGIC-COOKIE-1.
	Name string
	// Data is the secret: for MIT-MAGIC-COOKIE-1, the 16-byte cookie.
	Data []byte
}

// ParseAuthority reads the entries of an X authority file (the format of
// libXau: per entry a big-endian 16-bit family, then address, display number,
// protocol name and data, each a big-endian 16-bit length and its bytes). A
// file cut inside an entry is an error; an empty file has no entries.
func ParseAuthority(data []byte) ([]AuthEntry, error) {
	var out []AuthEntry
	for len(data) > 0 {
		if len(data) < 2 {
			return nil, fmt.Errorf("xconn: authority entry %d is cut short", len(out)+1)
		}
		e := AuthEntry{Family: binary.BigEndian.Uint16(data)}
		data = data[2:]
		fields := make([][]byte, 4)
		for i := range fields {
			if len(data) < 2 {
				return nil, fmt.Errorf("xconn: authority entry %d is cut short", len(out)+1)
			}
			n := int(binary.BigEndian.Uint16(data))
			if len(data) < 2+n {
				return nil, fmt.Errorf("xconn: authority entry %d is cut short", len(out)+1)
			}
			fields[i], data = data[2:2+n:2+n], data[2+n:]
		}
		e.Address, e.Number, e.Name = string(fields[0]), string(fields[1]), string(fields[2])
		e.Data = append([]byte(nil), fields[3]...)
		out = append(out, e)
	}
	return out, nil
}

// Display is a parsed X display name: "[protocol/][host]:number[.screen]" or
// "/path/to/socket:number[.screen]".
type Display struct {
	// Network and Address are what to dial ("unix", "/tmp/.X11-unix/X1"; "tcp",
	// "host:6001").
	Network, Address string
	// Host is the host part ("" for a local display).
	Host string
	// Number is the display number, as written.
	Number string
	// Screen is the screen number (0 unless given).
	Screen int
}

// Local reports whether the display is on this machine (a Unix socket).
func (d Display) Local() bool { return d.Network == "unix" }

// ParseDisplay parses an X display name as xgb dials it.
func ParseDisplay(name string) (Display, error) {
	bad := fmt.Errorf("xconn: bad display name %q: want [host]:N[.S]", name)
	colon := strings.LastIndex(name, ":")
	if colon < 0 {
		return Display{}, bad
	}
	var d Display
	protocol, socket := "", ""
	if strings.HasPrefix(name, "/") {
		socket = name[:colon]
	} else if slash := strings.LastIndex(name[:colon], "/"); slash >= 0 {
		protocol, d.Host = name[:slash], name[slash+1:colon]
	} else {
		d.Host = name[:colon]
	}
	num, scr, hasScreen := strings.Cut(name[colon+1:], ".")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || n > 65535-6000 || strconv.Itoa(n) != num {
		return Display{}, bad
	}
	d.Number = num
	if hasScreen {
		if d.Screen, err = strconv.Atoi(scr); err != nil || d.Screen < 0 || d.Screen > 255 {
			return Display{}, bad
		}
	}
	switch {
	case socket != "":
		d.Network, d.Address = "unix", socket+":"+num
	case d.Host == "" || d.Host == "unix" || protocol == "unix":
		if protocol != "" && protocol != "unix" {
			return Display{}, bad
		}
		d.Host, d.Network, d.Address = "", "unix", "/tmp/.X11-unix/X"+num
	default:
		switch protocol {
		case "", "tcp", "inet":
			d.Network = "tcp"
		case "inet6", "tcp6":
			d.Network = "tcp6"
		default:
			return Display{}, bad
		}
		d.Address = net.JoinHostPort(d.Host, strconv.Itoa(6000+n))
	}
	return d, nil
}

// CookieFor returns the MIT-MAGIC-COOKIE-1 that entries hold for display d, as
// hex, choosing as libXau does: the first entry whose family and address match
// the display's host (any address for family 65535; the host name for a local
// display; the IP for a TCP display given by its address) and whose number is
// d's or empty. hostname is this machine's name. Host names of TCP displays are
// not resolved: such a display needs a wildcard entry.
func CookieFor(entries []AuthEntry, d Display, hostname string) (string, error) {
	for _, e := range entries {
		if !e.matches(d, hostname) || (e.Number != "" && e.Number != d.Number) {
			continue
		}
		if e.Name != cookieName || len(e.Data) != 16 {
			continue // XDM-AUTHORIZATION-1 and others: xgb speaks only the cookie
		}
		return hex.EncodeToString(e.Data), nil
	}
	return "", fmt.Errorf("xconn: no %s for display %s", cookieName, d.Number)
}

func (e AuthEntry) matches(d Display, hostname string) bool {
	switch e.Family {
	case familyWild:
		return true
	case familyLocal:
		if d.Local() || d.Host == "localhost" {
			return e.Address == hostname
		}
		return d.Host == hostname && e.Address == hostname
	case familyInternet, familyInternet6:
		ip, err := netip.ParseAddr(d.Host)
		if d.Local() || err != nil {
			return false
		}
		return string(ip.Unmap().AsSlice()) == e.Address || string(ip.AsSlice()) == e.Address
	}
	return false
}

// ReadAuthority reads and parses the authority file at path, refusing one
// larger than MaxAuthorityBytes or anything but a regular file.
func ReadAuthority(path string) ([]AuthEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("xconn: authority file: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("xconn: authority file %s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxAuthorityBytes+1))
	if err != nil {
		return nil, fmt.Errorf("xconn: authority file: %w", err)
	}
	if len(data) > MaxAuthorityBytes {
		return nil, fmt.Errorf("xconn: authority file %s is larger than %d bytes", path, MaxAuthorityBytes)
	}
	entries, err := ParseAuthority(data)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return entries, nil
}

// DialAuth connects to display name ("" means $DISPLAY) with the cookie the X
// authority file xauthority holds for it, never reading $XAUTHORITY. With
// xauthority "" it is Dial: xgb's own lookup ($XAUTHORITY, else ~/.Xauthority).
// A file without a cookie for the display is an error.
func DialAuth(name, xauthority string) (*xgb.Conn, error) {
	if xauthority == "" {
		return Dial(name)
	}
	if name == "" {
		name = os.Getenv("DISPLAY")
	}
	d, err := ParseDisplay(name)
	if err != nil {
		return nil, err
	}
	entries, err := ReadAuthority(xauthority)
	if err != nil {
		return nil, err
	}
	hostname, _ := os.Hostname()
	cookie, err := CookieFor(entries, d, hostname)
	if err != nil {
		return nil, fmt.Errorf("%w in %s", err, xauthority)
	}
	dial := func() (net.Conn, error) {
		nc, err := net.DialTimeout(d.Network, d.Address, dialTimeout)
		if err == nil {
			_ = nc.SetDeadline(time.Now().Add(dialTimeout)) // the setup handshake
		}
		return nc, err
	}
	nc, err := dial()
	if err != nil {
		return nil, fmt.Errorf("xconn: connect to %s: %w", name, err)
	}
	c, err := DialNet(nc, cookie, dial)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("xconn: connect to %s: %w", name, err)
	}
	_ = nc.SetDeadline(time.Time{})
	if roots := len(xproto.Setup(c).Roots); d.Screen >= roots {
		Close(c)
		return nil, fmt.Errorf("xconn: display %s has %d screen(s), not %d", name, roots, d.Screen+1)
	}
	c.DefaultScreen = d.Screen
	return c, nil
}
