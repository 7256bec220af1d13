package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeResolver answers from a table; other names do not resolve.
type fakeResolver map[string][]netip.Addr

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := f[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// countingServer is a loopback server that counts the connections made to it.
type countingServer struct {
	*httptest.Server
	conns  atomic.Int64
	probes int64
}

func newCountingServer(t *testing.T) *countingServer {
	t.Helper()
	cs := &countingServer{}
	cs.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<p>intranet secrets</p>")
	}))
	cs.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			cs.conns.Add(1)
		}
	}
	cs.Start()
	t.Cleanup(cs.Close)
	return cs
}

// connections is how many connections reached the server before now: it
// makes one itself and waits until the server has seen it, so connections
// made earlier have been counted too (they are accepted in order).
func (cs *countingServer) connections(t *testing.T) int64 {
	t.Helper()
	before := cs.conns.Load()
	c, err := net.Dial("tcp", cs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); cs.conns.Load() == before; {
		if time.Now().After(deadline) {
			t.Fatal("the server never saw the probe connection")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cs.probes++
	return cs.conns.Load() - cs.probes
}

// TestGuardNeverConnects: a host name that resolves to a refused address is
// refused before any connection, with a transport of the caller's own (whose
// dial function the guard used to call first and check after) and with the
// default one; the error does not depend on the port.
func TestGuardNeverConnects(t *testing.T) {
	srv := newCountingServer(t)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	closed := closedPort(t)
	res := fakeResolver{"intranet.test": {netip.MustParseAddr("127.0.0.1")}}
	own := &http.Transport{DialContext: (&net.Dialer{}).DialContext}
	for _, c := range []struct {
		name   string
		client *http.Client
	}{
		{"caller's transport", &http.Client{Transport: own}},
		{"default transport", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newBrowser(Options{Client: c.client, DownloadDir: t.TempDir()}, blockedReason, res)
			var msgs []string
			for _, p := range []string{port, closed} {
				u := "http://intranet.test:" + p + "/"
				_, err := b.Visit(t.Context(), u)
				var be *BlockedError
				if !errors.As(err, &be) {
					t.Fatalf("Visit(%s) error = %v, want a BlockedError", u, err)
				}
				msgs = append(msgs, strings.ReplaceAll(err.Error(), u, "URL"))
			}
			if msgs[0] != msgs[1] {
				t.Errorf("the refusal differs by port (a port-scan oracle):\n open:   %s\n closed: %s", msgs[0], msgs[1])
			}
			if strings.Contains(msgs[0], port) {
				t.Errorf("the refusal names the port: %s", msgs[0])
			}
			if n := srv.connections(t); n != 0 {
				t.Errorf("%d connection(s) reached the refused address before the refusal", n)
			}
		})
	}
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	return port
}

// TestGuardChecksEveryAddress: a name with one public and one private
// address is refused, whichever comes first.
func TestGuardChecksEveryAddress(t *testing.T) {
	pol := policy(blockedReason)
	res := fakeResolver{
		"mixed.test":  {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.7")},
		"mapped.test": {netip.MustParseAddr("::ffff:169.254.169.254")},
		"public.test": {netip.MustParseAddr("93.184.216.34")},
	}
	for _, c := range []struct{ host, reason string }{
		{"mixed.test", "private"},
		{"mapped.test", "link-local"},
		{"public.test", ""},
		{"[::1]", "loopback"},
	} {
		_, err := pol.addrs(t.Context(), res, strings.Trim(c.host, "[]"))
		var be *BlockedError
		switch {
		case c.reason == "" && err != nil:
			t.Errorf("%s: %v", c.host, err)
		case c.reason != "" && (!errors.As(err, &be) || be.Reason != c.reason):
			t.Errorf("%s: error = %v, want a %s refusal", c.host, err, c.reason)
		}
	}
}
