package llm

import (
	"context"
	"deskpilot/agent/convo"
	"fmt"
	"net/http"
	"strings"
)

// ProviderFor is the provider a base URL implies (convo.ProviderFor).
func ProviderFor(baseURL string) string { return convo.ProviderFor(baseURL) }

// transport is one provider's wire format.
type transport interface {
	// send makes one HTTP exchange of r. Every HTTP request it makes goes
	// through ex (the middleware, or exchange.client), which feeds the
	// watchdog and keeps error bodies; sent records what went out.
	send(ctx context.Context, r Request, onDelta func(string), ex *exchange, sent *sentFeatures) (Response, error)
	// streamError returns the body of an error event inside a stream, when
	// err is one.
	streamError(err error) ([]byte, bool)
	// kind names what a valid reply is, for a *ProtocolError.
	kind() string
}

// newTransport returns c's transport; an unknown provider is an error
// listing the known ones.
func newTransport(c *Client) (transport, error) {
	switch c.cfg.Provider {
	case ProviderChat:
		return chatTransport{c}, nil
	case ProviderResponses:
		return newResponses(c), nil
	case ProviderAnthropic:
		return newAnthropic(c), nil
	case ProviderGemini:
		return geminiTransport{c}, nil
	}
	return chatTransport{c}, fmt.Errorf("unknown provider %q; providers: %s", c.cfg.Provider, strings.Join(Providers(), ", "))
}

// client is an HTTP client whose every request goes through ex, for SDKs
// that take an *http.Client rather than a middleware.
func (ex *exchange) client(base *http.Client) *http.Client {
	return &http.Client{Transport: exchangeRT{ex: ex, base: base}}
}

type exchangeRT struct {
	ex   *exchange
	base *http.Client
}

// RoundTrip implements http.RoundTripper.
func (rt exchangeRT) RoundTrip(req *http.Request) (*http.Response, error) {
	return rt.ex.middleware(req, rt.base.Do)
}

// trimSuffixes removes the first of suffixes u's path ends with.
func trimSuffixes(u string, suffixes ...string) string {
	u = strings.TrimRight(u, "/")
	for _, s := range suffixes {
		if strings.HasSuffix(u, s) {
			return strings.TrimSuffix(u, s)
		}
	}
	return u
}

// Providers lists the providers, the default first.
func Providers() []string { return convo.Providers() }
