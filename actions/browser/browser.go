// Package browser is deskpilot's text web browser: the research half of the
// agent's tools next to the file inspector. It fetches pages over HTTP(S),
// renders HTML as markdown — the article first (Mozilla Readability's
// algorithm, through readeck/go-readability), then the rest of the page —
// and shows it like a terminal pager: a header (Address, Title, Viewport
// position), one viewport of text, and the viewport's links as numbered
// references ("[label][3]", with the sites in a footer; visit_page("[3]")
// follows one), so addresses do not crowd the text. It has page up/down,
// find on page (case-insensitive, "*" wildcard, wrapping), web search through
// pluggable backends (DuckDuckGo's HTML page, SearXNG, Brave, Serper) and the
// Wayback Machine; search engines' redirect links are decoded to their
// targets. Responses that are not HTML or text are saved to the downloads
// folder and opened through an injected inspector.
//
// Safety: only http and https are fetched; for every connection, including
// each redirect hop, the host is resolved and every address it resolves to is
// checked before anything is dialled: private, loopback, link-local and other
// non-public addresses are refused (unless Options.AllowPrivate is set), with
// the same error whatever listens there, and only checked addresses are
// dialled. CheckURL applies the same check without connecting. Responses are capped in size and time; hostile pages (deep nesting, huge
// attributes, invalid UTF-8, endless redirects) give readable text or a clear
// error. The package reads no environment variables and does not log.
package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Defaults for Options fields left at their zero value.
const (
	DefaultTimeout      = 20 * time.Second
	DefaultMaxBytes     = 10 << 20 // 10 MiB
	DefaultMaxRedirects = 10
	DefaultViewport     = 5120 // characters
	DefaultWaybackURL   = "https://archive.org/wayback/available"
	DefaultUserAgent    = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0 deskpilot/1"
)

// Options configure a Browser. The zero value is a working browser for public
// web pages with DuckDuckGo search.
type Options struct {
	// Client is the HTTP client to start from; nil means a new one. For visits
	// its transport is cloned and guarded (see AllowPrivate) and its redirect
	// policy and timeout replaced. The Wayback API is queried with it as is.
	Client *http.Client
	// Timeout bounds each fetch, reading the body included; 0 means 20s.
	Timeout time.Duration
	// MaxBytes caps the bytes read from one response; 0 means 10 MiB. Longer
	// pages are truncated with a notice; longer downloads are refused.
	MaxBytes int64
	// MaxRedirects is how many redirects a visit follows; 0 means 10, a
	// negative value none.
	MaxRedirects int
	// Viewport is the number of characters per viewport; 0 means 5120.
	Viewport int
	// AllowPrivate lets visits reach private, loopback and link-local
	// addresses (the agent sets it from its config or
	// DESKPILOT_BROWSER_ALLOW_PRIVATE=1).
	AllowPrivate bool
	// Search answers web searches; nil means DuckDuckGo{}.
	Search SearchBackend
	// WaybackURL is the Wayback Machine availability endpoint; "" means
	// DefaultWaybackURL.
	WaybackURL string
	// DownloadDir receives non-HTML responses; "" means a temporary directory
	// made on the first download.
	DownloadDir string
	// Inspect turns a downloaded file into text (the agent passes the file
	// inspector); nil means downloads are saved but not read.
	Inspect func(ctx context.Context, path string) (string, error)
	// UserAgent is sent with every request; "" means DefaultUserAgent.
	UserAgent string
	// CheckURL, when set, is asked before every visit and every redirect hop;
	// an error refuses the address (the agent's allow/deny policy by domain,
	// its confirmation before data leaves after reading private files). It may
	// block on a person; ctx is the visit's.
	CheckURL func(ctx context.Context, u *url.URL) error
	// CheckRequest, when set, is asked before every request leaves — each
	// visit and redirect hop, the Wayback API — with the request as it will
	// be sent; an error refuses it (the agent refuses requests that would
	// send a secret in their address, headers or body).
	CheckRequest func(req *http.Request) error
}

// Browser is one run's text browser: it holds the current page, viewport and
// find state. Its methods are safe for concurrent use; calls that change the
// page take effect in the order they finish.
type Browser struct {
	opts   Options
	pol    policy       // which addresses visits refuse
	client *http.Client // guarded, for visits
	api    *http.Client // unguarded, for configured endpoints

	mu     sync.Mutex
	page   *page
	find   *findState
	dlDir  string
	dlOnce sync.Once
	dlErr  error
}

// findState is the last find_on_page query and where it matched.
type findState struct {
	re *regexp.Regexp
	at int // norm offset of the last match
}

// New returns a Browser showing about:blank, with o's defaults filled in.
func New(o Options) *Browser { return newBrowser(o, blockedReason, net.DefaultResolver) }

func newBrowser(o Options, pol policy, res resolver) *Browser {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = DefaultMaxRedirects
	} else if o.MaxRedirects < 0 {
		o.MaxRedirects = 0
	}
	if o.Viewport <= 0 {
		o.Viewport = DefaultViewport
	}
	if o.Search == nil {
		o.Search = DuckDuckGo{}
	}
	if o.WaybackURL == "" {
		o.WaybackURL = DefaultWaybackURL
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	api := o.Client
	if api == nil {
		api = &http.Client{}
	}
	b := &Browser{opts: o, pol: pol, api: api, dlDir: o.DownloadDir}
	c := *api
	c.Timeout = 0 // the context carries the deadline
	if !o.AllowPrivate {
		c.Transport = pol.guardedTransport(api.Transport, o.Timeout, res)
	}
	c.CheckRedirect = b.checkRedirect
	if o.CheckRequest != nil {
		c.Transport = checkedTransport{next: c.Transport, check: o.CheckRequest}
		a := *api
		a.Transport = checkedTransport{next: api.Transport, check: o.CheckRequest}
		b.api = &a
	}
	b.client = &c
	b.page = newPage("about:blank", "", "", o.Viewport, true)
	return b
}

// Address is the address of the page shown ("about:blank" at first).
func (b *Browser) Address() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.page.address
}

// Visit fetches rawURL (resolved against the current address when relative)
// and shows its first viewport. HTTP error statuses are shown as a page
// ("## Error 404 ..."); network failures, refused addresses and timeouts are
// returned as errors.
func (b *Browser) Visit(ctx context.Context, rawURL string) (string, error) {
	u, err := b.resolve(rawURL)
	if err != nil {
		return "", fmt.Errorf("browser: %w", err)
	}
	p, err := b.fetchPage(ctx, u)
	if err != nil {
		return "", fmt.Errorf("browser: visit %s: %w", u.Redacted(), err)
	}
	return b.show(p), nil
}

// show makes p the current page and renders its first viewport.
func (b *Browser) show(p *page) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.page, b.find = p, nil
	return p.render()
}

// PageDown moves one viewport down (staying on the last) and shows it.
func (b *Browser) PageDown() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.page.scroll(1)
	return b.page.render()
}

// PageUp moves one viewport up (staying on the first) and shows it.
func (b *Browser) PageUp() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.page.scroll(-1)
	return b.page.render()
}

// Find searches the page for text, case-insensitively and ignoring
// punctuation, with "*" matching any run of characters. It starts at the
// current viewport, wraps around to the top, and shows the viewport holding
// the first match; a miss says so and leaves the viewport where it was.
func (b *Browser) Find(text string) string {
	re := compileQuery(text)
	if re == nil {
		return "find_on_page needs some letters or digits to look for."
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.page
	if p.index == nil {
		p.index = buildIndex(p.text)
	}
	from := p.index.firstWordFrom(p.bounds[p.current])
	at, ok := p.index.search(re, from)
	if !ok {
		b.find = nil
		return fmt.Sprintf("The search string '%s' was not found on this page.", text)
	}
	b.find = &findState{re: re, at: at}
	p.current = p.viewportAt(p.index.origOffset(at))
	return p.render()
}

// FindNext shows the viewport of the next match of the last Find, wrapping
// around to the top.
func (b *Browser) FindNext() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.find == nil {
		return "There is no search to continue; call find_on_page(text) first."
	}
	p := b.page
	at, ok := p.index.search(b.find.re, p.index.nextWordAfter(b.find.at))
	if !ok {
		return "The search string was not found on this page."
	}
	b.find.at = at
	p.current = p.viewportAt(p.index.origOffset(at))
	return p.render()
}

// resolve parses rawURL, resolving it against the current page. Without a
// scheme and with no page open, https:// is assumed.
func (b *Browser) resolve(rawURL string) (*url.URL, error) {
	raw := strings.TrimSpace(rawURL)
	if raw == "" {
		return nil, errors.New("visit_page needs a URL, e.g. visit_page(\"https://example.com\")")
	}
	if n, ok := linkNumber(raw); ok {
		b.mu.Lock()
		links := b.page.links
		b.mu.Unlock()
		if n < 1 || n > len(links) {
			return nil, fmt.Errorf("the current page has no link [%d]; it has %d links", n, len(links))
		}
		raw = links[n-1]
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("invalid URL %q: %w", raw, err)
	}
	u = decodeRedirect(u)
	if u.Scheme == "" {
		b.mu.Lock()
		cur := b.page.address
		b.mu.Unlock()
		base, berr := url.Parse(cur)
		switch {
		case berr == nil && (base.Scheme == "http" || base.Scheme == "https") && !strings.HasPrefix(raw, "www."):
			u = base.ResolveReference(u)
		default:
			if u, err = url.Parse("https://" + strings.TrimPrefix(raw, "//")); err != nil {
				return nil, fmt.Errorf("invalid URL %q: %w", raw, err)
			}
		}
	}
	if err := checkScheme(u); err != nil {
		return nil, err
	}
	return u, nil
}

func checkScheme(u *url.URL) error {
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "file":
		return fmt.Errorf("cannot visit %s: only http and https addresses can be visited; use inspect_file for local files", u.Redacted())
	default:
		return fmt.Errorf("cannot visit %q: only http and https addresses can be visited", u.Redacted())
	}
	if u.Host == "" {
		return fmt.Errorf("cannot visit %q: the address has no host", u.Redacted())
	}
	return nil
}

// checkRedirect applies the redirect cap, the scheme rule and (unless
// private addresses are allowed) the address check to each hop.
func (b *Browser) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > b.opts.MaxRedirects {
		return fmt.Errorf("too many redirects: stopped after %d", b.opts.MaxRedirects)
	}
	if err := checkScheme(req.URL); err != nil {
		return err
	}
	if b.opts.CheckURL != nil {
		if err := b.opts.CheckURL(req.Context(), req.URL); err != nil {
			return err
		}
	}
	if !b.opts.AllowPrivate {
		return b.pol.checkHost(req.URL.Hostname())
	}
	return nil
}

// checkedTransport asks check before next sends a request.
type checkedTransport struct {
	next  http.RoundTripper // nil = http.DefaultTransport
	check func(*http.Request) error
}

func (t checkedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.check(req); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	next := t.next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(req)
}
