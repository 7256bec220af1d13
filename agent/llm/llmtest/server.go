// Package llmtest is a fake OpenAI-compatible chat completion server for tests. It
// listens on real HTTP (httptest) and speaks the real wire format: a JSON completion
// for non-streaming requests, and server-sent events (`data: {chunk}` lines ending in
// `data: [DONE]`, with a final usage chunk when stream_options.include_usage asks for
// one) for streaming requests.
//
// A Server replays a script of Replies in order, one per request: text, text computed
// from the request, or a fault (an HTTP error status with Retry-After, a hang, a stall
// or cut in the middle of a stream, malformed JSON, an error event inside the stream).
// It records every request, parsed (messages, text, images decoded to their size,
// stop, limits) together with its raw body and headers, so tests can assert on what
// the client really sent. A request that arrives after the script ran out fails the
// test and gets a 400 answer.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Reply scripts the answer to one request. The zero Reply answers with empty text.
type Reply struct {
	Text string                 // the assistant's reply
	Func func(r Request) string // computes the reply from the request; wins over Text

	// Status, when 400 or more, answers with that HTTP status and an OpenAI-style
	// error body carrying Message (default: the status text). With StreamError it is
	// instead the code inside the error event (0 leaves the code null).
	Status     int
	Message    string
	HTML       string      // with Status: answer with this HTML page instead (a proxy's error page)
	RetryAfter string      // Retry-After header sent with Status, e.g. "3" or an HTTP date
	Header     http.Header // extra response headers, e.g. retry-after-ms

	Hang          bool // send nothing until the client goes away or the test ends
	Stall         bool // stream After deltas, then go silent like Hang
	CutStream     bool // stream After deltas, then drop the connection (a JSON reply: half of it)
	MalformedJSON bool // a body that is not JSON (a stream: a broken chunk after After deltas)
	StreamError   bool // stream After deltas, then an error event {"error": {...}}, then end
	NoFinish      bool // stream all deltas and [DONE] but never a finish_reason
	IgnoreStream  bool // answer a streaming request with a JSON completion, as some servers do
	// Endless streams Text again and again, never finishing, until the client
	// goes away or the test ends (a hostile or broken server).
	Endless bool

	After  int           // deltas sent before a stream fault; 0 means half of them (at least 1)
	Delay  time.Duration // pause before each streamed chunk and before a JSON reply
	Finish string        // finish_reason; default "stop"
	Usage  *Usage        // token counts reported; nil estimates them (see Usage)
}

// Usage is the token count a reply reports. When a Reply leaves it nil the server
// reports Prompt = bytes of request text / 4 + 85 per image, Completion = number of
// streamed pieces of the reply.
type Usage struct {
	Prompt, Completion int
}

// Server is a scripted chat completion endpoint. Its methods are safe for concurrent
// use. It shuts down when the test that created it ends.
type Server struct {
	// URL is the base URL to configure a client with, ending in /v1.
	URL string

	t       testing.TB
	srv     *httptest.Server
	quit    chan struct{}
	mu      sync.Mutex
	replies []Reply
	reqs    []Request
}

// New starts a server that answers requests with replies, in order.
func New(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := &Server{t: t, quit: make(chan struct{}), replies: replies}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(func() {
		close(s.quit) // release hanging handlers first: Close waits for them
		s.srv.Close()
	})
	return s
}

// Add appends replies to the script.
func (s *Server) Add(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Pending returns how many scripted replies have not been used.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.replies)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		s.t.Errorf("llmtest: unexpected %s %s (only POST /v1/chat/completions is served)", r.Method, r.URL.Path)
		writeError(w, http.StatusNotFound, "llmtest: no such endpoint", nil)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	req, perr := parseRequest(body, r.Header)
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	n := len(s.reqs)
	var rp Reply
	ok := perr == nil && len(s.replies) > 0
	if ok {
		rp, s.replies = s.replies[0], s.replies[1:]
	}
	s.mu.Unlock()
	switch {
	case perr != nil:
		s.t.Errorf("llmtest: request %d is malformed: %v", n, perr)
		writeError(w, http.StatusBadRequest, "llmtest: malformed request: "+perr.Error(), nil)
	case !ok:
		s.t.Errorf("llmtest: request %d arrived but the script has no reply left", n)
		writeError(w, http.StatusBadRequest, fmt.Sprintf("llmtest: script exhausted at request %d", n), nil)
	default:
		s.serve(w, r, req, rp)
	}
}

// serve answers one request according to its reply.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, req Request, rp Reply) {
	for k, vs := range rp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if rp.Hang {
		s.wait(r, -1)
		return
	}
	if rp.Status >= 400 && !rp.StreamError {
		if rp.RetryAfter != "" {
			w.Header().Set("Retry-After", rp.RetryAfter)
		}
		if rp.HTML != "" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(rp.Status)
			_, _ = w.Write([]byte(rp.HTML))
			return
		}
		msg := rp.Message
		if msg == "" {
			msg = http.StatusText(rp.Status)
		}
		writeError(w, rp.Status, msg, nil)
		return
	}
	text := rp.Text
	if rp.Func != nil {
		text = rp.Func(req)
	}
	if req.Stream && !rp.IgnoreStream {
		s.stream(w, r, req, rp, text)
		return
	}
	if !s.wait(r, rp.Delay) {
		return
	}
	s.complete(w, req, rp, text)
}

// wait pauses for d (forever when d < 0) or until the client or the test is gone; it
// reports whether to go on.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d == 0 {
		return true
	}
	var timer <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-timer:
		return true
	case <-r.Context().Done():
	case <-s.quit:
	}
	return false
}

// writeError sends an OpenAI-style error body.
func writeError(w http.ResponseWriter, status int, msg string, code any) {
	typ := "invalid_request_error"
	switch {
	case status == http.StatusUnauthorized:
		code = "invalid_api_key"
	case status == http.StatusTooManyRequests:
		typ = "rate_limit_exceeded"
	case status >= 500:
		typ = "server_error"
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": msg, "type": typ, "param": nil, "code": code,
	}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
