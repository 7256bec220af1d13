package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/html/charset"
)

// response is a fetched body, cut at MaxBytes.
type response struct {
	url         *url.URL // final address after redirects
	status      int
	statusText  string
	contentType string // media type, lower case, no parameters
	rawType     string // the Content-Type header as sent
	disposition string
	body        []byte
	truncated   bool
}

// get fetches u with the visit client under the browser's timeout.
func (b *Browser) get(ctx context.Context, u *url.URL) (*response, error) {
	if b.opts.CheckURL != nil {
		if err := b.opts.CheckURL(ctx, u); err != nil {
			return nil, err
		}
	}
	if !b.opts.AllowPrivate {
		if err := b.pol.checkHost(u.Hostname()); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, b.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", b.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.7")
	req.Header.Set("Accept-Language", "en-US,en;q=0.7")
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, b.explain(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, b.opts.MaxBytes+1))
	if err != nil {
		return nil, b.explain(ctx, fmt.Errorf("read body: %w", err))
	}
	r := &response{
		url:         resp.Request.URL,
		status:      resp.StatusCode,
		statusText:  http.StatusText(resp.StatusCode),
		rawType:     resp.Header.Get("Content-Type"),
		disposition: resp.Header.Get("Content-Disposition"),
		body:        body,
	}
	if int64(len(body)) > b.opts.MaxBytes {
		r.body, r.truncated = body[:b.opts.MaxBytes], true
	}
	r.contentType, _, _ = mime.ParseMediaType(r.rawType)
	if r.contentType == "" {
		r.contentType, _, _ = mime.ParseMediaType(http.DetectContentType(r.body))
	}
	r.contentType = strings.ToLower(r.contentType)
	return r, nil
}

// explain turns a deadline into a plain timeout message and unwraps the
// url.Error noise while keeping the cause for errors.Is/As.
func (b *Browser) explain(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %s: %w", b.opts.Timeout, context.DeadlineExceeded)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// fetchPage fetches u and turns the response into a page.
func (b *Browser) fetchPage(ctx context.Context, u *url.URL) (*page, error) {
	r, err := b.get(ctx, u)
	if err != nil {
		return nil, err
	}
	addr := r.url.String()
	switch {
	case r.status >= 400:
		title := fmt.Sprintf("Error %d", r.status)
		text, _ := b.bodyText(r)
		text = strings.TrimSpace(fmt.Sprintf("## Error %d %s\n\n%s", r.status, r.statusText, text))
		return newLinkedPage(addr, title, text, b.opts.Viewport), nil
	case isHTML(r.contentType), isText(r.contentType):
		text, title := b.bodyText(r)
		if r.truncated {
			text = fmt.Sprintf("Note: this page is larger than the %s limit; only the first %s were read.\n\n%s",
				formatBytes(b.opts.MaxBytes), formatBytes(b.opts.MaxBytes), text)
		}
		return newLinkedPage(addr, title, text, b.opts.Viewport), nil
	default:
		return b.download(ctx, r)
	}
}

func isHTML(ct string) bool { return ct == "text/html" || ct == "application/xhtml+xml" }

func isText(ct string) bool {
	return ct == "text/plain" || ct == "text/markdown" || ct == "text/x-markdown"
}

// bodyText renders a response body as text and finds its title.
func (b *Browser) bodyText(r *response) (text, title string) {
	if isHTML(r.contentType) {
		doc, err := HTMLToMarkdown(bytes.NewReader(r.body), r.rawType, r.url)
		if err != nil {
			return fmt.Sprintf("(the page could not be read: %v)", err), ""
		}
		return doc.Text, doc.Title
	}
	var rd io.Reader = bytes.NewReader(r.body)
	if dr, err := charset.NewReader(rd, r.rawType); err == nil {
		rd = dr
	}
	raw, _ := io.ReadAll(rd)
	return tidyText(string(raw)), ""
}

// formatBytes renders n as "10 MiB", "21.9 KiB" or "300 bytes".
func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// newLinkedPage is a page whose links are shown as numbered references.
func newLinkedPage(address, title, text string, viewport int) *page {
	text, links := compactLinks(text)
	p := newPage(address, title, text, viewport, true)
	p.links = links
	return p
}
