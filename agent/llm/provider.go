package llm

import (
	"context"
	"deskpilot/agent/convo"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// ProviderFor is the provider a base URL implies when none is set: the
// vendors' own hosts get their native API (api.anthropic.com: anthropic;
// generativelanguage.googleapis.com: gemini), except when the URL names
// their OpenAI-compatible path (…/openai, …/v1 on Anthropic is its own
// Messages API); every other endpoint, api.openai.com included, speaks chat
// completions. An unparsable URL gives ProviderChat.
func ProviderFor(baseURL string) string {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return ProviderChat
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "api.anthropic.com":
		return ProviderAnthropic
	case host == "generativelanguage.googleapis.com" && !strings.Contains(u.Path, "/openai"):
		return ProviderGemini
	}
	return ProviderChat
}

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
