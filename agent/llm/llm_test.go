package llm_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"deskpilot/agent/llm"
	"deskpilot/agent/llm/llmtest"
)

const testKey = "sk-test-SECRET-0123456789"

// sleeps records the delays Complete asks for, without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.d)
}

// newClient returns a client for srv that records its sleeps and uses no jitter.
func newClient(srv *llmtest.Server, rec *sleeps, edit func(*llm.Config)) *llm.Client {
	c := llm.Config{
		BaseURL: srv.URL, Model: "test-model", APIKey: testKey,
		Timeout: 30 * time.Second, // only a broken test waits this long
		Sleep:   rec.sleep, Rand: func() float64 { return 0 },
	}
	if edit != nil {
		edit(&c)
	}
	return llm.New(c)
}

func userText(s string) []llm.Message {
	return []llm.Message{{Role: "user", Parts: []llm.Part{{Text: s}}}}
}

// deltas collects what onDelta receives.
type deltas struct{ got []string }

func (d *deltas) add(s string) { d.got = append(d.got, s) }

func TestCompleteText(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		t.Run(fmt.Sprintf("nostream=%v", noStream), func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Reply{Text: "Hello there world", Usage: &llmtest.Usage{Prompt: 12, Completion: 3}})
			cl := newClient(srv, &sleeps{}, func(c *llm.Config) { c.NoStream = noStream })
			temp := 0.25
			var d deltas
			res, err := cl.Complete(t.Context(), llm.Request{
				Messages: []llm.Message{
					{Role: "system", Parts: []llm.Part{{Text: "You drive a desktop."}, {Text: "Answer in code."}}},
					{Role: "user", Parts: []llm.Part{{Text: "say hello"}}},
					{Role: "assistant", Parts: []llm.Part{{Text: "thinking"}}},
					{Role: "user", Parts: []llm.Part{{Text: "go on"}}},
				},
				Stop: []string{"<end_code>", "Observation:"}, Temperature: &temp, MaxTokens: 64,
			}, d.add)
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			want := llm.Response{Text: "Hello there world", Usage: llm.Usage{Input: 12, Output: 3}, Finish: "stop", Attempts: 1}
			if !reflect.DeepEqual(res, want) {
				t.Errorf("response = %+v, want %+v", res, want)
			}
			wantDeltas := []string{"Hello ", "there ", "world"}
			if noStream {
				wantDeltas = []string{"Hello there world"}
			}
			if !slices.Equal(d.got, wantDeltas) {
				t.Errorf("deltas = %q, want %q", d.got, wantDeltas)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			checkSent(t, reqs[0], noStream)
		})
	}
}

// checkSent asserts on the request TestCompleteText sends.
func checkSent(t *testing.T, r llmtest.Request, noStream bool) {
	t.Helper()
	if r.Model != "test-model" || r.Stream == noStream || r.IncludeUsage == noStream {
		t.Errorf("model %q stream %v include_usage %v", r.Model, r.Stream, r.IncludeUsage)
	}
	if r.MaxTokens != 64 || r.LimitField != "max_tokens" {
		t.Errorf("limit %s=%d, want max_tokens=64", r.LimitField, r.MaxTokens)
	}
	if r.Temperature == nil || *r.Temperature != 0.25 {
		t.Errorf("temperature = %v, want 0.25", r.Temperature)
	}
	if !slices.Equal(r.Stop, []string{"<end_code>", "Observation:"}) {
		t.Errorf("stop = %q", r.Stop)
	}
	var roles, texts []string
	for _, m := range r.Messages {
		roles = append(roles, m.Role)
		texts = append(texts, m.Text())
	}
	if !slices.Equal(roles, []string{"system", "user", "assistant", "user"}) ||
		!slices.Equal(texts, []string{"You drive a desktop.\nAnswer in code.", "say hello", "thinking", "go on"}) {
		t.Errorf("messages = %q %q", roles, texts)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
}

func TestOptionalFieldsOmitted(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: "ok"})
	cl := newClient(srv, &sleeps{}, nil)
	if _, err := cl.Complete(t.Context(), llm.Request{Messages: userText("hi")}, nil); err != nil {
		t.Fatal(err)
	}
	body := string(srv.Requests()[0].Body)
	for _, field := range []string{"temperature", "max_tokens", "max_completion_tokens", "stop"} {
		if strings.Contains(body, `"`+field+`"`) {
			t.Errorf("body sends %s although the request left it unset: %s", field, body)
		}
	}
}

// dataURL encodes a w x h image as PNG or JPEG.
func dataURL(t *testing.T, format string, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var buf bytes.Buffer
	var err error
	if format == "jpeg" {
		err = jpeg.Encode(&buf, img, nil)
	} else {
		err = png.Encode(&buf, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	return "data:image/" + format + ";base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

func TestImagesArriveDecoded(t *testing.T) {
	sizes := func(r llmtest.Request) string {
		var out []string
		for _, p := range r.Images() {
			out = append(out, fmt.Sprintf("%s %dx%d %s", p.Format, p.Size.X, p.Size.Y, p.Detail))
		}
		return strings.Join(out, ", ")
	}
	srv := llmtest.New(t, llmtest.Reply{Func: sizes})
	cl := newClient(srv, &sleeps{}, nil)
	res, err := cl.Complete(t.Context(), llm.Request{Messages: []llm.Message{
		{Role: "system", Parts: []llm.Part{{Text: "look"}}},
		{Role: "user", Parts: []llm.Part{
			{Text: "before"}, {ImageURL: dataURL(t, "png", 37, 21)},
			{Text: "after"}, {ImageURL: dataURL(t, "jpeg", 10, 5)},
		}},
	}}, nil)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if want := "png 37x21 auto, jpeg 10x5 auto"; res.Text != want {
		t.Errorf("server saw %q, want %q", res.Text, want)
	}
	var types []string
	for _, p := range srv.Requests()[0].Last("user").Parts {
		types = append(types, p.Type)
	}
	if want := []string{"text", "image_url", "text", "image_url"}; !slices.Equal(types, want) {
		t.Errorf("part order %q, want %q", types, want)
	}
}

func TestRetries(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		script     []llmtest.Reply
		wantSleeps []time.Duration
		discard    bool // the retry must tell the caller to drop partial text
	}{
		{"500s then success", []llmtest.Reply{{Status: 500}, {Status: 503}, {Text: "a b c"}},
			[]time.Duration{time.Second, 2 * time.Second}, false},
		{"429 Retry-After seconds", []llmtest.Reply{{Status: 429, RetryAfter: "7"}, {Text: "a b c"}},
			[]time.Duration{7 * time.Second}, false},
		{"429 Retry-After date", []llmtest.Reply{{Status: 429, RetryAfter: now.Add(30 * time.Second).Format(http.TimeFormat)}, {Text: "a b c"}},
			[]time.Duration{30 * time.Second}, false},
		{"503 retry-after-ms", []llmtest.Reply{{Status: 503, Header: http.Header{"Retry-After-Ms": {"250"}}}, {Text: "a b c"}},
			[]time.Duration{250 * time.Millisecond}, false},
		{"cut stream", []llmtest.Reply{{Text: "a b c", CutStream: true, After: 2}, {Text: "a b c"}},
			[]time.Duration{time.Second}, true},
		{"stream without finish", []llmtest.Reply{{Text: "a b c", NoFinish: true}, {Text: "a b c"}},
			[]time.Duration{time.Second}, true},
		{"error event in stream", []llmtest.Reply{{Text: "a b c", StreamError: true, Message: "overloaded"}, {Text: "a b c"}},
			[]time.Duration{time.Second}, true},
		{"cut JSON reply", []llmtest.Reply{{Text: "a b c", CutStream: true, IgnoreStream: true}, {Text: "a b c"}},
			[]time.Duration{time.Second}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, tt.script...)
			rec := &sleeps{}
			cl := newClient(srv, rec, func(c *llm.Config) { c.Now = func() time.Time { return now } })
			var view []string // what a UI shows: deltas, cleared on a discarding retry
			var retries []llm.Retry
			res, err := cl.Complete(t.Context(), llm.Request{
				Messages: userText("go"),
				OnRetry: func(r llm.Retry) {
					retries = append(retries, r)
					if r.Discard {
						view = nil
					}
				},
			}, func(s string) { view = append(view, s) })
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if res.Text != "a b c" || strings.Join(view, "") != "a b c" {
				t.Errorf("text %q, view %q; want %q", res.Text, strings.Join(view, ""), "a b c")
			}
			if res.Attempts != len(tt.script) || len(srv.Requests()) != len(tt.script) {
				t.Errorf("attempts %d, requests %d, want %d", res.Attempts, len(srv.Requests()), len(tt.script))
			}
			if got := rec.all(); !slices.Equal(got, tt.wantSleeps) {
				t.Errorf("sleeps %v, want %v", got, tt.wantSleeps)
			}
			if len(retries) != len(tt.script)-1 {
				t.Fatalf("OnRetry called %d times, want %d", len(retries), len(tt.script)-1)
			}
			if r := retries[0]; r.Discard != tt.discard || r.Attempt != 1 || r.Err == nil || r.Delay != tt.wantSleeps[0] {
				t.Errorf("first retry %+v, want attempt 1 discard %v delay %v", r, tt.discard, tt.wantSleeps[0])
			}
		})
	}
}

func TestBackoffJitter(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Status: 500}, llmtest.Reply{Status: 500}, llmtest.Reply{Status: 500}, llmtest.Reply{Text: "ok"})
	rec := &sleeps{}
	cl := newClient(srv, rec, func(c *llm.Config) {
		c.Backoff = 100 * time.Millisecond
		c.Rand = func() float64 { return 0.5 }
	})
	if _, err := cl.Complete(t.Context(), llm.Request{Messages: userText("go")}, nil); err != nil {
		t.Fatal(err)
	}
	// Doubling from 100 ms, each less a quarter (half of the 0.5 jitter).
	want := []time.Duration{75 * time.Millisecond, 150 * time.Millisecond, 300 * time.Millisecond}
	if got := rec.all(); !slices.Equal(got, want) {
		t.Errorf("sleeps %v, want %v", got, want)
	}
}

func TestGivesUp(t *testing.T) {
	tests := []struct {
		name         string
		script       []llmtest.Reply
		maxRetries   int
		wantAttempts int
		wantStatus   int
		wantIn       string
	}{
		{"retries exhausted", []llmtest.Reply{{Status: 500}, {Status: 502}, {Status: 500}}, 2, 3, 500, "after 3 attempts"},
		{"no retries", []llmtest.Reply{{Status: 503}}, -1, 1, 503, "after 1 attempt"},
		{"retry-after too long", []llmtest.Reply{{Status: 429, RetryAfter: "600"}}, 4, 1, 429, "rate limited"},
		{"bad request", []llmtest.Reply{{Status: 400, Message: "context too long"}}, 4, 1, 400, "context too long"},
		{"model not found", []llmtest.Reply{{Status: 404, Message: "model x not found"}}, 4, 1, 404, "check the base URL and the model name"},
		{"4xx event in stream", []llmtest.Reply{{Text: "a b", StreamError: true, Status: 400, Message: "bad image"}}, 4, 1, 400, "bad image"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, tt.script...)
			cl := newClient(srv, &sleeps{}, func(c *llm.Config) { c.MaxRetries = tt.maxRetries })
			res, err := cl.Complete(t.Context(), llm.Request{Messages: userText("go")}, nil)
			var apiErr *llm.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v, want an *llm.APIError", err)
			}
			if apiErr.Status != tt.wantStatus || !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %q (status %d), want status %d mentioning %q", err, apiErr.Status, tt.wantStatus, tt.wantIn)
			}
			if res.Attempts != tt.wantAttempts || len(srv.Requests()) != tt.wantAttempts {
				t.Errorf("attempts %d, requests %d, want %d", res.Attempts, len(srv.Requests()), tt.wantAttempts)
			}
		})
	}
}

func TestTimeout(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
		text  string // what arrived before the stall
	}{
		{"hang before headers", llmtest.Reply{Hang: true}, ""},
		{"stall mid-stream", llmtest.Reply{Text: "one two three four", Stall: true, After: 2}, "one two "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, tt.reply)
			rec := &sleeps{}
			cl := newClient(srv, rec, func(c *llm.Config) { c.Timeout = 200 * time.Millisecond })
			var d deltas
			res, err := cl.Complete(t.Context(), llm.Request{Messages: userText("go")}, d.add)
			var te *llm.TimeoutError
			if !errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("error %v, want a *llm.TimeoutError", err)
			}
			if res.Attempts != 1 || len(rec.all()) != 0 {
				t.Errorf("attempts %d, sleeps %v: a timeout is not retried", res.Attempts, rec.all())
			}
			if got := strings.Join(d.got, ""); got != tt.text {
				t.Errorf("deltas %q, want %q", got, tt.text)
			}
		})
	}
}

func TestMalformedJSONFailsAtOnce(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		t.Run(fmt.Sprintf("nostream=%v", noStream), func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Reply{Text: "a b c d", MalformedJSON: true}, llmtest.Reply{Text: "unused"})
			cl := newClient(srv, &sleeps{}, func(c *llm.Config) { c.NoStream = noStream })
			res, err := cl.Complete(t.Context(), llm.Request{Messages: userText("go")}, nil)
			var pe *llm.ProtocolError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v, want a *llm.ProtocolError", err)
			}
			if res.Attempts != 1 || srv.Pending() != 1 {
				t.Errorf("attempts %d, pending %d: malformed replies are not retried", res.Attempts, srv.Pending())
			}
		})
	}
}

func TestCancel(t *testing.T) {
	tests := []struct {
		name  string
		reply llmtest.Reply
	}{
		{"mid-stream", llmtest.Reply{Text: "one two three four", Stall: true, After: 1}},
		{"before headers", llmtest.Reply{Hang: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, tt.reply)
			// The default timeout is 2 minutes, so only the cancel can end this call.
			cl := newClient(srv, &sleeps{}, func(c *llm.Config) { c.Timeout = 0 })
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			onDelta := func(string) { cancel() }
			if tt.reply.Hang {
				go func() {
					for len(srv.Requests()) == 0 && ctx.Err() == nil {
						time.Sleep(5 * time.Millisecond)
					}
					cancel()
				}()
			}
			res, err := cl.Complete(ctx, llm.Request{Messages: userText("go")}, onDelta)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			if res.Attempts != 1 {
				t.Errorf("attempts %d, want 1", res.Attempts)
			}
		})
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Status: 500}, llmtest.Reply{Text: "unused"})
	ctx, cancel := context.WithCancel(t.Context())
	cl := newClient(srv, &sleeps{}, func(c *llm.Config) {
		c.Sleep = func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() }
	})
	_, err := cl.Complete(ctx, llm.Request{Messages: userText("go")}, nil)
	if !errors.Is(err, context.Canceled) || srv.Pending() != 1 {
		t.Errorf("error %v, pending %d; want context.Canceled and no second request", err, srv.Pending())
	}
}

func TestUnauthorizedHidesKey(t *testing.T) {
	// A careless server echoes the key it got.
	srv := llmtest.New(t, llmtest.Reply{Status: 401, Message: "Incorrect API key provided: " + testKey})
	cl := newClient(srv, &sleeps{}, nil)
	res, err := cl.Complete(t.Context(), llm.Request{Messages: userText("go")}, nil)
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || !apiErr.Unauthorized() {
		t.Fatalf("error %v, want an unauthorized *llm.APIError", err)
	}
	if strings.Contains(err.Error(), testKey) || strings.Contains(fmt.Sprintf("%+v %#v", err, apiErr), testKey) {
		t.Errorf("error shows the key: %v", err)
	}
	if !strings.Contains(err.Error(), "API key is missing or invalid") {
		t.Errorf("error %q does not say the key is the problem", err)
	}
	if res.Attempts != 1 {
		t.Errorf("attempts %d: a 401 is not retried", res.Attempts)
	}
	// The key goes out in the Authorization header and nowhere else.
	r := srv.Requests()[0]
	if bytes.Contains(r.Body, []byte(testKey)) {
		t.Error("request body contains the key")
	}
	for name, vs := range r.Header {
		for _, v := range vs {
			if strings.Contains(v, testKey) && name != "Authorization" {
				t.Errorf("header %s contains the key", name)
			}
		}
	}
}

func TestNoKeyNoEnvironment(t *testing.T) {
	// The client reads no environment: an empty key sends no Authorization header
	// even when OPENAI_API_KEY is set, and OPENAI_BASE_URL does not redirect it.
	t.Setenv("OPENAI_API_KEY", "sk-from-env-should-not-leak")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	srv := llmtest.New(t, llmtest.Reply{Text: "ok"})
	cl := newClient(srv, &sleeps{}, func(c *llm.Config) { c.APIKey = "" })
	if _, err := cl.Complete(t.Context(), llm.Request{Messages: userText("go")}, nil); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	r := srv.Requests()[0]
	if got := r.Header.Get("Authorization"); got != "" {
		t.Errorf("Authorization = %q, want none", got)
	}
}

func TestCompatibilityFallbacks(t *testing.T) {
	tests := []struct {
		name    string
		message string
		check   func(first, retry llmtest.Request) error
	}{
		{"stream_options", "Unrecognized request argument supplied: stream_options",
			func(first, retry llmtest.Request) error {
				if !first.IncludeUsage || bytes.Contains(retry.Body, []byte("stream_options")) {
					return fmt.Errorf("first include_usage %v, retry body %s", first.IncludeUsage, retry.Body)
				}
				return nil
			}},
		{"max_completion_tokens", "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
			func(first, retry llmtest.Request) error {
				if first.LimitField != "max_tokens" || retry.LimitField != "max_completion_tokens" || retry.MaxTokens != 50 {
					return fmt.Errorf("limit fields %q then %q=%d", first.LimitField, retry.LimitField, retry.MaxTokens)
				}
				return nil
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Reply{Status: 400, Message: tt.message}, llmtest.Reply{Text: "ok"}, llmtest.Reply{Text: "again"})
			rec := &sleeps{}
			cl := newClient(srv, rec, func(c *llm.Config) { c.MaxRetries = -1 })
			req := llm.Request{Messages: userText("go"), MaxTokens: 50}
			res, err := cl.Complete(t.Context(), req, nil)
			if err != nil || res.Text != "ok" || res.Attempts != 2 {
				t.Fatalf("first call: %+v, %v; want ok after 2 attempts", res, err)
			}
			// The client remembers: the next call goes out compatible at once.
			res, err = cl.Complete(t.Context(), req, nil)
			if err != nil || res.Text != "again" || res.Attempts != 1 {
				t.Fatalf("second call: %+v, %v; want again after 1 attempt", res, err)
			}
			reqs := srv.Requests()
			if err := tt.check(reqs[0], reqs[1]); err != nil {
				t.Error(err)
			}
			if err := tt.check(reqs[0], reqs[2]); err != nil {
				t.Errorf("second call: %v", err)
			}
			if len(rec.all()) != 0 {
				t.Errorf("slept %v before a fallback", rec.all())
			}
		})
	}
}

func TestServerIgnoresStream(t *testing.T) {
	srv := llmtest.New(t, llmtest.Reply{Text: "whole reply", IgnoreStream: true, Usage: &llmtest.Usage{Prompt: 5, Completion: 2}})
	cl := newClient(srv, &sleeps{}, nil)
	var d deltas
	res, err := cl.Complete(t.Context(), llm.Request{Messages: userText("go")}, d.add)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if res.Text != "whole reply" || !slices.Equal(d.got, []string{"whole reply"}) || res.Usage != (llm.Usage{Input: 5, Output: 2}) {
		t.Errorf("response %+v, deltas %q", res, d.got)
	}
}

// A connection reset mid-reply is retried (TestCutStreamRetried); a refused
// connection is not: nothing listens there, and retrying cannot change that
// (TestDeadEndpointFailsAtOnce).
func TestConnectionRefusedIsNotRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	rec := &sleeps{}
	cl := llm.New(llm.Config{BaseURL: "http://" + addr + "/v1", MaxRetries: 2, Sleep: rec.sleep})
	res, err := cl.Complete(t.Context(), llm.Request{Messages: userText("go")}, nil)
	var ce *llm.ConnectError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v, want a ConnectError", err)
	}
	if res.Attempts != 1 || len(rec.all()) != 0 {
		t.Errorf("attempts %d, sleeps %v; want 1 attempt and no retry", res.Attempts, rec.all())
	}
}

func TestInvalidRequests(t *testing.T) {
	img := "data:image/png;base64,AAAA"
	tests := []struct {
		name string
		cfg  llm.Config
		msgs []llm.Message
	}{
		{"no messages", llm.Config{}, nil},
		{"bad role", llm.Config{}, []llm.Message{{Role: "tool", Parts: []llm.Part{{Text: "x"}}}}},
		{"no parts", llm.Config{}, []llm.Message{{Role: "user"}}},
		{"text and image", llm.Config{}, []llm.Message{{Role: "user", Parts: []llm.Part{{Text: "x", ImageURL: img}}}}},
		{"image in system", llm.Config{}, []llm.Message{{Role: "system", Parts: []llm.Part{{ImageURL: img}}}}},
		{"image not a URL", llm.Config{}, []llm.Message{{Role: "user", Parts: []llm.Part{{ImageURL: "/tmp/x.png"}}}}},
		{"base URL without scheme", llm.Config{BaseURL: "localhost:11434/v1"}, userText("x")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t)
			if tt.cfg.BaseURL == "" {
				tt.cfg.BaseURL = srv.URL
			}
			res, err := llm.New(tt.cfg).Complete(t.Context(), llm.Request{Messages: tt.msgs}, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if res.Attempts != 0 || len(srv.Requests()) != 0 {
				t.Errorf("sent %d requests for an invalid call", len(srv.Requests()))
			}
		})
	}
}

func TestPing(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Reply{Func: func(r llmtest.Request) string {
			imgs := r.Images()
			if len(imgs) != 1 {
				return fmt.Sprintf("%d images", len(imgs))
			}
			return fmt.Sprintf("ok %dx%d", imgs[0].Size.X, imgs[0].Size.Y)
		}},
		llmtest.Reply{Status: 429, RetryAfter: "1"},
	)
	cl := newClient(srv, &sleeps{}, nil)
	res, err := cl.Ping(t.Context())
	if err != nil {
		t.Fatalf("Ping: %v", err)
	}
	if res.Text != "ok 2x2" || srv.Requests()[0].MaxTokens != 16 {
		t.Errorf("reply %q, max tokens %d", res.Text, srv.Requests()[0].MaxTokens)
	}
	res, err = cl.Ping(t.Context())
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 429 || res.Attempts != 1 {
		t.Errorf("second ping: %v after %d attempts; want a 429 at once", err, res.Attempts)
	}
}

// A reply is bounded in size and in time: a flood or an endless stream is cut,
// said so, and never held whole.
func TestReplyCaps(t *testing.T) {
	tests := []struct {
		name    string
		cfg     llm.Config
		reply   llmtest.Reply
		stream  bool
		wantCut string
		maxLen  int
	}{
		{"long stream cut at the byte cap", llm.Config{MaxReplyBytes: 64 << 10},
			llmtest.Reply{Text: strings.Repeat("Grüße ", 60000)}, true, "longer than 65536 bytes", 64 << 10},
		{"endless stream cut at the time cap", llm.Config{MaxReplyTime: 300 * time.Millisecond},
			llmtest.Reply{Text: "tick ", Endless: true, Delay: time.Millisecond}, true, "took longer than 300ms", llm.DefaultMaxReplyBytes},
		{"endless fast stream cut at the byte cap", llm.Config{MaxReplyBytes: 32 << 10},
			llmtest.Reply{Text: strings.Repeat("x", 100), Endless: true}, true, "longer than 32768 bytes", 32 << 10},
		{"single reply cut", llm.Config{MaxReplyBytes: 1000, NoStream: true},
			llmtest.Reply{Text: strings.Repeat("y", 5000)}, false, "longer than 1000 bytes", 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t, tt.reply)
			cfg := tt.cfg
			cfg.BaseURL, cfg.Model, cfg.MaxRetries = srv.URL, "m", -1
			delivered := 0
			res, err := llm.New(cfg).Complete(t.Context(), llm.Request{Messages: []llm.Message{{Role: "user", Parts: []llm.Part{{Text: "hi"}}}}},
				func(d string) { delivered += len(d) })
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Cut, tt.wantCut) || res.Finish != "length" {
				t.Errorf("cut %q finish %q, want %q", res.Cut, res.Finish, tt.wantCut)
			}
			if len(res.Text) > tt.maxLen || !utf8.ValidString(res.Text) || res.Text == "" {
				t.Errorf("text of %d bytes (valid UTF-8 %v), cap %d", len(res.Text), utf8.ValidString(res.Text), tt.maxLen)
			}
			if tt.stream && delivered != len(res.Text) {
				t.Errorf("streamed %d bytes, reply %d", delivered, len(res.Text))
			}
		})
	}
}

// Nothing listening at the endpoint fails at once, without retries, with one
// line naming the URL and what to check.
func TestDeadEndpointFailsAtOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	slept := 0
	c := llm.New(llm.Config{BaseURL: "http://" + addr + "/v1", Model: "m",
		Sleep: func(context.Context, time.Duration) error { slept++; return nil }})
	_, err = c.Complete(t.Context(), llm.Request{Messages: []llm.Message{{Role: "user", Parts: []llm.Part{{Text: "hi"}}}}}, nil)
	var ce *llm.ConnectError
	if !errors.As(err, &ce) || slept != 0 {
		t.Fatalf("err %v (retries %d), want a ConnectError at once", err, slept)
	}
	if msg := err.Error(); !strings.Contains(msg, "cannot reach the model at http://"+addr+"/v1: connection refused") ||
		!strings.Contains(msg, "deskpilot doctor") || strings.Count(msg, "\n") != 0 {
		t.Errorf("message %q", msg)
	}
	c = llm.New(llm.Config{BaseURL: "http://no-such-host.invalid/v1", Model: "m"})
	_, err = c.Complete(t.Context(), llm.Request{Messages: []llm.Message{{Role: "user", Parts: []llm.Part{{Text: "hi"}}}}}, nil)
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "no-such-host.invalid does not resolve") {
		t.Errorf("dns: %v", err)
	}
}

// An HTML error page (a proxy's 502) is summed up by its title, in one line.
func TestHTMLErrorPageSummed(t *testing.T) {
	page := "<!DOCTYPE html>\n<html><head><title>502 Bad\n Gateway</title></head><body><h1>502</h1>" + strings.Repeat("<p>nginx</p>\n", 200) + "</body></html>"
	srv := llmtest.New(t, llmtest.Reply{Status: 502, HTML: page})
	_, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "m", MaxRetries: -1}).Complete(t.Context(),
		llm.Request{Messages: []llm.Message{{Role: "user", Parts: []llm.Part{{Text: "hi"}}}}}, nil)
	if err == nil || !strings.Contains(err.Error(), `http 502 Bad Gateway: an HTML page titled "502 Bad Gateway"`) || strings.Contains(err.Error(), "nginx") {
		t.Errorf("err = %v", err)
	}
}
