package llmtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Wire names a vendor's native API, spoken by a Vendor server.
type Wire string

// The vendor wire formats.
const (
	// Responses is OpenAI's Responses API: POST /v1/responses, answered
	// with a response object or with its SSE events (response.created,
	// response.output_item.added/done, response.output_text.delta,
	// response.completed).
	Responses Wire = "responses"
	// Anthropic is the Messages API: POST /v1/messages, answered with a
	// message or with its SSE events (message_start, content_block_start,
	// content_block_delta with text_delta or input_json_delta,
	// content_block_stop, message_delta, message_stop).
	Anthropic Wire = "anthropic"
	// Gemini is generateContent: POST /v1beta/models/M:generateContent,
	// or :streamGenerateContent?alt=sse answered with data: lines each
	// holding a GenerateContentResponse.
	Gemini Wire = "gemini"
)

// Call is one tool call a Turn makes.
type Call struct {
	// ID is the call's id; "" makes one up ("call_1", "toolu_1"; Gemini
	// sends none).
	ID string
	// Name is the tool or function: "computer" (Anthropic), a Gemini
	// function such as "click_at"; ignored by Responses (computer_call).
	Name string
	// Input is the call's JSON: the tool_use input (Anthropic), the
	// function's args (Gemini), or the computer_call's fields, e.g.
	// {"actions": [...]} or {"action": {...}} (Responses).
	Input string
	// Checks are the computer_call's pending_safety_checks (Responses).
	Checks []Check
	// Signature is a Gemini thoughtSignature, sent back with the call.
	Signature string
}

// Check is a pending safety check.
type Check struct{ ID, Code, Message string }

// Turn scripts a vendor server's answer to one request. Faults mean what
// they mean in Reply.
type Turn struct {
	Text  string
	Calls []Call
	// Func computes the answer from the request; it wins over Text and Calls.
	Func func(r VendorRequest) Turn
	// Reasoning is sent as a reasoning summary (Responses), a thinking block
	// (Anthropic) or a thought part (Gemini).
	Reasoning string

	Status        int // answer with this HTTP status and the vendor's error body (Message)
	Message       string
	RetryAfter    string
	Hang          bool
	Stall         bool
	CutStream     bool
	MalformedJSON bool // a stream: a broken event after After pieces; a JSON reply: a broken body
	StreamError   bool // the vendor's error event after After pieces (ErrorType, default the overload one)
	ErrorType     string
	Endless       bool // stream text without end
	// Unknown sends, after the text, an event or part the client has never
	// heard of (a newer API), which it must skip.
	Unknown bool
	After   int
	Delay   time.Duration
	Usage   *Usage
	// Stop is the stop reason (Anthropic "end_turn", Gemini "STOP", a
	// Responses status); "" is the vendor's normal end, or its tool-use one.
	Stop string
}

// VendorRequest is one request as a Vendor server received it.
type VendorRequest struct {
	Path   string
	Query  string
	Header http.Header
	Body   []byte         // the raw JSON
	JSON   map[string]any // Body decoded
	Stream bool
	// Images are the decoded sizes of every image in the body, in order
	// (data URLs and base64 data with a media type).
	Images []image.Point
	// Texts are every "text" string of the body, in order.
	Texts []string
}

// Vendor is a scripted server speaking one vendor's wire format. Its
// methods are safe for concurrent use; it shuts down with its test.
type Vendor struct {
	// URL is the base URL to configure a client with: ending in /v1
	// (Responses, Anthropic) or /v1beta (Gemini).
	URL  string
	Wire Wire

	t     testing.TB
	srv   *httptest.Server
	quit  chan struct{}
	mu    sync.Mutex
	turns []Turn
	reqs  []VendorRequest
	n     int // responses sent, for ids
}

// NewVendor starts a server speaking wire that answers with turns, in order.
func NewVendor(t testing.TB, wire Wire, turns ...Turn) *Vendor {
	t.Helper()
	v := &Vendor{Wire: wire, t: t, quit: make(chan struct{}), turns: turns}
	v.srv = httptest.NewServer(http.HandlerFunc(v.handle))
	v.URL = v.srv.URL + "/v1"
	if wire == Gemini {
		v.URL = v.srv.URL + "/v1beta"
	}
	t.Cleanup(func() {
		close(v.quit)
		v.srv.Close()
	})
	return v
}

// Add appends turns to the script.
func (v *Vendor) Add(turns ...Turn) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.turns = append(v.turns, turns...)
}

// Requests returns every request received so far.
func (v *Vendor) Requests() []VendorRequest {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]VendorRequest(nil), v.reqs...)
}

// Pending returns how many scripted turns have not been used.
func (v *Vendor) Pending() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.turns)
}

func (v *Vendor) path() string {
	switch v.Wire {
	case Responses:
		return "/v1/responses"
	case Anthropic:
		return "/v1/messages"
	}
	return "/v1beta/models/"
}

func (v *Vendor) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, v.path()) {
		v.t.Errorf("llmtest: %s server: unexpected %s %s", v.Wire, r.Method, r.URL.Path)
		http.Error(w, "no such endpoint", http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req := VendorRequest{Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	if err := json.Unmarshal(body, &req.JSON); err != nil {
		v.t.Errorf("llmtest: %s request is not JSON: %v", v.Wire, err)
		http.Error(w, "malformed request", http.StatusBadRequest)
		return
	}
	switch v.Wire {
	case Gemini:
		req.Stream = strings.HasSuffix(r.URL.Path, ":streamGenerateContent")
	default:
		req.Stream, _ = req.JSON["stream"].(bool)
	}
	walk(req.JSON, &req)
	v.mu.Lock()
	v.reqs = append(v.reqs, req)
	n := len(v.reqs)
	var tn Turn
	ok := len(v.turns) > 0
	if ok {
		tn, v.turns = v.turns[0], v.turns[1:]
	}
	v.n++
	id := v.n
	v.mu.Unlock()
	if !ok {
		v.t.Errorf("llmtest: %s request %d arrived but the script has no turn left", v.Wire, n)
		v.writeError(w, http.StatusBadRequest, "script exhausted", "")
		return
	}
	if tn.Func != nil {
		tn = tn.Func(req)
	}
	v.serve(w, r, req, tn, id)
}

// walk gathers the texts and images of a decoded body.
func walk(x any, req *VendorRequest) {
	switch t := x.(type) {
	case map[string]any:
		if s, ok := t["text"].(string); ok {
			req.Texts = append(req.Texts, s)
		}
		for _, k := range []string{"image_url", "url"} {
			if s, ok := t[k].(string); ok && strings.HasPrefix(s, "data:image/") {
				if _, data, ok := strings.Cut(s, ";base64,"); ok {
					req.Images = append(req.Images, decodeSize(data))
				}
			}
		}
		if s, ok := t["data"].(string); ok {
			if _, typed := t["media_type"]; typed {
				req.Images = append(req.Images, decodeSize(s))
			} else if _, typed := t["mimeType"]; typed {
				req.Images = append(req.Images, decodeSize(s))
			}
		}
		for _, k := range sortedKeys(t) {
			if k != "text" {
				walk(t[k], req)
			}
		}
	case []any:
		for _, e := range t {
			walk(e, req)
		}
	}
}

// sortedKeys orders a JSON object's keys so the walk is deterministic; the
// content arrays, which hold the order that matters, keep theirs.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

func decodeSize(b64 string) image.Point {
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return image.Point{}
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return image.Point{}
	}
	return image.Pt(cfg.Width, cfg.Height)
}

// serve answers one request.
func (v *Vendor) serve(w http.ResponseWriter, r *http.Request, req VendorRequest, tn Turn, id int) {
	if tn.Hang {
		v.wait(r, -1)
		return
	}
	if tn.Status >= 400 && !tn.StreamError {
		if tn.RetryAfter != "" {
			w.Header().Set("Retry-After", tn.RetryAfter)
		}
		msg := tn.Message
		if msg == "" {
			msg = http.StatusText(tn.Status)
		}
		v.writeError(w, tn.Status, msg, tn.ErrorType)
		return
	}
	if !req.Stream {
		if !v.wait(r, tn.Delay) {
			return
		}
		body := v.whole(req, tn, id)
		if tn.MalformedJSON {
			body = body[:len(body)/2]
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
		return
	}
	es := &eventStream{w: w, r: r, v: v, delay: tn.Delay}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	switch v.Wire {
	case Responses:
		v.streamResponses(es, req, tn, id)
	case Anthropic:
		v.streamAnthropic(es, req, tn, id)
	default:
		v.streamGemini(es, req, tn, id)
	}
}

// wait pauses for d (forever when d < 0) or until the client or the test
// is gone; it reports whether to go on.
func (v *Vendor) wait(r *http.Request, d time.Duration) bool {
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
	case <-v.quit:
	}
	return false
}

// writeError sends the vendor's error body.
func (v *Vendor) writeError(w http.ResponseWriter, status int, msg, typ string) {
	var body any
	switch v.Wire {
	case Anthropic:
		if typ == "" {
			typ = map[int]string{400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error",
				500: "api_error", 529: "overloaded_error"}[status]
		}
		body = map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
	case Gemini:
		st := map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
			429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}[status]
		body = map[string]any{"error": map[string]any{"code": status, "message": msg, "status": st}}
	default:
		body = map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": nil}}
	}
	data, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// eventStream writes SSE events.
type eventStream struct {
	w     http.ResponseWriter
	r     *http.Request
	v     *Vendor
	delay time.Duration
}

// send writes one event (event "" writes a bare data: line) and reports
// whether to go on.
func (s *eventStream) send(event string, data any) bool {
	if !s.v.wait(s.r, s.delay) {
		return false
	}
	var b []byte
	if raw, ok := data.(string); ok {
		b = []byte(raw)
	} else {
		b, _ = json.Marshal(data)
	}
	var err error
	if event != "" {
		_, err = fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", event, b)
	} else {
		_, err = fmt.Fprintf(s.w, "data: %s\n\n", b)
	}
	if fl, ok := s.w.(http.Flusher); ok {
		fl.Flush()
	}
	return err == nil
}

// fault plays a mid-stream fault (after After pieces) and reports whether
// the stream ends there. errEvent is the vendor's error event.
func (s *eventStream) fault(tn Turn, errEvent func()) bool {
	switch {
	case tn.CutStream:
		panic(http.ErrAbortHandler)
	case tn.Stall:
		s.v.wait(s.r, -1)
	case tn.MalformedJSON:
		s.send("", `{"type": "broken", "x": "`)
	case tn.StreamError:
		errEvent()
	default:
		return false
	}
	return true
}

// pieces cuts text into stream deltas.
func pieces(text string) []string { return split(text) }

// usageOf is the usage a turn reports: its own, else bytes/4 of the
// request and the number of pieces.
func usageOf(tn Turn, req VendorRequest, n int) Usage {
	if tn.Usage != nil {
		return *tn.Usage
	}
	return Usage{Prompt: len(req.Body)/4 + 1, Completion: n + len(tn.Calls)}
}
