package browser

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// BlockedError reports a connection refused because its address is private,
// loopback, link-local or otherwise not on the public internet.
type BlockedError struct {
	Host   string     // the host name or address that was asked for
	Addr   netip.Addr // the address it resolved to
	Reason string     // "loopback", "private", "link-local", ...
}

// Error implements error.
func (e *BlockedError) Error() string {
	host := e.Host
	if host == e.Addr.String() || host == "" {
		return fmt.Sprintf("refusing to connect to %s: it is a %s address, and the browser only visits public addresses unless private ones are allowed in the settings", e.Addr, e.Reason)
	}
	return fmt.Sprintf("refusing to connect to %s (%s): it is a %s address, and the browser only visits public addresses unless private ones are allowed in the settings", host, e.Addr, e.Reason)
}

var (
	sharedSpace = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT
	thisNet     = netip.MustParsePrefix("0.0.0.0/8")
	benchmark   = netip.MustParsePrefix("198.18.0.0/15")
	ietfProto   = netip.MustParsePrefix("192.0.0.0/24")
	nat64       = netip.MustParsePrefix("64:ff9b::/96")
)

// blockedReason says why addr is not a public address, or "" when it is.
func blockedReason(addr netip.Addr) string {
	addr = addr.Unmap()
	if nat64.Contains(addr) { // judge the embedded IPv4 address
		b := addr.As16()
		addr = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	switch {
	case !addr.IsValid():
		return "invalid"
	case addr.IsLoopback():
		return "loopback"
	case addr.IsPrivate():
		return "private"
	case addr.IsLinkLocalUnicast(), addr.IsLinkLocalMulticast():
		return "link-local"
	case addr.IsUnspecified(), thisNet.Contains(addr):
		return "unspecified"
	case addr.IsMulticast(), addr.IsInterfaceLocalMulticast():
		return "multicast"
	case sharedSpace.Contains(addr), benchmark.Contains(addr), ietfProto.Contains(addr):
		return "reserved"
	}
	return ""
}

// policy says why an address must not be connected to, or "" when it may.
// blockedReason is the real one; tests substitute their own.
type policy func(netip.Addr) string

// checkHost refuses a host that is itself a non-public IP literal. Names are
// checked when they are dialled, against the address they resolve to.
func (pol policy) checkHost(host string) error {
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return nil
	}
	if r := pol(addr); r != "" {
		return &BlockedError{Host: host, Addr: addr.Unmap(), Reason: r}
	}
	return nil
}

// controlDial is a net.Dialer Control function: it runs after name resolution,
// for every address the dialer tries, before the connection is made.
func (pol policy) controlDial(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("unexpected dial address %q: %w", address, err)
	}
	if r := pol(ap.Addr()); r != "" {
		return &BlockedError{Addr: ap.Addr().Unmap(), Reason: r}
	}
	return nil
}

type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// checkedDial wraps a caller-supplied dial function: it refuses non-public IP
// literals up front and checks the address actually connected to afterwards.
func (pol policy) checkedDial(inner dialFunc) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err == nil {
			if err := pol.checkHost(host); err != nil {
				return nil, err
			}
		}
		conn, err := inner(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if ta, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
			ip, _ := netip.AddrFromSlice(ta.IP)
			if r := pol(ip); r != "" {
				_ = conn.Close()
				return nil, &BlockedError{Host: host, Addr: ip.Unmap(), Reason: r}
			}
		}
		return conn, nil
	}
}

// guardedTransport returns a RoundTripper for rt that refuses non-public
// addresses at dial time. An *http.Transport (or nil, meaning the default) is
// cloned and its dialer guarded; it never uses a proxy, so the check sees the
// real destination. Any other RoundTripper is wrapped with a check of the
// resolved host name before each request, which is weaker (the name could
// resolve differently when dialled).
func (pol policy) guardedTransport(rt http.RoundTripper, timeout time.Duration) http.RoundTripper {
	var t *http.Transport
	switch v := rt.(type) {
	case nil:
		t = http.DefaultTransport.(*http.Transport).Clone()
	case *http.Transport:
		t = v.Clone()
	default:
		return &resolvingGuard{next: rt, pol: pol}
	}
	t.Proxy = nil
	if t.DialContext != nil {
		t.DialContext = pol.checkedDial(t.DialContext)
	} else {
		d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: pol.controlDial}
		t.DialContext = d.DialContext
	}
	return t
}

// resolvingGuard checks the resolved addresses of each request's host.
type resolvingGuard struct {
	next http.RoundTripper
	pol  policy
}

func (g *resolvingGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	host := req.URL.Hostname()
	if err := g.pol.checkHost(host); err != nil {
		return nil, err
	}
	addrs, err := net.DefaultResolver.LookupNetIP(req.Context(), "ip", host)
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		if r := g.pol(a); r != "" {
			return nil, &BlockedError{Host: host, Addr: a.Unmap(), Reason: r}
		}
	}
	return g.next.RoundTrip(req)
}
