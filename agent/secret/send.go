package secret

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Find reports the name of a secret that s would send: one of its
// FragmentLen-byte runs (or its reverse's), a whole short one, or a
// placeholder standing for one, in s as it is or percent-decoded (as in a URL
// or a form). API keys do not count: they are sent to their own endpoints.
func (r *Redactor) Find(s string) (name string, ok bool) {
	if r == nil || s == "" {
		return "", false
	}
	for _, v := range decodings(s) {
		if n, ok := placeholderIn(v); ok {
			return n, true
		}
		if n, ok := r.find(v); ok {
			return n, true
		}
	}
	return "", false
}

// find looks for a secret (not a key) in s.
func (r *Redactor) find(s string) (string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, x := range r.spans(s) {
		if e := r.entries[x.entry]; !e.key {
			return e.name, true
		}
	}
	return "", false
}

// placeholderIn finds a placeholder in s: the code holds a value read back
// as [secret:NAME] and tries to send it.
func placeholderIn(s string) (string, bool) {
	i := strings.Index(s, placeholderStart)
	if i < 0 {
		return "", false
	}
	rest := s[i+len(placeholderStart):]
	j := strings.IndexByte(rest, ']')
	if j < 0 {
		j = min(len(rest), 40)
	}
	return rest[:j], true
}

// decodings are s and its percent-decoded forms.
func decodings(s string) []string {
	out := []string{s}
	if !strings.ContainsAny(s, "%+") {
		return out
	}
	for _, f := range []func(string) (string, error){url.QueryUnescape, url.PathUnescape} {
		if d, err := f(s); err == nil && d != s {
			out = append(out, d)
			if dd, err := f(d); err == nil && dd != d { // encoded twice
				out = append(out, dd)
			}
		}
	}
	return out
}

// SendError is a request refused because it would send a secret.
type SendError struct {
	Name  string // the secret's name
	Host  string // where the request was going; "" when Tool says
	Tool  string // the builtin whose argument would send it; "" for a request
	Where string // "its address", "its header X", "its body", "its argument url"
}

func (e *SendError) Error() string {
	what := "the request to " + e.Host
	if e.Tool != "" {
		what = e.Tool
	}
	return fmt.Sprintf("refused: %s would send the secret %q (in %s); a secret is only ever typed "+
		"with type_secret into a field on the screen, never sent anywhere, and a value read back as %s stands for it",
		what, e.Name, e.Where, Placeholder(e.Name))
}

// CheckArg refuses the argument param of the builtin tool, whose value
// leaves the machine (the catalogue's Sends), when text holds a secret.
func (r *Redactor) CheckArg(tool, param, text string) error {
	if n, ok := r.Find(text); ok {
		return &SendError{Name: n, Tool: tool, Where: "its argument " + param}
	}
	return nil
}

// CheckURL refuses an address that holds a secret.
func (r *Redactor) CheckURL(u *url.URL) error {
	if u == nil {
		return nil
	}
	if n, ok := r.Find(u.String()); ok {
		return &SendError{Name: n, Host: u.Hostname(), Where: "its address"}
	}
	return nil
}

// CheckText refuses text about to be sent to host (a search query, a command
// line) that holds a secret; where says what the text is.
func (r *Redactor) CheckText(host, where, text string) error {
	if n, ok := r.Find(text); ok {
		return &SendError{Name: n, Host: host, Where: where}
	}
	return nil
}

// maxCheckedBody is how much of a request's body CheckRequest reads; a
// larger body is refused, as it could not be checked.
const maxCheckedBody = 8 << 20

// CheckRequest refuses a request that would send a secret in its address,
// its headers or its body. It reads the body (at most maxCheckedBody bytes;
// a larger one is refused, as it cannot be checked) and puts a copy back, so
// the request can still be sent.
func (r *Redactor) CheckRequest(req *http.Request) error {
	body, err := r.checkRequest(req)
	if err == nil && body != nil {
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return err
}

// checkRequest checks req and returns its body, read (nil when it has none).
func (r *Redactor) checkRequest(req *http.Request) ([]byte, error) {
	if r.Empty() {
		return nil, nil
	}
	if err := r.CheckURL(req.URL); err != nil {
		return nil, err
	}
	host := req.URL.Hostname()
	for k, vs := range req.Header {
		for _, v := range vs {
			if n, ok := r.Find(v); ok {
				return nil, &SendError{Name: n, Host: host, Where: "its header " + k}
			}
		}
	}
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxCheckedBody+1))
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read the request's body to check it: %w", err)
	}
	if len(body) > maxCheckedBody {
		return nil, fmt.Errorf("refused: the request to %s has a body over %d MiB, too large to check for secrets", host, maxCheckedBody>>20)
	}
	if n, ok := r.Find(string(body)); ok {
		return nil, &SendError{Name: n, Host: host, Where: "its body"}
	}
	return body, nil
}

// Transport checks every request with a Redactor before Base sends it.
type Transport struct {
	Base     http.RoundTripper // nil = http.DefaultTransport
	Redactor *Redactor
}

// RoundTrip refuses a request that carries a secret (CheckRequest), else
// sends it with Base. The caller's request is not changed: its body is read
// and closed, and a copy goes on.
func (t Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := t.Redactor.checkRequest(req)
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	if body != nil {
		c := req.Clone(req.Context())
		c.Body = io.NopCloser(bytes.NewReader(body))
		c.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req = c
	}
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return base.RoundTrip(req)
}

// IsSend reports whether err is (or wraps) a refused send.
func IsSend(err error) bool {
	var se *SendError
	return errors.As(err, &se)
}
