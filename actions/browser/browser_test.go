package browser_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"deskpilot/actions/browser"
)

const separator = "=======================\n"

// serve starts a test server for the handler and closes it at the end.
func serve(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// files serves testdata files at their names and a handful of pages.
func files(t *testing.T, pages map[string]string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/bridges/vellmar.html", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, "testdata/article.html")
	})
	for path, body := range pages {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		})
	}
	return serve(t, mux)
}

// open returns a browser allowed to reach the loopback test servers.
func open(t *testing.T, o browser.Options) *browser.Browser {
	t.Helper()
	o.AllowPrivate = true
	if o.DownloadDir == "" {
		o.DownloadDir = t.TempDir()
	}
	return browser.New(o)
}

// split returns the header lines and the viewport of an answer.
func split(t *testing.T, answer string) (header, viewport string) {
	t.Helper()
	h, v, ok := strings.Cut(answer, separator)
	if !ok {
		t.Fatalf("answer has no header separator:\n%s", answer)
	}
	return h, v
}

var position = regexp.MustCompile(`Viewport position: Showing page (\d+) of (\d+)\.`)

// pos reads "page X of Y" from an answer.
func pos(t *testing.T, answer string) (int, int) {
	t.Helper()
	m := position.FindStringSubmatch(answer)
	if m == nil {
		t.Fatalf("no viewport position in:\n%s", answer)
	}
	var x, y int
	fmt.Sscan(m[1], &x)
	fmt.Sscan(m[2], &y)
	return x, y
}

func visit(t *testing.T, b *browser.Browser, url string) string {
	t.Helper()
	out, err := b.Visit(t.Context(), url)
	if err != nil {
		t.Fatalf("Visit(%s): %v", url, err)
	}
	return out
}

func TestVisitArticlePaging(t *testing.T) {
	srv := files(t, nil)
	b := open(t, browser.Options{Viewport: 1000})
	first := visit(t, b, srv.URL+"/bridges/vellmar.html")

	header, view := split(t, first)
	wantHeader := "Address: " + srv.URL + "/bridges/vellmar.html\n" +
		"Title: The Harbour Bridge at Vellmar\n"
	if !strings.HasPrefix(header, wantHeader) {
		t.Errorf("header = %q, want prefix %q", header, wantHeader)
	}
	if !strings.HasPrefix(view, "# The Harbour Bridge at Vellmar\n\n") {
		t.Errorf("first viewport starts %q", view[:min(len(view), 120)])
	}
	x, total := pos(t, first)
	if x != 1 || total < 4 {
		t.Fatalf("position = %d of %d, want 1 of at least 4", x, total)
	}
	if up := b.PageUp(); up != first {
		t.Errorf("PageUp on the first viewport changed the answer:\n%s", up)
	}

	// Page to the end, collecting every viewport; then one more stays put.
	views := []string{view}
	for i := 2; i <= total; i++ {
		ans := b.PageDown()
		if got, _ := pos(t, ans); got != i {
			t.Fatalf("PageDown %d shows page %d", i, got)
		}
		_, v := split(t, ans)
		views = append(views, v)
	}
	last := b.PageDown()
	if got, _ := pos(t, last); got != total {
		t.Errorf("PageDown past the end shows page %d, want %d", got, total)
	}
	for i, v := range views[:len(views)-1] {
		if n := utf8.RuneCountInString(v); n < 1000 || n > 2000 {
			t.Errorf("viewport %d has %d characters, want 1000..2000", i+1, n)
		}
		if !strings.ContainsAny(v[len(v)-1:], " \n\t") {
			t.Errorf("viewport %d does not end at whitespace: %q", i+1, v[max(0, len(v)-20):])
		}
	}
	text := strings.Join(views, "")
	for _, want := range []string{
		"| Year | Vehicles per day |\n|---|---|\n| 1960 | 9,500 |\n| 2006 | 41,000 |\n| 2023 | 18,000 |",
		"[Image: The green steel arch of the Harbour Bridge at dusk]",
		"Read more: [North Cape lighthouse][1], [the old Linne ferry][2] and [the town archive][3].",
		"Links (visit_page(\"[N]\") opens one): [1] /lighthouses/north-cape.html · [2] /bridges/linne-ferry · [3] example.org",
		"\n\nShare this article",
		"The bridge opened on 14 March 1932.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("page text lacks %q", want)
		}
	}
	for _, junk := range []string{"tracking pixel", "font-family", "Accept all", "Most read", "All rights reserved", "enable JavaScript", "Lighthouses", "spacer.gif", "javascript:"} {
		if strings.Contains(text, junk) {
			t.Errorf("page text keeps page chrome or script %q", junk)
		}
	}
}

func TestFindOnPage(t *testing.T) {
	srv := files(t, nil)
	b := open(t, browser.Options{Viewport: 1000})
	visit(t, b, srv.URL+"/bridges/vellmar.html")
	_, total := pos(t, b.PageDown())
	b.PageUp()

	cases := []struct{ name, query, want string }{
		{"phrase", "bridge opened on 14 march", "The bridge opened on 14 March 1932."},
		{"case and punctuation", "OPENED ON 14-MARCH, 1932", "The bridge opened on 14 March 1932."},
		{"wildcard between words", "opened * 1932", "The bridge opened on 14 March 1932."},
		{"wildcard as zero words", "the bridge * opened on 14 march", "The bridge opened on 14 March 1932."},
		{"prefix wildcard", "photogr*", "printed photographs"},
		{"suffix wildcard", "*kilometres inland", "about 240 kilometres inland"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ans := b.Find(c.query)
			_, v := split(t, ans)
			if !strings.Contains(v, c.want) {
				t.Errorf("Find(%q) shows a viewport without %q:\n%s", c.query, c.want, ans)
			}
			b.PageUp()
			b.PageUp()
			b.PageUp()
			b.PageUp()
			b.PageUp()
		})
	}

	t.Run("miss leaves the viewport", func(t *testing.T) {
		before := b.PageDown()
		got := b.Find("suspension cable")
		if want := "The search string 'suspension cable' was not found on this page."; got != want {
			t.Errorf("Find miss = %q, want %q", got, want)
		}
		if got := b.FindNext(); got != "There is no search to continue; call find_on_page(text) first." {
			t.Errorf("FindNext after a miss = %q", got)
		}
		if after := b.PageUp(); after == before {
			t.Errorf("viewport changed by a missed find")
		}
	})

	t.Run("find next wraps around", func(t *testing.T) {
		for range total {
			b.PageDown()
		}
		// The last viewport holds the rest of the page (no match): the search
		// wraps to the title, the picture and the first sentence on page 1,
		// then the last paragraph on page 3, then wraps again.
		var pages []int
		ans := b.Find("harbour bridge")
		for range 5 {
			p, _ := pos(t, ans)
			pages = append(pages, p)
			ans = b.FindNext()
		}
		want := []int{1, 1, 1, 3, 1}
		if fmt.Sprint(pages) != fmt.Sprint(want) {
			t.Errorf("pages of successive matches = %v, want %v", pages, want)
		}
	})

	t.Run("no letters", func(t *testing.T) {
		if got := b.Find("***"); !strings.Contains(got, "needs some letters or digits") {
			t.Errorf("Find(***) = %q", got)
		}
	})
}

func TestRelativeLinks(t *testing.T) {
	srv := files(t, map[string]string{
		"/docs/a.html":   `<html><head><title>A</title></head><body><p>See <a href="b.html">B</a> and <a href="#top">top</a>.</p></body></html>`,
		"/docs/b.html":   `<html><head><title>B</title></head><body><p>Page B.</p></body></html>`,
		"/index.html":    `<html><head><title>Home</title></head><body><p>Home page.</p></body></html>`,
		"/based/x.html":  `<html><head><base href="/other/"><title>Based</title></head><body><a href="y.html">Y</a></body></html>`,
		"/docs/sub/c.md": `unused`,
	})
	b := open(t, browser.Options{})
	ans := visit(t, b, srv.URL+"/docs/a.html")
	if !strings.Contains(ans, "See [B][1] and [top][2].") || !strings.HasSuffix(ans, "\n\nLinks (visit_page(\"[N]\") opens one): [1] /docs/b.html · [2] /docs/a.html") {
		t.Errorf("links not resolved:\n%s", ans)
	}
	for _, c := range []struct{ ref, address string }{
		{"[1]", srv.URL + "/docs/b.html"}, // a link of the current page by number
		{"/docs/a.html", srv.URL + "/docs/a.html"},
		{"b.html", srv.URL + "/docs/b.html"},
		{"../index.html", srv.URL + "/index.html"},
		{"?page=2", srv.URL + "/index.html?page=2"},
		{"/docs/a.html", srv.URL + "/docs/a.html"},
	} {
		ans := visit(t, b, c.ref)
		if !strings.HasPrefix(ans, "Address: "+c.address+"\n") {
			t.Errorf("Visit(%q) from %s:\n%s", c.ref, b.Address(), ans)
		}
	}
	ans = visit(t, b, srv.URL+"/based/x.html")
	if !strings.Contains(ans, "[Y][1]") || !strings.HasSuffix(ans, "[1] /other/y.html") {
		t.Errorf("<base href> not honoured:\n%s", ans)
	}
}

func TestRedirects(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		if n == 0 {
			fmt.Fprint(w, "<html><head><title>Landed</title></head><body><p>Final page.</p></body></html>")
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	srv := serve(t, mux)
	b := open(t, browser.Options{MaxRedirects: 3})

	ans := visit(t, b, srv.URL+"/hop/3")
	if !strings.HasPrefix(ans, "Address: "+srv.URL+"/hop/0\nTitle: Landed\n") || !strings.Contains(ans, "Final page.") {
		t.Errorf("redirect chain of 3:\n%s", ans)
	}
	for _, c := range []struct{ path, want string }{
		{"/hop/4", "too many redirects: stopped after 3"},
		{"/loop", "too many redirects: stopped after 3"},
		{"/to-file", "only http and https addresses can be visited"},
	} {
		_, err := b.Visit(t.Context(), srv.URL+c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Visit(%s) error = %v, want %q", c.path, err, c.want)
		}
	}
	if b.Address() != srv.URL+"/hop/0" {
		t.Errorf("a failed visit changed the address to %s", b.Address())
	}
}

func TestPrivateAddresses(t *testing.T) {
	srv := files(t, map[string]string{"/": "<p>secret admin page</p>"})
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	guarded := browser.New(browser.Options{DownloadDir: t.TempDir()})
	cases := []struct{ name, url, reason string }{
		{"loopback literal", srv.URL + "/", "loopback"},
		{"localhost name", fmt.Sprintf("http://localhost:%d/", port), "loopback"},
		{"ipv6 loopback", fmt.Sprintf("http://[::1]:%d/", port), "loopback"},
		{"cloud metadata", "http://169.254.169.254/latest/meta-data/", "link-local"},
		{"private range", "http://10.1.2.3/", "private"},
		{"mapped ipv4", "http://[::ffff:127.0.0.1]:1/", "loopback"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := guarded.Visit(t.Context(), c.url)
			var be *browser.BlockedError
			if !errors.As(err, &be) {
				t.Fatalf("Visit(%s) error = %v, want a BlockedError", c.url, err)
			}
			if be.Reason != c.reason {
				t.Errorf("reason = %q, want %q", be.Reason, c.reason)
			}
			if !strings.Contains(err.Error(), "refusing to connect") {
				t.Errorf("error message %q does not say it refused", err)
			}
		})
	}
	t.Run("allowed when the option is set", func(t *testing.T) {
		b := open(t, browser.Options{})
		if ans := visit(t, b, fmt.Sprintf("http://localhost:%d/", port)); !strings.Contains(ans, "secret admin page") {
			t.Errorf("allowed visit:\n%s", ans)
		}
	})
}

func TestSchemes(t *testing.T) {
	b := open(t, browser.Options{})
	for _, u := range []string{"file:///etc/passwd", "ftp://example.com/x", "javascript:alert(1)", "http:///nohost", ""} {
		if _, err := b.Visit(t.Context(), u); err == nil {
			t.Errorf("Visit(%q) succeeded", u)
		}
	}
}

func TestHTTPErrorPage(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<html><head><title>Not here</title></head><body><h1>Page not found</h1><p>Try the <a href='/'>home page</a>.</p></body></html>")
	}))
	b := open(t, browser.Options{})
	got := visit(t, b, srv.URL+"/missing")
	want := "Address: " + srv.URL + "/missing\nTitle: Error 404\nViewport position: Showing page 1 of 1.\n" + separator +
		"## Error 404 Not Found\n\n# Page not found\n\nTry the [home page][1].\n\nLinks (visit_page(\"[N]\") opens one): [1] /"
	if got != want {
		t.Errorf("404 page:\n%s\nwant:\n%s", got, want)
	}
}

func TestPlainText(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
		w.Write([]byte("Caf\xe9 menu\r\n\r\n\r\n\r\nSoup   \r\n"))
	}))
	b := open(t, browser.Options{})
	_, v := split(t, visit(t, b, srv.URL+"/menu.txt"))
	if want := "Café menu\n\nSoup"; v != want {
		t.Errorf("text page = %q, want %q", v, want)
	}
}

func TestConcurrentUse(t *testing.T) {
	srv := files(t, nil)
	b := open(t, browser.Options{Viewport: 500})
	visit(t, b, srv.URL+"/bridges/vellmar.html")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 20 {
				switch i % 4 {
				case 0:
					b.PageDown()
				case 1:
					b.PageUp()
				case 2:
					b.Find("bridge")
					b.FindNext()
				case 3:
					if _, err := b.Visit(context.Background(), srv.URL+"/bridges/vellmar.html"); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	if !strings.HasPrefix(b.PageUp(), "Address: "+srv.URL) {
		t.Error("browser lost its page")
	}
}

func TestDownloadWithoutInspector(t *testing.T) {
	data := []byte("PK\x03\x04 not really a zip")
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/zip")
		w.Header().Set("Content-Disposition", `attachment; filename="../../etc/evil name.zip"`)
		w.Write(data)
	}))
	dir := t.TempDir()
	b := open(t, browser.Options{DownloadDir: dir})
	for _, name := range []string{"evil_name.zip", "evil_name__2.zip"} {
		ans := visit(t, b, srv.URL+"/get")
		saved := filepath.Join(dir, name)
		if !strings.Contains(ans, fmt.Sprintf("Saved the file (application/zip, %d bytes) to '%s'. No file inspector is configured", len(data), saved)) {
			t.Errorf("download answer:\n%s", ans)
		}
		got, err := os.ReadFile(saved)
		if err != nil || string(got) != string(data) {
			t.Errorf("saved file %s = %q, %v", saved, got, err)
		}
	}
}

// TestCheckURL: the caller's address policy is asked before a visit and at every
// redirect hop.
func TestCheckURL(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html><head><title>Fine</title></head><body><p>allowed</p></body></html>")
	})
	mux.HandleFunc("/to-banned", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/banned/page", http.StatusFound)
	})
	srv := serve(t, mux)
	var asked []string
	b := open(t, browser.Options{CheckURL: func(_ context.Context, u *url.URL) error {
		asked = append(asked, u.Path)
		if strings.HasPrefix(u.Path, "/banned") {
			return fmt.Errorf("refused by policy: %s", u.Path)
		}
		return nil
	}})
	if ans := visit(t, b, srv.URL+"/ok"); !strings.Contains(ans, "allowed") {
		t.Errorf("allowed page:\n%s", ans)
	}
	for _, path := range []string{"/banned/direct", "/to-banned"} {
		_, err := b.Visit(t.Context(), srv.URL+path)
		if err == nil || !strings.Contains(err.Error(), "refused by policy: /banned") {
			t.Errorf("Visit(%s) error = %v, want the policy's refusal", path, err)
		}
	}
	if want := "/ok /banned/direct /to-banned /banned/page"; strings.Join(asked, " ") != want {
		t.Errorf("policy asked for %q, want %q", strings.Join(asked, " "), want)
	}
}
