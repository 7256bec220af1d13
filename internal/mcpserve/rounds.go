package mcpserve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// From protocol revision 2026-07-28 on, a server may no longer send the host
// a request while it serves a call: to ask the host's person something it
// answers the call with input_required (the questions, and an opaque
// requestState), and the host calls again with the answers and the state.
// deskpilot's calls cannot start over at each answer (a run_code block or a
// run_task is halfway through the desktop), so a call on that revision runs
// on past the request that started it: its work goes on in a goroutine, a
// question parks it under a fresh random state, and the host's next call
// with that state hands the answer in and waits for the next question or
// the result. The legacy revisions keep elicitation mid-call (session.ask,
// session.confirm).

const (
	// questionKey is the key of deskpilot's one question in inputRequests.
	questionKey = "deskpilot"
	// metaProtocol is the per-request _meta key of the caller's revision.
	metaProtocol = "io.modelcontextprotocol/protocolVersion"
	// roundsRevision is the first revision without server-sent requests.
	roundsRevision = "2026-07-28"
	// maxTripRounds bounds the questions one call may put: past it the
	// question is answered as refused, so a call cannot ask forever.
	maxTripRounds = 64
)

// defaultAnswerWait is how long a question waits for the host's answer
// (the call again with its state) before it counts as refused and the call
// is ended; the desktop is held all the while.
const defaultAnswerWait = 10 * time.Minute

// multiRound reports whether req's caller speaks a revision where questions
// ride on results.
func multiRound(req *mcp.CallToolRequest) bool {
	if req.Params != nil {
		if v, ok := req.Params.GetMeta()[metaProtocol].(string); ok {
			return v >= roundsRevision
		}
	}
	ip := req.Session.InitializeParams()
	return ip != nil && ip.ProtocolVersion >= roundsRevision
}

// formsOf reports whether capabilities declare form elicitation (an empty
// elicitation capability means form).
func formsOf(c *mcp.ClientCapabilities) bool {
	if c == nil || c.Elicitation == nil {
		return false
	}
	return c.Elicitation.Form != nil || c.Elicitation.URL == nil
}

// A trip is one call on a multi-round revision, from its first request to
// its result.
type trip struct {
	st    *session
	tool  string
	args  map[string]any // the call's arguments, decoded: a retry must carry the same
	forms bool           // the host shows forms, so questions can be put

	ctx    context.Context // the work's; ends with the session or the host's cancel
	cancel context.CancelFunc
	asks   chan *question
	done   chan tripResult // buffered: the work never blocks on it

	mu     sync.Mutex
	rounds int
	token  any // the progress token of the request served now; nil = none open
}

// progressToken is where the call's progress goes now: the request being
// served (each round is a request of its own); nil while parked.
func (t *trip) progressToken() any {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.token
}

type question struct {
	params *mcp.ElicitParams
	reply  chan *mcp.ElicitResult // buffered; nil result = no answer
}

type tripResult struct {
	res *mcp.CallToolResult
	err error
}

type tripKey struct{}

// tripOf is the trip a handler's ctx belongs to; nil on legacy revisions.
func tripOf(ctx context.Context) *trip {
	t, _ := ctx.Value(tripKey{}).(*trip)
	return t
}

// withRounds wraps a tool's handler so that on a multi-round revision its
// questions ride on results; on the others h runs as it is.
func (s *Server) withRounds(h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params == nil || !multiRound(req) {
			return h(ctx, req)
		}
		st := s.sessionOf(req.Session)
		if state := req.Params.RequestState; state != "" {
			t, err := st.answer(state, req)
			if err != nil {
				return nil, err
			}
			return t.serve(ctx, req)
		}
		if len(req.Params.InputResponses) > 0 {
			return nil, invalid("%s: inputResponses without the requestState they answer", req.Params.Name)
		}
		// A host that calls again without answering has dropped the
		// question (a call aborted between rounds sends nothing): the
		// parked call ends, refused, rather than hold the desktop.
		st.endTrips()
		args, err := decodeArgs(req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		t := &trip{st: st, tool: req.Params.Name, args: args, forms: formsOf(req.ClientCapabilities()),
			asks: make(chan *question), done: make(chan tripResult, 1)}
		t.ctx, t.cancel = context.WithCancel(context.WithValue(st.ctx, tripKey{}, t))
		go func() {
			res, err := h(t.ctx, req)
			t.done <- tripResult{res, err}
		}()
		return t.serve(ctx, req)
	}
}

// serve waits, for the request being served now, for the work's next
// question or its result. The host cancelling this request cancels the
// call, as Stop does.
func (t *trip) serve(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	t.mu.Lock()
	t.token = req.Params.GetProgressToken()
	t.mu.Unlock()
	select {
	case q := <-t.asks:
		t.mu.Lock()
		t.token = nil // no request is open until the host calls again
		t.mu.Unlock()
		state, err := t.st.park(t, q)
		if err != nil {
			q.reply <- nil
			return t.serve(ctx, req)
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{questionKey: q.params}, RequestState: state}, nil
	case r := <-t.done:
		t.cancel()
		return r.res, r.err
	case <-ctx.Done():
		t.cancel()
		<-t.done
		return nil, ctx.Err()
	}
}

// ask puts params to the host's person through the call's result and
// waits for the answer; nil means no answer (refused, expired, cancelled).
func (t *trip) ask(params *mcp.ElicitParams) *mcp.ElicitResult {
	t.mu.Lock()
	t.rounds++
	over := t.rounds > maxTripRounds
	t.mu.Unlock()
	if over {
		return nil
	}
	q := &question{params: params, reply: make(chan *mcp.ElicitResult, 1)}
	select {
	case t.asks <- q:
	case <-t.ctx.Done():
		return nil
	}
	select {
	case r := <-q.reply:
		return r
	case <-t.ctx.Done():
		return nil
	}
}

// A parked trip waits for the host's call with its state.
type parked struct {
	t     *trip
	q     *question
	timer *time.Timer
}

// park files t's question under a fresh random state. Unanswered within
// the server's answer wait, the question counts as refused and the call
// is ended.
func (st *session) park(t *trip, q *question) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	state := hex.EncodeToString(b[:])
	st.tripMu.Lock()
	defer st.tripMu.Unlock()
	if st.parked == nil {
		st.parked = map[string]*parked{}
	}
	p := &parked{t: t, q: q}
	p.timer = time.AfterFunc(st.srv.answerWait(), func() {
		if st.unpark(state) != nil {
			q.reply <- nil
			t.cancel()
		}
	})
	st.parked[state] = p
	return state, nil
}

// unpark takes the trip parked under state out of the session's files.
func (st *session) unpark(state string) *parked {
	st.tripMu.Lock()
	defer st.tripMu.Unlock()
	p := st.parked[state]
	if p != nil {
		delete(st.parked, state)
		p.timer.Stop()
	}
	return p
}

// endTrips ends the session's parked calls: their questions go unanswered
// (refused) and their work is cancelled.
func (st *session) endTrips() {
	st.tripMu.Lock()
	ps := st.parked
	st.parked = nil
	st.tripMu.Unlock()
	for _, p := range ps {
		p.timer.Stop()
		p.q.reply <- nil
		p.t.cancel()
	}
}

// answer hands the answer a retry carries to the call parked under state.
// A state this session did not give, one already answered or expired, or a
// retry of another tool or with other arguments is refused and changes
// nothing.
func (st *session) answer(state string, req *mcp.CallToolRequest) (*trip, error) {
	st.tripMu.Lock()
	p := st.parked[state]
	st.tripMu.Unlock()
	if p == nil {
		return nil, invalid("%s: requestState is not one this session is waiting on (answered already, expired after %s, or never given)",
			req.Params.Name, st.srv.answerWait())
	}
	if req.Params.Name != p.t.tool {
		return nil, invalid("%s: requestState belongs to a call of %s", req.Params.Name, p.t.tool)
	}
	args, err := decodeArgs(req.Params.Arguments)
	if err != nil {
		return nil, err
	}
	if !sameArgs(args, p.t.args) {
		return nil, invalid("%s: the call with this requestState must carry the arguments of the call that asked", req.Params.Name)
	}
	if st.unpark(state) == nil {
		return nil, invalid("%s: requestState was answered already", req.Params.Name)
	}
	var answer *mcp.ElicitResult
	if r, ok := req.Params.InputResponses[questionKey].(*mcp.ElicitResult); ok {
		answer = r
	}
	p.q.reply <- answer
	return p.t, nil
}

// sameArgs compares decoded arguments: encoding/json writes map keys
// sorted, so equal arguments encode alike.
func sameArgs(a, b map[string]any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// answerWait is how long a parked question waits for its answer.
func (s *Server) answerWait() time.Duration {
	if s.o.AnswerWait > 0 {
		return s.o.AnswerWait
	}
	return defaultAnswerWait
}

// elicit puts params to the host's person: through the call's result on a
// multi-round revision, mid-call on the others. A nil result with a nil
// error means nobody answered.
func (st *session) elicit(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if t := tripOf(ctx); t != nil {
		if !t.forms {
			return nil, errNoElicitation
		}
		if r := t.ask(params); r != nil {
			return r, nil
		}
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
	if !st.canElicit() {
		return nil, errNoElicitation
	}
	return st.ss.Elicit(ctx, params)
}
