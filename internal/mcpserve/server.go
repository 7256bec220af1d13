// Package mcpserve owns `deskpilot mcp`: deskpilot as a Model Context Protocol
// server, so an agent host (Claude Code, Claude Desktop, Cursor, Codex, VS
// Code) drives the desktop through deskpilot's guarded builtins.
//
// Every tool call runs the same way a model's code does: a primitive tool is
// one call of its builtin, rendered as Starlark (click(x=640, y=400)) and run
// in the session's console — the same sandbox, guard (own windows masked and
// refused, takeover, the confirmation policy), secrets and trace as a run.
// run_code runs any Starlark in that console, its variables kept for the
// session; run_task runs deskpilot's whole agent as a sub-agent. Questions
// and approvals go to the host's person through elicitation; a host without
// it gets refusals, never approvals. The host's cancellation stops a call as
// Stop stops a run. Every session is a trace.
//
// The package sees the agent only through what Options give it: the CLI
// wires agents (internal/wiring) and registers sessions for `deskpilot stop`
// (internal/runctl).
package mcpserve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"deskpilot/agent"
	"deskpilot/internal/runctl"
)

// Name is the server's name in the MCP handshake and in hosts' configs.
const Name = "deskpilot"

// Wired is an agent wired to the desktop for one session or one run_task.
type Wired struct {
	Agent *agent.Agent
	// Close releases the desktop and the engines; called once.
	Close func() error
}

// RunOptions say what a run_task changes in the configured agent.
type RunOptions struct {
	// Task is set for run_task (it needs a model); "" opens a session's
	// console.
	Task string
	// Model and Dialect replace the configured ones when set; MaxSteps when > 0.
	Model, Dialect string
	MaxSteps       int
}

// Options are what the server needs from outside.
type Options struct {
	// Version is deskpilot's, reported in the handshake.
	Version string
	// Open wires an agent: one per session (its console) and one per
	// run_task. Errors are shown to the host.
	Open func(ctx context.Context, o RunOptions) (*Wired, error)
	// Register makes a session reachable by `deskpilot stop`, the Stop key
	// and the app's strip (runctl.Register); nil = not registered.
	Register func(st runctl.Status, c runctl.Controls) (*runctl.Entry, error)
	// Log receives operational logs (never arguments, images or secrets);
	// nil discards them.
	Log *slog.Logger
	// AnswerWait is how long a call on revision 2026-07-28 or later waits,
	// parked with the desktop held, for the host to call again with the
	// answer to its question; past it the question counts as refused and
	// the call ends. 0 = 10 minutes.
	AnswerWait time.Duration
}

// Server is deskpilot's MCP server. One Server serves any number of
// sessions (one over stdio; each HTTP client its own); they take turns at
// the desktop, one call at a time.
type Server struct {
	o   Options
	mcp *mcp.Server
	// desk is held by the call acting on the desktop now.
	desk chan struct{}

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*session
}

// New returns a server with the primitive tools, run_code, run_task and the
// session resources.
func New(o Options) *Server {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{o: o, desk: make(chan struct{}, 1), sessions: map[*mcp.ServerSession]*session{}}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "deskpilot desktop", Version: o.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       o.Log,
		InitializedHandler: func(ctx context.Context, req *mcp.InitializedRequest) {
			s.sessionOf(req.Session)
		},
	})
	s.addTools()
	s.addResources()
	return s
}

// instructions tell the host's model how the tools fit together.
const instructions = `deskpilot drives this computer's desktop. Call screenshot first: its image is the screen, and its text says the coordinate space every point is in (the image's pixels, or 0-1000). Act with click, type_text, press and the others, or find things with find_text / find_elements and act on them with click_text / click_element. run_code runs Starlark over all of these builtins at once (variables persist for the session); run_task hands a whole task to deskpilot's own agent. Actions that need the person's approval are asked through elicitation; the person can stop everything at any time.`

// ServeStdio serves one session over r and w (the process's standard input
// and output) until the client closes it or ctx ends.
func (s *Server) ServeStdio(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	out := &lockedWriter{w: w}
	in := guardLines(r, out)
	defer in.Close()
	ss, err := s.mcp.Connect(ctx, &mcp.IOTransport{Reader: in, Writer: out, MaxLineLength: MaxLine + 1}, nil)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { _ = ss.Close() })
	defer stop()
	err = ss.Wait()
	s.endSession(ss)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// Close ends every session: calls are stopped and traces written.
func (s *Server) Close() {
	s.mu.Lock()
	all := make([]*mcp.ServerSession, 0, len(s.sessions))
	for ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	for _, ss := range all {
		s.endSession(ss)
	}
}

// sessionOf returns the state of ss, made on first use; it ends when ss does.
func (s *Server) sessionOf(ss *mcp.ServerSession) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.sessions[ss]; ok {
		return st
	}
	st := newSession(s, ss)
	s.sessions[ss] = st
	go func() {
		_ = ss.Wait()
		s.endSession(ss)
	}()
	return st
}

// endSession stops what the session runs and writes its trace.
func (s *Server) endSession(ss *mcp.ServerSession) {
	s.mu.Lock()
	st, ok := s.sessions[ss]
	delete(s.sessions, ss)
	s.mu.Unlock()
	if ok {
		st.end()
	}
}

// acquire waits for the desktop; release gives it back.
func (s *Server) acquire(ctx context.Context) error {
	select {
	case s.desk <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Server) release() { <-s.desk }
