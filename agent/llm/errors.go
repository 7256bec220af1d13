package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// APIError is an error answer from the endpoint: an HTTP status of 400 or more, or an
// error event inside a stream. Its message never contains the API key.
type APIError struct {
	Status     int           // HTTP status; for an error event in a stream, its numeric code or 0
	Message    string        // the server's message, with the API key removed
	Type       string        // error type as the server named it, e.g. "invalid_request_error"
	Code       string        // error code as the server named it, e.g. "model_not_found"
	RetryAfter time.Duration // wait the server asked for (Retry-After, retry-after-ms); 0 when none
	InStream   bool          // the error arrived as an event inside a streamed reply

	hasRetryAfter bool
}

// Error implements error.
func (e *APIError) Error() string {
	var b strings.Builder
	if e.InStream {
		b.WriteString("error event in stream")
		if e.Status != 0 {
			fmt.Fprintf(&b, " (code %d)", e.Status)
		}
	} else {
		fmt.Fprintf(&b, "http %d %s", e.Status, http.StatusText(e.Status))
	}
	switch e.Status {
	case http.StatusUnauthorized:
		b.WriteString(": the API key is missing or invalid")
	case http.StatusForbidden:
		b.WriteString(": access denied (check the API key's permissions and the model name)")
	case http.StatusNotFound:
		b.WriteString(": not found (check the base URL and the model name)")
	case http.StatusTooManyRequests:
		b.WriteString(": rate limited")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Unauthorized reports whether the endpoint rejected the API key (401 or 403).
func (e *APIError) Unauthorized() bool {
	return e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden
}

// temporary reports whether the same request may succeed later.
func (e *APIError) temporary() bool {
	switch {
	case e.InStream && e.Status == 0:
		return true
	case e.Status == http.StatusRequestTimeout, e.Status == http.StatusConflict,
		e.Status == http.StatusTooEarly, e.Status == http.StatusTooManyRequests:
		return true
	}
	return e.Status >= 500
}

// mentions reports whether the server's message names word.
func (e *APIError) mentions(word string) bool {
	return strings.Contains(strings.ToLower(e.Message), word)
}

// TimeoutError means the endpoint sent nothing for Timeout: no response headers, or
// no byte of the reply. errors.Is(err, context.DeadlineExceeded) holds for it.
type TimeoutError struct {
	Timeout time.Duration
}

// Error implements error.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("no answer from the model endpoint for %v (timeout)", e.Timeout)
}

// Is makes errors.Is(err, context.DeadlineExceeded) true.
func (e *TimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// ProtocolError means the endpoint answered, completely, with something that is not a
// chat completion (malformed JSON, no choices). It is not retried.
type ProtocolError struct {
	Msg string
	Err error // the decoding error, when there is one
}

// Error implements error.
func (e *ProtocolError) Error() string {
	if e.Err != nil {
		return "malformed reply: " + e.Msg + ": " + e.Err.Error()
	}
	return "malformed reply: " + e.Msg
}

// Unwrap returns the decoding error.
func (e *ProtocolError) Unwrap() error { return e.Err }

// cutError means the connection broke, or the stream ended, before the model finished.
type cutError struct {
	delivered int   // bytes of text that had arrived
	err       error // the read error; nil when the stream just ended early
}

func (e *cutError) Error() string {
	if e.err != nil {
		return "connection lost while reading the reply: " + e.err.Error()
	}
	return fmt.Sprintf("stream ended before the model finished (no finish_reason after %d bytes of text)", e.delivered)
}

func (e *cutError) Unwrap() error { return e.err }

// retryable reports whether another attempt may succeed.
func retryable(err error) bool {
	var apiErr *APIError
	var te *TimeoutError
	var pe *ProtocolError
	switch {
	case errors.As(err, &apiErr):
		return apiErr.temporary()
	case errors.As(err, &te), errors.As(err, &pe), errors.As(err, new(*ConnectError)), errors.As(err, new(*requestError)),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	}
	return true // connection refused or reset, cut stream
}

// apiError builds an APIError from an error body (HTTP or stream event) and headers.
func (c *Client) apiError(status int, h http.Header, body []byte) *APIError {
	e := &APIError{Status: status}
	var code json.RawMessage
	e.Message, e.Type, code = parseErrorBody(body)
	e.Code = strings.Trim(string(code), `"`)
	if n, err := strconv.Atoi(e.Code); err == nil && status == 0 && n >= 100 && n < 600 {
		e.Status = n
	}
	if e.Status == 0 {
		e.Status = anthropicStatus(e.Type) // Anthropic's error events name a type, not a code
	}
	e.Message = c.redact(e.Message)
	e.Code = c.redact(e.Code)
	e.RetryAfter, e.hasRetryAfter = retryAfter(h, c.cfg.Now())
	return e
}

// parseErrorBody reads the error shapes servers use: OpenAI's {"error": {...}},
// Ollama's {"error": "text"}, vLLM's {"object": "error", "message": ...}, FastAPI's
// {"detail": ...}, and plain text.
func parseErrorBody(body []byte) (msg, typ string, code json.RawMessage) {
	type inner struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	var env struct {
		inner
		Error  json.RawMessage `json:"error"`
		Detail json.RawMessage `json:"detail"`
	}
	body = bytes.TrimSpace(body)
	if err := json.Unmarshal(body, &env); err != nil {
		return summarizeText(body), "", nil
	}
	var in inner
	var s string
	switch {
	case json.Unmarshal(env.Error, &in) == nil && in.Message != "":
		return clip(in.Message, 2000), in.Type, in.Code
	case json.Unmarshal(env.Error, &s) == nil && s != "":
		return clip(s, 2000), "", nil
	case env.Message != "":
		return clip(env.Message, 2000), env.Type, env.Code
	case json.Unmarshal(env.Detail, &s) == nil && s != "":
		return clip(s, 2000), "", nil
	case len(env.Detail) > 0:
		return clip(string(env.Detail), 2000), "", nil
	}
	return summarizeText(body), "", nil
}

// summarizeText sums up an error body that is not JSON in one line: an HTML
// page (a proxy's or a web server's error page) by its title, other text by its
// first line.
func summarizeText(body []byte) string {
	s := string(body)
	if lower := strings.ToLower(s); strings.Contains(lower, "<html") || strings.Contains(lower, "<title") || strings.Contains(lower, "<!doctype") {
		title := ""
		if i := strings.Index(lower, "<title"); i >= 0 {
			if j := strings.Index(lower[i:], ">"); j >= 0 {
				rest := s[i+j+1:]
				if k := strings.Index(strings.ToLower(rest), "</title"); k >= 0 {
					title = strings.Join(strings.Fields(html.UnescapeString(rest[:k])), " ")
				}
			}
		}
		if title == "" {
			return "an HTML page (not an API answer: is the base URL right?)"
		}
		return "an HTML page titled " + strconv.Quote(clip(title, 120)) + " (not an API answer: is the base URL right?)"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return clip(strings.TrimSpace(line), 300)
}

// ConnectError means the endpoint could not be reached at all: nothing listens
// at its address, or its host name does not resolve. Retrying cannot help, so
// it is not retried; Hint says what to check.
type ConnectError struct {
	URL  string // the base URL, credentials removed
	Err  error
	Hint string
}

// Error implements error.
func (e *ConnectError) Error() string {
	return fmt.Sprintf("cannot reach the model at %s: %s — %s", e.URL, shortNetError(e.Err), e.Hint)
}

// Unwrap returns the network error.
func (e *ConnectError) Unwrap() error { return e.Err }

// connectError turns an error that shows nothing answers at the endpoint into a
// *ConnectError; other errors come back unchanged.
func (c *Client) connectError(err error) error {
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return &ConnectError{URL: c.base.Redacted(), Err: err, Hint: serverHint(c.base)}
	case errors.As(err, &dns) && (dns.IsNotFound || !dns.IsTemporary):
		return &ConnectError{URL: c.base.Redacted(), Err: err,
			Hint: fmt.Sprintf("the host name %s does not resolve: check the base URL; `deskpilot doctor` checks the setup", c.base.Hostname())}
	}
	return err
}

// serverHint names the server that usually listens at u's port, and how to
// start it.
func serverHint(u *url.URL) string {
	local := u.Hostname() == "localhost" || u.Hostname() == "127.0.0.1" || u.Hostname() == "::1"
	doctor := "; `deskpilot doctor` checks the setup"
	switch {
	case local && u.Port() == "11434":
		return "is Ollama running? Start it with `ollama serve`" + doctor
	case local && u.Port() == "1234":
		return "is LM Studio's server running? Start it in LM Studio (Developer, Start server) or with `lms server start`" + doctor
	case local && u.Port() == "8000":
		return "is vLLM running? Start it with `vllm serve MODEL`" + doctor
	case local && u.Port() == "8080":
		return "is llama.cpp's server running? Start it with `llama-server -m MODEL.gguf --mmproj MMPROJ.gguf`" + doctor
	case local:
		return "check that the model server is running on this machine" + doctor
	}
	return "check the base URL and your network" + doctor
}

// shortNetError is a network error without the Go operation prefix.
func shortNetError(err error) string {
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &dns):
		return "no such host"
	}
	return err.Error()
}

// retryAfter reads retry-after-ms, then Retry-After (seconds or an HTTP date).
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && !math.IsInf(ms, 0) {
			return durationOf(ms, time.Millisecond), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || math.IsNaN(s) || math.IsInf(s, -1) {
			return 0, false
		}
		return durationOf(s, time.Second), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// durationOf converts n units to a Duration, saturating instead of overflowing.
func durationOf(n float64, unit time.Duration) time.Duration {
	if f := n * float64(unit); f < float64(math.MaxInt64) {
		return time.Duration(f)
	}
	return time.Duration(math.MaxInt64)
}

// redact removes the API key from text that came from the server.
func (c *Client) redact(s string) string {
	if k := c.cfg.APIKey; len(k) >= 4 {
		s = strings.ReplaceAll(s, k, "[redacted]")
	}
	return s
}

// clip shortens s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
