package browser_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"deskpilot/actions/browser"
)

// page serves body as text/html with the given charset.
func page(t *testing.T, body []byte, contentType string) string {
	t.Helper()
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(body)
	}))
	return srv.URL + "/hostile"
}

func TestHostilePages(t *testing.T) {
	cases := []struct {
		name     string
		body     func() []byte
		ctype    string
		contains []string // in the page text
		maxLen   int      // of the page text, 0 = no bound
	}{
		{
			name:     "200 levels of nesting",
			body:     func() []byte { return nested("div", 200, "<p>deep <b>text</b> survives</p>") },
			contains: []string{"deep **text** survives"},
		},
		{
			name:     "100000 levels of nesting",
			body:     func() []byte { return nested("div", 100000, "deep text survives") },
			contains: []string{"deep text survives"},
		},
		{
			name:     "100000 unclosed formatting tags",
			body:     func() []byte { return []byte("<p>start " + strings.Repeat("<b><i>", 50000) + "end of story</p>") },
			contains: []string{"start", "end of story"},
		},
		{
			name:     "100000 self-closed divs",
			body:     func() []byte { return []byte("<p>before</p>" + strings.Repeat("<div/>", 100000) + "<p>after</p>") },
			contains: []string{"before", "after"},
		},
		{
			name: "5 MB attributes",
			body: func() []byte {
				big, long := strings.Repeat("A", 5<<20), strings.Repeat("B", 2<<20)
				return []byte(`<html><body><div data-blob="` + big + `"><p>Visible text.</p>` +
					`<a href="https://example.com/?q=` + long + `">a long link</a> <img alt="x" src="data:image/png;base64,` + long + `"></div></body></html>`)
			},
			contains: []string{"Visible text.", "a long link"},
			maxLen:   2000,
		},
		{
			name: "invalid UTF-8",
			body: func() []byte {
				return []byte("<html><body><p>ok \xff\xfe caf\xc3\x28 \xed\xa0\x80 fine</p></body></html>")
			},
			ctype:    "text/html; charset=utf-8",
			contains: []string{"ok", "fine"},
		},
		{
			name: "latin-1 declared in meta",
			body: func() []byte {
				return []byte("<html><head><meta charset=\"iso-8859-1\"></head><body><p>Caf\xe9 cr\xe8me</p></body></html>")
			},
			ctype:    "text/html",
			contains: []string{"Café crème"},
		},
		{
			name:     "script-only page",
			body:     func() []byte { return []byte("<script>" + strings.Repeat("x=1;", 10000) + "</script>") },
			contains: []string{},
			maxLen:   1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctype := c.ctype
			if ctype == "" {
				ctype = "text/html; charset=utf-8"
			}
			url := page(t, c.body(), ctype)
			b := open(t, browser.Options{Viewport: 1 << 20})
			ans := visit(t, b, url)
			_, text := split(t, ans)
			if !utf8.ValidString(ans) {
				t.Errorf("answer is not valid UTF-8")
			}
			for _, want := range c.contains {
				if !strings.Contains(text, want) {
					t.Errorf("text lacks %q: %q", want, text[:min(len(text), 300)])
				}
			}
			if c.maxLen > 0 && len(text) > c.maxLen {
				t.Errorf("text is %d bytes, want at most %d: %q", len(text), c.maxLen, text[:min(len(text), 300)])
			}
		})
	}
}

// nested wraps inner in depth levels of tag.
func nested(tag string, depth int, inner string) []byte {
	open := "<" + tag + ">"
	end := "</" + tag + ">"
	return []byte("<html><body>" + strings.Repeat(open, depth) + inner + strings.Repeat(end, depth) + "</body></html>")
}

func TestPageLargerThanLimit(t *testing.T) {
	var body strings.Builder
	body.WriteString("<html><body>")
	for i := range 4000 {
		fmt.Fprintf(&body, "<p>Paragraph %d of a very long page about harbours and bridges.</p>\n", i)
	}
	body.WriteString("</body></html>")
	b := open(t, browser.Options{MaxBytes: 64 << 10, Viewport: 1 << 20})
	ans := visit(t, b, page(t, []byte(body.String()), "text/html"))
	_, text := split(t, ans)
	if !strings.HasPrefix(text, "Note: this page is larger than the 64 KiB limit; only the first 64 KiB were read.\n\nParagraph 0 ") {
		t.Errorf("no truncation notice at the top: %q", text[:min(len(text), 200)])
	}
	if strings.Contains(text, "Paragraph 3999 ") || !strings.Contains(text, "Paragraph 100 ") {
		t.Errorf("page not cut where expected")
	}
}

func TestDownloadLargerThanLimit(t *testing.T) {
	url := page(t, make([]byte, 100<<10), "application/pdf")
	b := open(t, browser.Options{MaxBytes: 64 << 10})
	_, err := b.Visit(t.Context(), url)
	if err == nil || !strings.Contains(err.Error(), "larger than the 64 KiB download limit") {
		t.Errorf("error = %v", err)
	}
}

func TestServerThatHangs(t *testing.T) {
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/silent", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/trickle", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><p>first bytes")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	srv := serve(t, mux)
	t.Cleanup(func() { close(release) }) // runs before srv.Close
	b := open(t, browser.Options{Timeout: 300 * time.Millisecond})
	for _, path := range []string{"/silent", "/trickle"} {
		t.Run(path, func(t *testing.T) {
			_, err := b.Visit(t.Context(), srv.URL+path)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("error = %v, want a deadline", err)
			}
			if !strings.Contains(err.Error(), "timed out after 300ms") {
				t.Errorf("error %q does not say it timed out", err)
			}
		})
	}
	t.Run("cancelled by the caller", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := b.Visit(ctx, srv.URL+"/silent")
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want context.Canceled", err)
		}
	})
}

// TestRefusalIsNoPortOracle: visiting a loopback name refuses with the same
// words whether a server listens on the port or not (issue 12, item 5).
func TestRefusalIsNoPortOracle(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "admin") }))
	_, open, _ := net.SplitHostPort(srv.Listener.Addr().String())
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, closed, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	b := browser.New(browser.Options{DownloadDir: t.TempDir()})
	var msgs []string
	for _, port := range []string{open, closed} {
		u := "http://localhost:" + port + "/"
		_, err := b.Visit(t.Context(), u)
		var be *browser.BlockedError
		if !errors.As(err, &be) {
			t.Fatalf("Visit(%s) = %v, want a BlockedError", u, err)
		}
		msgs = append(msgs, strings.ReplaceAll(err.Error(), u, "URL"))
	}
	if msgs[0] != msgs[1] {
		t.Errorf("the refusal differs by port:\n open:   %s\n closed: %s", msgs[0], msgs[1])
	}
}

// TestCheckURL covers the check open_url makes before the desktop browser
// opens an address: it resolves and refuses, and connects to nothing.
func TestCheckURLFunc(t *testing.T) {
	for _, c := range []struct {
		url          string
		allowPrivate bool
		ok           bool
	}{
		{"http://127.0.0.1:8080/", false, false},
		{"http://localhost/", false, false},
		{"http://[::ffff:10.0.0.1]/", false, false},
		{"http://169.254.169.254/latest", false, false},
		{"http://0.0.0.0/", false, false},
		{"http://[ff02::1]/", false, false},
		{"http://localhost/", true, true},
		{"file:///etc/passwd", true, false},
		{"https://93.184.216.34/", false, true},
	} {
		u, _ := url.Parse(c.url)
		err := browser.CheckURL(t.Context(), u, c.allowPrivate)
		if (err == nil) != c.ok {
			t.Errorf("CheckURL(%s, allowPrivate=%v) = %v", c.url, c.allowPrivate, err)
		}
	}
}
