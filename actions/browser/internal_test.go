package browser

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestBlockedReason(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"127.0.0.1", "loopback"},
		{"127.9.8.7", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"10.0.0.1", "private"},
		{"172.16.5.4", "private"},
		{"192.168.1.1", "private"},
		{"fd12:3456::1", "private"},
		{"169.254.169.254", "link-local"},
		{"fe80::1", "link-local"},
		{"0.0.0.0", "unspecified"},
		{"0.1.2.3", "unspecified"},
		{"::", "unspecified"},
		{"224.0.0.1", "link-local"},
		{"239.1.2.3", "multicast"},
		{"100.64.0.1", "reserved"},
		{"198.18.0.1", "reserved"},
		{"64:ff9b::a00:1", "private"}, // NAT64 of 10.0.0.1
		{"64:ff9b::808:808", ""},      // NAT64 of 8.8.8.8
		{"8.8.8.8", ""},
		{"93.184.216.34", ""},
		{"2606:4700::1111", ""},
	} {
		if got := blockedReason(netip.MustParseAddr(c.addr)); got != c.want {
			t.Errorf("blockedReason(%s) = %q, want %q", c.addr, got, c.want)
		}
	}
}

func TestControlDial(t *testing.T) {
	pol := policy(blockedReason)
	var be *BlockedError
	if err := pol.controlDial("tcp", "127.0.0.1:80", nil); !errors.As(err, &be) || be.Reason != "loopback" {
		t.Errorf("controlDial(127.0.0.1:80) = %v", err)
	}
	if err := pol.controlDial("tcp", "[2606:4700::1111]:443", nil); err != nil {
		t.Errorf("controlDial(public) = %v", err)
	}
}

// listen starts a test server on a given loopback address.
func listen(t *testing.T, addr string, h http.Handler) *httptest.Server {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// TestRedirectToPrivate checks that every redirect hop is checked against the
// address actually connected to. The test policy treats 127.0.0.1 as public
// and the rest of 127/8 as private, so a "public" server can redirect to a
// "private" one on the same machine.
func TestRedirectToPrivate(t *testing.T) {
	pol := policy(func(a netip.Addr) string {
		if a == netip.MustParseAddr("127.0.0.1") {
			return ""
		}
		return blockedReason(a)
	})
	inner := listen(t, "127.0.0.2:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<p>intranet secrets</p>")
	}))
	_, port, _ := net.SplitHostPort(inner.Listener.Addr().String())
	outer := listen(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/by-address":
			http.Redirect(w, r, inner.URL+"/", http.StatusFound)
		case "/by-name":
			http.Redirect(w, r, "http://intranet.test:"+port+"/", http.StatusFound)
		default:
			fmt.Fprint(w, "<p>public page</p>")
		}
	}))
	// A resolver that knows intranet.test, like a DNS rebinding attacker's
	// name would.
	res := fakeResolver{"intranet.test": {netip.MustParseAddr("127.0.0.2")}}
	b := newBrowser(Options{DownloadDir: t.TempDir()}, pol, res)

	if out, err := b.Visit(t.Context(), outer.URL+"/"); err != nil || !strings.Contains(out, "public page") {
		t.Fatalf("public page: %v\n%s", err, out)
	}
	for _, path := range []string{"/by-address", "/by-name"} {
		t.Run(path, func(t *testing.T) {
			_, err := b.Visit(t.Context(), outer.URL+path)
			var be *BlockedError
			if !errors.As(err, &be) {
				t.Fatalf("error = %v, want a BlockedError", err)
			}
			if be.Addr != netip.MustParseAddr("127.0.0.2") {
				t.Errorf("blocked address = %s, want 127.0.0.2", be.Addr)
			}
		})
	}
}

func TestSplitViewports(t *testing.T) {
	long := strings.Repeat("ж", 3000) // no whitespace, 2 bytes per rune
	for _, c := range []struct {
		name  string
		text  string
		size  int
		runes []int // rune count of each viewport
	}{
		{"empty", "", 10, []int{0}},
		{"short", "one two", 10, []int{7}},
		{"cut after whitespace", "aaaa bbbb cccc dddd", 6, []int{10, 9}},
		{"no whitespace is capped at two sizes", long, 1000, []int{2000, 1000}},
	} {
		t.Run(c.name, func(t *testing.T) {
			bounds := splitViewports(c.text, c.size)
			var got []int
			var joined strings.Builder
			for i := 0; i+1 < len(bounds); i++ {
				piece := c.text[bounds[i]:bounds[i+1]]
				if !utf8.ValidString(piece) {
					t.Errorf("viewport %d splits a character", i)
				}
				got = append(got, utf8.RuneCountInString(piece))
				joined.WriteString(piece)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.runes) {
				t.Errorf("viewport sizes = %v, want %v", got, c.runes)
			}
			if joined.String() != c.text {
				t.Error("viewports do not add up to the text")
			}
		})
	}
}

func TestCompileQuery(t *testing.T) {
	text := buildIndex("The Quick-Brown fox, jumped over the lazy dog; photosynthesis 1932.").norm
	for _, c := range []struct {
		query string
		match string // "" = no match
	}{
		{"quick brown", "quick brown"},
		{"QUICK-BROWN FOX!", "quick brown fox"},
		{"the * fox", "the quick brown fox"},
		{"brown * fox", "brown fox"},
		{"photo*", "photo"},
		{"*synthesis", "synthesis"},
		{"fox*dog", "fox jumped over the lazy dog"},
		{"uick", ""},
		{"lazy cat", ""},
		{"1932", "1932"},
	} {
		re := compileQuery(c.query)
		m := re.FindStringSubmatch(text)
		got := ""
		if m != nil {
			got = m[1]
		}
		if got != c.match {
			t.Errorf("compileQuery(%q) matched %q, want %q (pattern %s)", c.query, got, c.match, re)
		}
	}
	for _, q := range []string{"", "*", " ** ", "!?"} {
		if compileQuery(q) != nil {
			t.Errorf("compileQuery(%q) is not nil", q)
		}
	}
}

func TestFileName(t *testing.T) {
	for _, c := range []struct{ url, ctype, disposition, want string }{
		{"https://x.test/papers/report.pdf", "application/pdf", "", "report.pdf"},
		{"https://x.test/download?id=7", "application/pdf", "", "download.pdf"},
		{"https://x.test/get", "application/zip", `attachment; filename="..\..\win.zip"`, "win.zip"},
		{"https://x.test/", "image/jpeg", "", "download.jpg"},
		{"https://x.test/.hidden", "text/csv", "", "hidden.csv"},
		{"https://x.test/" + strings.Repeat("n", 300) + ".xlsx", "", "", strings.Repeat("n", 95) + ".xlsx"},
	} {
		r := &response{contentType: c.ctype, disposition: c.disposition}
		r.url, _ = url.Parse(c.url)
		if got := fileName(r); got != c.want {
			t.Errorf("fileName(%s, %s, %q) = %q, want %q", c.url, c.ctype, c.disposition, got, c.want)
		}
	}
}

func TestDecodeRedirect(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1&rut=x", "https://example.com/a?b=1"},
		{"https://www.google.com/url?q=https://example.org/page&sa=U&ved=x", "https://example.org/page"},
		{"https://www.google.de/url?url=https://example.org/x", "https://example.org/x"},
		{"https://www.bing.com/ck/a?!&&p=abc&u=a1aHR0cHM6Ly9leGFtcGxlLm5ldC9wYXRo&ntb=1", "https://example.net/path"},
		{"https://duckduckgo.com/l/?uddg=javascript%3Aalert(1)", "https://duckduckgo.com/l/?uddg=javascript%3Aalert(1)"},
		{"https://example.com/url?q=https://evil.test/", "https://example.com/url?q=https://evil.test/"},
	} {
		u, _ := url.Parse(c.in)
		if got := decodeRedirect(u).String(); got != c.want {
			t.Errorf("decodeRedirect(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestCompactLinks(t *testing.T) {
	text, links := compactLinks("See [A](https://a.test/x) and ![pic](https://img.test/p.png), [A again](https://a.test/x), ![](https://t.test/pixel.gif) [g](https://www.google.com/url?q=https://b.test/)")
	if want := "See [A][1] and [Image: pic], [A again][1],  [g][2]"; text != want {
		t.Errorf("text = %q, want %q", text, want)
	}
	if strings.Join(links, " ") != "https://a.test/x https://b.test/" {
		t.Errorf("links = %v", links)
	}
}
