package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
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
		return fmt.Sprintf("refusing to connect to %s: it is a %s address, and the browser only visits public addresses unless the person allows private ones (browser_allow_private = true in the config or DESKPILOT_BROWSER_ALLOW_PRIVATE=1)", e.Addr, e.Reason)
	}
	return fmt.Sprintf("refusing to connect to %s (%s): it is a %s address, and the browser only visits public addresses unless the person allows private ones (browser_allow_private = true in the config or DESKPILOT_BROWSER_ALLOW_PRIVATE=1)", host, e.Addr, e.Reason)
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

// resolver looks host names up; net.DefaultResolver outside tests.
type resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// checkHost refuses a host that is itself a non-public IP literal. Names are
// checked when they are resolved, before any connection (see addrs).
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

// addrs resolves host (an IP literal stays itself) and checks every address
// it resolves to: one non-public address refuses the host, so a name that
// mixes public and private addresses cannot be steered to the private one.
// The error names the host and the address, never the port, and is the same
// whatever is listening there.
func (pol policy) addrs(ctx context.Context, res resolver, host string) ([]netip.Addr, error) {
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		ips, err = res.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, fmt.Errorf("cannot resolve %s: %w", host, err)
		}
		if len(ips) == 0 {
			return nil, fmt.Errorf("cannot resolve %s: no addresses", host)
		}
	}
	for _, ip := range ips {
		if r := pol(ip); r != "" {
			return nil, &BlockedError{Host: host, Addr: ip.Unmap(), Reason: r}
		}
	}
	return ips, nil
}

// controlDial is a net.Dialer Control function: it runs for every address
// the dialer tries, before the connection is made. The guarded dial only
// ever dials checked addresses; this is a second lock on the same door.
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

// guardedDial resolves the host first, refuses it when any of its addresses
// is not public, and only then dials, by address, one allowed address after
// another: no packet goes to a refused address, so the refusal reveals
// nothing about what listens there.
func (pol policy) guardedDial(res resolver, dial dialFunc) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("dial %q: %w", addr, err)
		}
		ips, err := pol.addrs(ctx, res, host)
		if err != nil {
			return nil, err
		}
		var lastErr error
		for _, ip := range ips {
			conn, err := dial(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
			if err == nil {
				return conn, nil
			}
			lastErr = err
			if ctx.Err() != nil {
				break
			}
		}
		return nil, lastErr
	}
}

// guardedTransport returns a RoundTripper for rt that refuses non-public
// addresses before dialling. An *http.Transport (or nil, meaning the
// default) is cloned and its dialer guarded; it never uses a proxy, so the
// check sees the real destination. Any other RoundTripper is wrapped with a
// check of the resolved host name before each request, which is weaker (the
// name could resolve differently when dialled).
func (pol policy) guardedTransport(rt http.RoundTripper, timeout time.Duration, res resolver) http.RoundTripper {
	var t *http.Transport
	switch v := rt.(type) {
	case nil:
		t = http.DefaultTransport.(*http.Transport).Clone()
	case *http.Transport:
		t = v.Clone()
	default:
		return &resolvingGuard{next: rt, pol: pol, res: res}
	}
	t.Proxy = nil
	dial := t.DialContext
	if dial == nil {
		d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second, Control: pol.controlDial}
		dial = d.DialContext
	}
	t.DialContext = pol.guardedDial(res, dial)
	t.DialTLSContext = nil // TLS then runs over the guarded dial
	return t
}

// resolvingGuard checks the resolved addresses of each request's host.
type resolvingGuard struct {
	next http.RoundTripper
	pol  policy
	res  resolver
}

func (g *resolvingGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	if _, err := g.pol.addrs(req.Context(), g.res, req.URL.Hostname()); err != nil {
		return nil, err
	}
	return g.next.RoundTrip(req)
}

// CheckURL reports whether the agent may open u: only http and https, and,
// unless allowPrivate, only hosts whose every address is public (not
// loopback, private, link-local, unspecified, multicast or reserved, also in
// IPv4-mapped and NAT64 forms). It resolves the name and connects to
// nothing. The agent's open_url calls it before handing an address to the
// desktop browser.
func CheckURL(ctx context.Context, u *url.URL, allowPrivate bool) error {
	if u == nil {
		return errors.New("browser: no address to check")
	}
	if err := checkScheme(u); err != nil {
		return fmt.Errorf("browser: %w", err)
	}
	if allowPrivate {
		return nil
	}
	if _, err := policy(blockedReason).addrs(ctx, net.DefaultResolver, u.Hostname()); err != nil {
		return fmt.Errorf("browser: %w", err)
	}
	return nil
}
