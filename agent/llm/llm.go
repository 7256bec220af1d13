// Package llm owns the conversation with the vision language model: it is the only
// package that imports openai-go, and it talks Chat Completions to any
// OpenAI-compatible endpoint (OpenAI, OpenRouter, Gemini and Anthropic compatibility
// endpoints, vLLM, Ollama, LM Studio, llama.cpp server).
//
// A Client sends text and image parts, streams the reply (each content delta goes to a
// callback as it arrives), applies a per-call inactivity timeout, and retries transient
// failures itself with exponential backoff and jitter, honouring Retry-After. openai-go's
// own retries are switched off so the retry policy lives in one place (Complete).
//
// A retry starts the reply over. When the failed attempt had already streamed text,
// Request.OnRetry is called with Retry.Discard set so a UI can clear the partial text
// before the new attempt streams again; Response.Text is always the final attempt's.
//
// What is retried: HTTP 408, 409, 425, 429 and 5xx; connection errors; streams that are
// cut before the model finished; error events inside a stream unless they carry a 4xx
// code. What is not: other 4xx answers (*APIError), timeouts (*TimeoutError: the
// per-call timeout is already long, and a retry would repeat the slow work), malformed
// replies (*ProtocolError: a server that sends broken JSON will do it again), and
// cancellation of ctx.
//
// Config.Timeout bounds the wait for response headers and every silence inside a
// reply, not the whole reply (openai-go's WithRequestTimeout would cut a long, healthy
// stream). A stream is complete once choice 0 has a finish_reason; one that ends
// without it counts as cut.
//
// Compatibility with local servers: the reply limit goes out as max_tokens, which
// vLLM, Ollama, llama.cpp and LM Studio understand (OpenAI's reasoning models want
// max_completion_tokens instead, see below); a streaming request asks for usage with
// stream_options.include_usage. When a server answers 400/422 naming stream_options
// the request is sent again without it, and when it names max_completion_tokens the
// limit is sent under that name instead; the client remembers either choice for later
// calls. Neither fallback counts against MaxRetries. A server that ignores stream:true
// and answers with one JSON body is accepted too.
//
// The API key is only ever sent in the Authorization header: it is never logged and
// never part of an error string (server messages are scrubbed of it). The client reads
// no environment variables; the caller passes the key.
package llm

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"deskpilot/agent/convo"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"deskpilot/internal/wait"
)

// Defaults used when a Config field is zero.
const (
	DefaultBaseURL    = "https://api.openai.com/v1"
	DefaultTimeout    = 120 * time.Second
	DefaultMaxRetries = 4
	DefaultBackoff    = time.Second
	MaxBackoff        = 30 * time.Second // ceiling of the computed backoff
	MaxRetryAfter     = 2 * time.Minute  // a longer Retry-After ends the call instead
	// DefaultMaxReplyBytes is far above any reply an agent step needs (a thought
	// and a code block are a few KB) and far below what a hostile or broken
	// server could stream without end.
	DefaultMaxReplyBytes = 256 << 10
	// DefaultMaxReplyTime lets a slow local model (2 tokens a second) finish a
	// long reply, and still ends a stream that never does.
	DefaultMaxReplyTime = 15 * time.Minute
)

// The conversation's data lives in agent/convo; these names are the same
// types.
type (
	// Part is one piece of a message (convo.Part).
	Part = convo.Part
	// Message is one turn of the conversation (convo.Message).
	Message = convo.Message
	// Request is one model call (convo.Request).
	Request = convo.Request
	// Retry describes a failed attempt that Complete is about to repeat (convo.Retry).
	Retry = convo.Retry
	// Usage counts the tokens of one call (convo.Usage).
	Usage = convo.Usage
	// Response is the outcome of a successful call (convo.Response).
	Response = convo.Response
	// ToolCall is one call the model made to a declared tool (convo.ToolCall).
	ToolCall = convo.ToolCall
	// SafetyCheck is a vendor's warning on a tool call (convo.SafetyCheck).
	SafetyCheck = convo.SafetyCheck
	// ToolResult answers one ToolCall (convo.ToolResult).
	ToolResult = convo.ToolResult
	// ComputerTool declares a vendor's computer-use tool (convo.ComputerTool).
	ComputerTool = convo.ComputerTool
	// JSONSchema asks for structured output (convo.JSONSchema).
	JSONSchema = convo.JSONSchema
)

// The providers (see convo).
const (
	ProviderChat      = convo.ProviderChat
	ProviderResponses = convo.ProviderResponses
	ProviderAnthropic = convo.ProviderAnthropic
	ProviderGemini    = convo.ProviderGemini
)

// url is p's image as sent: ImageURL, or a data URL of Image.
func partURL(p Part) string {
	if p.ImageURL != "" {
		return p.ImageURL
	}
	var b strings.Builder
	b.Grow(len("data:;base64,") + len(p.ImageMIME) + base64.StdEncoding.EncodedLen(len(p.Image)))
	b.WriteString("data:")
	b.WriteString(p.ImageMIME)
	b.WriteString(";base64,")
	enc := base64.NewEncoder(base64.StdEncoding, &b)
	_, _ = enc.Write(p.Image)
	_ = enc.Close()
	return b.String()
}

// Config configures a Client. The zero value talks to OpenAI with the defaults below.
type Config struct {
	// Provider is the transport: ProviderChat (the default: chat
	// completions), ProviderResponses, ProviderAnthropic or ProviderGemini.
	Provider   string
	BaseURL    string        // endpoint up to /v1; default DefaultBaseURL
	Model      string        // model name; may be empty for servers that serve one model
	APIKey     string        // sent as a bearer token; empty sends no Authorization header
	Timeout    time.Duration // longest wait for response headers and longest silence inside a reply; default 120 s
	MaxRetries int           // retries after the first attempt; 0 means 4, negative means none
	NoStream   bool          // ask for one JSON reply instead of a stream
	// MaxReplyBytes caps a reply's text; a streamed reply is cut there (Response.Cut)
	// and a larger single reply is an error. 0 = DefaultMaxReplyBytes.
	MaxReplyBytes int
	// MaxReplyTime caps how long a reply may stream; it is cut then. 0 =
	// DefaultMaxReplyTime.
	MaxReplyTime time.Duration

	// Backoff is the delay before the first retry; it doubles per retry up to
	// MaxBackoff, and a random jitter takes up to half of it off. Default 1 s.
	Backoff time.Duration
	// HTTPClient sends the requests; nil uses a client on a clone of
	// http.DefaultTransport.
	HTTPClient *http.Client
	// Sleep waits between attempts; nil waits on a timer and returns early with
	// ctx.Err() when ctx ends. Tests inject one to record delays without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now reads the clock to resolve Retry-After dates; nil is time.Now.
	Now func() time.Time
	// Rand returns a number in [0, 1) for the jitter; nil uses math/rand/v2.
	Rand func() float64
	// Redact filters every text of a request before it is sent (the agent's
	// secret.Redactor Text); nil sends the texts as they are. Every model
	// transport gets the request through it (Complete calls Request.Redacted
	// before any provider sees the request).
	Redact func(string) string
}

// Client calls one model at one endpoint. It is safe for concurrent use.
type Client struct {
	cfg             Config
	base            *url.URL // the parsed BaseURL, for error messages
	baseErr         error    // why BaseURL is unusable; Complete reports it
	chat            openai.ChatCompletionService
	noStreamOptions atomic.Bool // the server rejected stream_options
	completionLimit atomic.Bool // the server wants max_completion_tokens
	noSchema        atomic.Bool // the server rejected response_format
	tr              transport   // the provider's wire format
}

// New returns a Client for c. A malformed BaseURL is reported by the first call.
func New(c Config) *Client {
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.Backoff <= 0 {
		c.Backoff = DefaultBackoff
	}
	if c.MaxReplyBytes <= 0 {
		c.MaxReplyBytes = DefaultMaxReplyBytes
	}
	if c.MaxReplyTime <= 0 {
		c.MaxReplyTime = DefaultMaxReplyTime
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
		if t, ok := http.DefaultTransport.(*http.Transport); ok {
			c.HTTPClient.Transport = t.Clone()
		}
	}
	if c.Sleep == nil {
		c.Sleep = wait.Sleep
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Rand == nil {
		c.Rand = rand.Float64
	}
	if c.Provider == "" {
		c.Provider = ProviderChat
	}
	cl := &Client{cfg: c}
	cl.base, cl.baseErr = parseBaseURL(c.BaseURL)
	// NewChatCompletionService, unlike openai.NewClient, reads no OPENAI_*
	// environment variables: nothing but this Config decides what is sent where.
	cl.chat = openai.NewChatCompletionService(
		option.WithBaseURL(c.BaseURL),
		option.WithAPIKey(c.APIKey),
		option.WithHTTPClient(c.HTTPClient),
		option.WithMaxRetries(0), // Complete retries
	)
	tr, err := newTransport(cl)
	if err != nil && cl.baseErr == nil {
		cl.baseErr = err
	}
	cl.tr = tr
	return cl
}

// Model returns the configured model name.
func (c *Client) Model() string { return c.cfg.Model }

// Provider returns the client's transport (ProviderChat, ...).
func (c *Client) Provider() string { return c.cfg.Provider }

// Complete sends r and returns the model's reply. When streaming (the default) each
// content delta is passed to onDelta as it arrives; without streaming onDelta gets the
// whole text once. onDelta (may be nil) is called from the calling goroutine, in order,
// and must not block. If an attempt fails after delivering deltas and is retried, the
// reply streams again from the start; see Request.OnRetry.
//
// Cancelling ctx aborts the HTTP request or stream at once; the error then satisfies
// errors.Is(err, context.Canceled) (or DeadlineExceeded). Other errors can be
// inspected with errors.As for *APIError, *TimeoutError and *ProtocolError. On error
// the Response still reports Attempts and the text of the last attempt so far.
func (c *Client) Complete(ctx context.Context, r Request, onDelta func(string)) (Response, error) {
	return c.complete(ctx, r, onDelta, c.cfg.MaxRetries)
}

func (c *Client) complete(ctx context.Context, r Request, onDelta func(string), maxRetries int) (Response, error) {
	if onDelta == nil {
		onDelta = func(string) {}
	}
	if c.baseErr != nil {
		return Response{}, fmt.Errorf("llm: %w", c.baseErr)
	}
	if err := validate(r); err != nil {
		return Response{}, fmt.Errorf("llm: %w", err)
	}
	r = r.Redacted(c.cfg.Redact)
	failures := 0
	for attempt := 1; ; attempt++ {
		res, sent, err := c.attempt(ctx, r, onDelta)
		res.Attempts = attempt
		if err == nil {
			return res, nil
		}
		if ctx.Err() != nil {
			return res, fmt.Errorf("llm: call to %s: %w", c.base.Redacted(), ctx.Err())
		}
		if c.fallback(err, sent) {
			continue
		}
		if ce := (*ConnectError)(nil); errors.As(err, &ce) {
			return res, fmt.Errorf("llm: %w", ce) // the error names the URL and what to check
		}
		delay, retry := c.retryDelay(err, failures)
		if !retry || failures >= maxRetries {
			return res, fmt.Errorf("llm: call to %s (model %q) failed after %d %s: %w",
				c.base.Redacted(), c.cfg.Model, attempt, plural(attempt, "attempt"), err)
		}
		failures++
		if r.OnRetry != nil {
			r.OnRetry(Retry{Attempt: attempt, Delay: delay, Err: err, Discard: sent.delivered})
		}
		if err := c.cfg.Sleep(ctx, delay); err != nil {
			return res, fmt.Errorf("llm: call to %s: %w", c.base.Redacted(), err)
		}
	}
}

// retryDelay says whether err is worth another attempt and how long to wait first:
// the server's Retry-After when it gave one, else exponential backoff with jitter.
func (c *Client) retryDelay(err error, failures int) (time.Duration, bool) {
	if !retryable(err) {
		return 0, false
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.hasRetryAfter {
		if apiErr.RetryAfter > MaxRetryAfter {
			return 0, false
		}
		return apiErr.RetryAfter, true
	}
	d := MaxBackoff
	if b := c.cfg.Backoff << min(failures, 30); failures < 30 && b > 0 && b < MaxBackoff {
		d = b
	}
	return d - time.Duration(float64(d/2)*c.cfg.Rand()), true
}

// fallback reacts to a 400/422 that names a request field this server does not know,
// switching the client to the compatible form. It reports whether to resend at once.
func (c *Client) fallback(err error, sent sentFeatures) bool {
	var apiErr *APIError
	if !errors.As(err, &apiErr) || (apiErr.Status != http.StatusBadRequest && apiErr.Status != http.StatusUnprocessableEntity) {
		return false
	}
	switch {
	case sent.streamOptions && apiErr.mentions("stream_options"):
		c.noStreamOptions.Store(true)
		return true
	case sent.maxTokens && apiErr.mentions("max_completion_tokens"):
		c.completionLimit.Store(true)
		return true
	case sent.schema && (apiErr.mentions("response_format") || apiErr.mentions("json_schema")):
		c.noSchema.Store(true)
		return true
	}
	return false
}

func parseBaseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		// The url.Error would quote s, which may hold credentials.
		return &url.URL{}, errors.New("base URL does not parse; want http(s)://host[:port]/path")
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return u, fmt.Errorf("base URL %q: want http(s)://host[:port]/path, e.g. http://localhost:11434/v1", u.Redacted())
	}
	return u, nil
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
