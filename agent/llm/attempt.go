package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openai/openai-go/v3/option"
)

// Limits on what one attempt buffers.
const (
	maxErrorBody = 64 << 10 // bytes of an error answer kept for its message
)

// sentFeatures records what an attempt sent and delivered, for the fallbacks and
// Retry.Discard.
type sentFeatures struct {
	streamOptions bool // stream_options.include_usage was in the request
	maxTokens     bool // the reply limit went out as max_tokens
	schema        bool // response_format went out
	delivered     bool // at least one delta reached onDelta
}

// attempt makes one HTTP exchange through the provider's transport.
func (c *Client) attempt(ctx context.Context, r Request, onDelta func(string)) (Response, sentFeatures, error) {
	var sent sentFeatures
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	wd := newWatchdog(c.cfg.Timeout, cancel)
	defer wd.stop()
	capped := time.AfterFunc(c.cfg.MaxReplyTime, func() { cancel(errReplyTime) })
	defer capped.Stop()
	// A raw body (SSE framing, JSON escapes) is several times its text; past
	// this, the server is not sending a reply but a flood.
	ex := &exchange{wd: wd, streaming: !c.cfg.NoStream, maxBody: 8*int64(c.cfg.MaxReplyBytes) + 1<<20}
	res, err := c.tr.send(actx, r, onDelta, ex, &sent)
	if res.Cut == "" && ctx.Err() == nil && errors.Is(context.Cause(actx), errReplyTime) {
		// The reply streamed for too long: what came is kept, cut.
		res.Cut, res.Finish, err = fmt.Sprintf("the reply took longer than %s", c.cfg.MaxReplyTime), "length", nil
	}
	if err != nil {
		err = c.classify(ctx, actx, ex, err)
	}
	return res, sent, err
}

// validate checks a request before anything is sent.
func validate(r Request) error {
	if len(r.Messages) == 0 {
		return errors.New("request has no messages")
	}
	for i, m := range r.Messages {
		switch m.Role {
		case "system", "user", "assistant":
		default:
			return fmt.Errorf("message %d: role %q: want system, user or assistant", i, m.Role)
		}
		if len(m.Parts) == 0 {
			return fmt.Errorf("message %d (%s): no parts", i, m.Role)
		}
		if err := validateTurns(i, m); err != nil {
			return err
		}
		for j, p := range m.Parts {
			switch {
			case p.Text != "" && p.IsImage(), p.ImageURL != "" && p.Image != nil:
				return fmt.Errorf("message %d part %d: set one of Text, ImageURL and Image", i, j)
			case p.Image != nil && !strings.HasPrefix(p.ImageMIME, "image/"):
				return fmt.Errorf("message %d part %d: image of media type %q: want image/…", i, j, p.ImageMIME)
			case p.IsImage() && m.Role != "user":
				return fmt.Errorf("message %d part %d: images are only allowed in user messages, not %s", i, j, m.Role)
			case p.ImageURL != "" && !validImageURL(p.ImageURL):
				return fmt.Errorf("message %d part %d: image URL must be a data:image/ URL or http(s) URL", i, j)
			}
		}
	}
	return nil
}

func validImageURL(s string) bool {
	return strings.HasPrefix(s, "data:image/") || strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

// classify turns what went wrong in one attempt into the error the caller sees.
func (c *Client) classify(ctx, actx context.Context, ex *exchange, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var te *TimeoutError
	if errors.As(context.Cause(actx), &te) {
		return te
	}
	if ex.status >= 400 {
		return c.apiError(ex.status, ex.header, ex.errBody)
	}
	if data, ok := c.tr.streamError(err); ok {
		e := c.apiError(0, nil, data)
		e.InStream = true
		return e
	}
	var pe *ProtocolError
	var ce *cutError
	switch {
	case errors.Is(ex.readErr, errReplySize):
		return &ProtocolError{Msg: fmt.Sprintf("the reply was larger than %d bytes", ex.maxBody), Err: errReplySize}
	case errors.As(err, &pe), errors.As(err, &ce):
		return err
	case ex.sendErr != nil:
		if ce := c.connectError(ex.sendErr); ce != ex.sendErr {
			return ce
		}
		return fmt.Errorf("send request: %w", ex.sendErr)
	case ex.readErr != nil:
		return &cutError{err: ex.readErr}
	case ex.status == 0:
		return fmt.Errorf("send request: %w", err) // failed before any response
	}
	// The response body arrived intact, so the failure is in what it said.
	return &ProtocolError{Msg: "reply is not a valid " + c.tr.kind(), Err: err}
}

// exchange records what one HTTP attempt returned. It is filled by the middleware and
// the body wrapper, both on the goroutine running the attempt.
type exchange struct {
	wd        *watchdog
	streaming bool
	status    int
	header    http.Header
	errBody   []byte
	sendErr   error         // the request failed before a response
	readErr   error         // reading the response body failed (not io.EOF)
	json      *bytes.Buffer // copy of a JSON answer to a streaming request
	maxBody   int64         // bytes of response body read before it is refused
}

// Why a reply was cut or refused (Config.MaxReplyBytes, MaxReplyTime).
var (
	errReplySize = errors.New("reply too large")
	errReplyTime = errors.New("reply took too long")
)

// cutUTF8 returns the longest prefix of s of at most n bytes that does not
// split a character.
func cutUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// middleware sits between openai-go and the HTTP client: it keeps the status, headers
// and error body of the response, and lets every byte read feed the watchdog.
func (ex *exchange) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil {
		ex.sendErr = err
		return res, err
	}
	ex.wd.kick()
	ex.status, ex.header = res.StatusCode, res.Header
	body := &watchBody{rc: res.Body, ex: ex}
	if res.StatusCode >= 400 {
		data, _ := io.ReadAll(io.LimitReader(body, maxErrorBody))
		_ = body.Close()
		ex.errBody = data
		res.Body = io.NopCloser(bytes.NewReader(data))
		return res, nil
	}
	if media, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); ex.streaming && media == "application/json" {
		body.tee = &bytes.Buffer{}
		ex.json = body.tee
	}
	res.Body = body
	return res, nil
}

// watchBody wraps a response body: each read that yields bytes resets the watchdog,
// and read errors are recorded so a cut connection can be told from a bad reply.
type watchBody struct {
	rc   io.ReadCloser
	ex   *exchange
	tee  *bytes.Buffer
	read int64 // bytes read so far
}

// Read implements io.Reader.
func (b *watchBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.ex.wd.kick()
		if b.tee != nil {
			b.tee.Write(p[:n])
		}
		if b.read += int64(n); b.read > b.ex.maxBody {
			b.ex.readErr = errReplySize
			return 0, errReplySize
		}
	}
	if err != nil && err != io.EOF {
		b.ex.readErr = err
	}
	return n, err
}

// Close implements io.Closer.
func (b *watchBody) Close() error { return b.rc.Close() }

// watchdog cancels an attempt when no byte arrived for its timeout.
type watchdog struct {
	d time.Duration
	t *time.Timer
}

func newWatchdog(d time.Duration, cancel context.CancelCauseFunc) *watchdog {
	return &watchdog{d: d, t: time.AfterFunc(d, func() { cancel(&TimeoutError{Timeout: d}) })}
}

func (w *watchdog) kick() { w.t.Reset(w.d) }
func (w *watchdog) stop() { w.t.Stop() }
