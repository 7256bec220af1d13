package mcpserve

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"deskpilot/agent"
	"deskpilot/internal/runctl"
)

// session is the state of one MCP session: its console (the Starlark
// globals of run_code, the trace), its control entry, the latest screenshot.
type session struct {
	srv  *Server
	ss   *mcp.ServerSession
	host string
	// ctx lives as long as the session; blocks run under it, and the host's
	// cancellation of a call stops the block (CancelBlock) so the console
	// still observes and records it.
	ctx    context.Context
	cancel context.CancelFunc
	entry  *runctl.Entry

	mu    sync.Mutex // one call at a time; guards wired, con and ended
	wired *Wired
	con   *agent.Console
	ended bool

	stopped     atomic.Bool // the person stopped the session: calls are refused
	stripPaused atomic.Bool // the person paused it from the strip

	ctlMu    sync.Mutex
	stopCall func()         // stops the call running now; nil = none
	run      *agent.Session // the run_task going on, for Pause/Resume
	conRef   *agent.Console // the console once open, for Pause/Resume
	agentRef *agent.Agent   // its agent, so Stop lets go of held keys and buttons
	shot     []byte         // the latest screenshot as sent, mime its type
	mime     string

	tripMu sync.Mutex
	parked map[string]*parked // calls waiting for the host's answer, by requestState
}

func newSession(s *Server, ss *mcp.ServerSession) *session {
	ctx, cancel := context.WithCancel(context.Background())
	st := &session{srv: s, ss: ss, host: hostName(ss), ctx: ctx, cancel: cancel}
	if s.o.Register != nil {
		e, err := s.o.Register(runctl.Status{Kind: runctl.KindMCP, Host: st.host, Task: "driven over MCP by " + st.host},
			runctl.Controls{Stop: st.stop, Pause: st.pause, Resume: st.resume})
		if err != nil {
			s.o.Log.Warn("mcp session not reachable by deskpilot stop", "err", err)
		}
		st.entry = e
	}
	return st
}

// hostName is the client's name from its handshake.
func hostName(ss *mcp.ServerSession) string {
	if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil {
		name := ip.ClientInfo.Title
		if name == "" {
			name = ip.ClientInfo.Name
		}
		// The name is the peer's word: control characters go, and its length
		// is bounded, before it reaches the strip and the trace.
		name = strings.Join(strings.FieldsFunc(name, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }), " ")
		if name != "" {
			return clip(name, 64)
		}
	}
	return "an MCP host"
}

// setCall records what stops the call running now ("" tool = idle).
func (st *session) setCall(tool string, stop func(), run *agent.Session) {
	st.ctlMu.Lock()
	st.stopCall, st.run = stop, run
	st.ctlMu.Unlock()
	if st.entry != nil {
		st.entry.Update(func(s *runctl.Status) { s.Tool = tool })
	}
}

// stop is the person's Stop (deskpilot stop, the Stop key, the strip): the
// call running now ends, and the session refuses calls from then on.
func (st *session) stop() {
	st.stopped.Store(true)
	st.ctlMu.Lock()
	stop := st.stopCall
	st.ctlMu.Unlock()
	if stop != nil {
		stop()
	}
	// A button held by mouse_down (or a key by key_down) between calls is
	// let go at once: the stopped session takes no mouse_up.
	st.ctlMu.Lock()
	a := st.agentRef
	st.ctlMu.Unlock()
	if a != nil {
		_ = a.ReleaseInput()
	}
}

// pause is the strip's Pause: the next action waits until Resume.
func (st *session) pause() {
	st.stripPaused.Store(true)
	st.ctlMu.Lock()
	run := st.run
	st.ctlMu.Unlock()
	if run != nil {
		run.Pause()
	}
	if con := st.console(); con != nil {
		con.Pause()
	}
	if st.entry != nil {
		st.entry.Update(func(s *runctl.Status) { s.Paused = true })
	}
}

// resume is the strip's Resume.
func (st *session) resume() {
	st.stripPaused.Store(false)
	st.ctlMu.Lock()
	run := st.run
	st.ctlMu.Unlock()
	if run != nil {
		run.Resume("")
	}
	if con := st.console(); con != nil {
		con.Resume("")
	}
	if st.entry != nil {
		st.entry.Update(func(s *runctl.Status) { s.Paused = false })
	}
}

// console is the session's console when it is open. It never blocks on a
// call in progress.
func (st *session) console() *agent.Console {
	st.ctlMu.Lock()
	defer st.ctlMu.Unlock()
	return st.conRef
}

// openConsole opens the console on the first call; st.mu is held.
func (st *session) openConsole(ctx context.Context) (*agent.Console, error) {
	if st.con != nil {
		return st.con, nil
	}
	if st.ended {
		return nil, errors.New("the session has ended")
	}
	w, err := st.srv.o.Open(ctx, RunOptions{})
	if err != nil {
		return nil, err
	}
	con, err := w.Agent.NewConsole(ctx, "MCP session with "+st.host)
	if err != nil {
		_ = w.Close()
		return nil, err
	}
	st.wired, st.con = w, con
	st.ctlMu.Lock()
	st.conRef, st.agentRef = con, w.Agent
	st.ctlMu.Unlock()
	if st.stripPaused.Load() {
		con.Pause()
	}
	return con, nil
}

// end stops what runs, writes the trace and releases the desktop.
func (st *session) end() {
	st.stop()
	st.endTrips()
	st.cancel()
	st.mu.Lock()
	defer st.mu.Unlock()
	st.ended = true
	if st.con != nil {
		st.con.Close()
		st.con = nil
	}
	if st.wired != nil {
		_ = st.wired.Agent.ReleaseInput()
		_ = st.wired.Close()
		st.wired = nil
	}
	st.ctlMu.Lock()
	st.agentRef = nil
	st.ctlMu.Unlock()
	if st.entry != nil {
		_ = st.entry.Close()
	}
}

// redact hides the secrets of the session's agent in s.
func (st *session) redact(s string) string {
	if st.wired != nil {
		return st.wired.Agent.RedactText(s)
	}
	return s
}
