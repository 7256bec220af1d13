package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"deskpilot/agent"
)

// MaxTask bounds run_task's task, in bytes.
const MaxTask = 16 << 10

// taskTool is run_task's declaration.
func taskTool() *mcp.Tool {
	return &mcp.Tool{
		Name: toolRunTask,
		Description: "Hand a whole task to deskpilot's own agent (its configured vision model drives the desktop step by step, " +
			"through the same guard). Progress is notified every step; cancelling the call stops the run at once. " +
			"Returns the final answer, the outcome (answered, failed, max_steps, cancelled), the steps taken and the trace folder.",
		InputSchema: map[string]any{"type": "object", "additionalProperties": false, "required": []string{"task"},
			"properties": map[string]any{
				"task":      map[string]any{"type": "string", "description": "what to do, as you would tell a person"},
				"max_steps": map[string]any{"type": "integer", "minimum": 1, "maximum": 10000, "description": "step limit (default: the configured max_steps)"},
				"dialect":   map[string]any{"type": "string", "description": "reply format of the model (code, pyautogui, uitars-1.5, ...; default: the configured one)"},
				"model":     map[string]any{"type": "string", "description": "model name at the configured endpoint (default: the configured model)"},
			}},
		Annotations: &mcp.ToolAnnotations{Title: "run task", OpenWorldHint: boolPtr(true)},
	}
}

func boolPtr(b bool) *bool { return &b }

// taskArgs are run_task's arguments, checked.
type taskArgs struct {
	Task     string `json:"task"`
	MaxSteps int    `json:"max_steps"`
	Dialect  string `json:"dialect"`
	Model    string `json:"model"`
}

func parseTaskArgs(raw json.RawMessage) (taskArgs, error) {
	args, err := decodeArgs(raw)
	if err != nil {
		return taskArgs{}, err
	}
	var a taskArgs
	for k, v := range args {
		switch k {
		case "task", "dialect", "model":
			s, ok := v.(string)
			if !ok {
				return a, invalid("run_task: %s must be a string, got %s", k, jsonKind(v))
			}
			switch k {
			case "task":
				a.Task = s
			case "dialect":
				a.Dialect = s
			default:
				a.Model = s
			}
		case "max_steps":
			n, ok := v.(json.Number)
			i, err := n.Int64()
			if !ok || err != nil || i < 1 || i > 10000 {
				return a, invalid("run_task: max_steps must be a whole number from 1 to 10000, got %v", v)
			}
			a.MaxSteps = int(i)
		default:
			return a, invalid("run_task: unknown argument %q (it takes task, max_steps, dialect, model)", k)
		}
	}
	switch {
	case strings.TrimSpace(a.Task) == "":
		return a, invalid("run_task: task is required and must not be empty")
	case len(a.Task) > MaxTask:
		return a, invalid("run_task: a task of %d bytes is more than the %d it may have", len(a.Task), MaxTask)
	case len(a.Model) > 256 || len(a.Dialect) > 64:
		return a, invalid("run_task: model or dialect is too long")
	}
	return a, nil
}

// taskResult is run_task's structured result.
type taskResult struct {
	Outcome string `json:"outcome"`
	Answer  string `json:"answer"`
	Error   string `json:"error,omitempty"`
	Steps   int    `json:"steps"`
	Trace   string `json:"trace,omitempty"`
}

// runTask is run_task's handler: a run of the agent, its events turned into
// progress notifications, its questions and approvals into elicitations, and
// the host's cancellation into Stop.
func (s *Server) runTask(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := parseTaskArgs(req.Params.Arguments)
	if err != nil {
		return nil, err
	}
	st := s.sessionOf(req.Session)
	if st.stopped.Load() {
		return errorResult(stoppedText), nil
	}
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.release()
	w, err := s.o.Open(ctx, RunOptions{Task: a.Task, Model: a.Model, Dialect: a.Dialect, MaxSteps: a.MaxSteps})
	if err != nil {
		return errorResult("deskpilot could not start the run: " + st.redact(err.Error())), nil
	}
	defer w.Close()
	prog := newProgress(ctx, req, w.Agent)
	defer prog.close()
	var run *agent.Session
	var runMu sync.Mutex
	hooks := agent.Hooks{
		Event: func(e agent.Event) {
			prog.event(e)
			if p, ok := e.(agent.Paused); ok && !st.stripPaused.Load() {
				runMu.Lock()
				r := run
				runMu.Unlock()
				go st.takenOver(ctx, r, p.Reason)
			}
		},
	}
	hooks.Ask, hooks.Confirm = st.questions(ctx)
	runMu.Lock()
	run = w.Agent.Start(ctx, a.Task, hooks)
	runMu.Unlock()
	st.setCall(toolRunTask, run.Stop, run)
	defer st.setCall("", nil, nil)
	if st.stripPaused.Load() {
		run.Pause()
	}
	<-run.Done()
	_ = w.Agent.ReleaseInput()
	fin := run.Result()
	if ctx.Err() != nil {
		st.record(fmt.Sprintf("run_task(task=%q)", clip(a.Task, 2000)), "cancelled by the host; trace: "+fin.TraceDir)
		return nil, ctx.Err()
	}
	out := taskResult{Outcome: string(fin.Outcome), Answer: st.redactWith(w, fin.Answer), Error: st.redactWith(w, fin.Error),
		Steps: fin.Steps, Trace: fin.TraceDir}
	text := fmt.Sprintf("outcome: %s\nsteps: %d\n", out.Outcome, out.Steps)
	if out.Answer != "" {
		text += "answer: " + out.Answer + "\n"
	}
	if out.Error != "" {
		text += "error: " + out.Error + "\n"
	}
	if out.Trace != "" {
		text += "trace: " + out.Trace + "\n"
	}
	st.record(fmt.Sprintf("run_task(task=%q)", clip(a.Task, 2000)), text)
	return &mcp.CallToolResult{
		IsError:           fin.Outcome == agent.Failed,
		Content:           []mcp.Content{&mcp.TextContent{Text: strings.TrimSpace(text)}},
		StructuredContent: out,
	}, nil
}

// record writes a run_task call into the session's trace (its console,
// opened for it when the task was the session's first call).
func (st *session) record(call, result string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if con, err := st.openConsole(st.ctx); err == nil {
		con.Record(call, result)
	}
}

// redactWith hides w's agent's secrets in s.
func (st *session) redactWith(w *Wired, s string) string { return w.Agent.RedactText(s) }

// takenOver handles a run paused because the person took over: a host that
// can ask is asked whether the run goes on (yes resumes it, anything else
// stops it); otherwise the run waits, paused, for the strip's Resume or the
// host's cancellation.
func (st *session) takenOver(ctx context.Context, run *agent.Session, reason string) {
	if run == nil || (tripOf(ctx) == nil && !st.canElicit()) {
		return
	}
	res, err := st.elicit(ctx, &mcp.ElicitParams{
		Message: fmt.Sprintf("deskpilot paused the task: %s. Let it continue on the desktop as it is now?", reason),
		RequestedSchema: map[string]any{"type": "object", "required": []string{"continue"}, "properties": map[string]any{
			"continue": map[string]any{"type": "boolean", "title": "Continue"}}},
	})
	if err != nil || res.Action != "accept" {
		run.Stop()
		return
	}
	if ok, _ := res.Content["continue"].(bool); ok {
		run.Resume("")
		return
	}
	run.Stop()
}

// progress turns a run's events into progress notifications, one per step:
// its number, the model's thought and the actions taken. Notifications go
// out on their own goroutine, so the loop never waits on the host.
type progress struct {
	ctx   context.Context
	ss    *mcp.ServerSession
	token any   // the call's progress token; nil = the host wants none
	trip  *trip // on revisions where questions ride on results, the token of each round
	a     *agent.Agent
	max   int
	out   chan *mcp.ProgressNotificationParams
	done  chan struct{}

	mu      sync.Mutex
	thought string
	acts    []string
	last    float64 // the progress sent last: progress only grows
}

func newProgress(ctx context.Context, req *mcp.CallToolRequest, a *agent.Agent) *progress {
	p := &progress{ctx: ctx, ss: req.Session, token: req.Params.GetProgressToken(), trip: tripOf(ctx), a: a, max: a.Config.MaxSteps,
		out: make(chan *mcp.ProgressNotificationParams, 64), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for n := range p.out {
			_ = p.ss.NotifyProgress(ctx, n)
		}
	}()
	return p
}

func (p *progress) close() {
	close(p.out)
	<-p.done
}

// event folds one event; a step's end sends its notification.
func (p *progress) event(e agent.Event) {
	if p.trip == nil && p.token == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := e.(type) {
	case agent.RunStarted:
		p.max = e.MaxSteps
	case agent.StepStarted:
		p.thought, p.acts = "", nil
	case agent.CodeParsed:
		p.thought = e.Thought
	case agent.ActionDone:
		s := e.Action.Name + "(" + e.Action.Args + ")"
		if e.Action.Error != "" {
			s += " failed"
		}
		p.acts = append(p.acts, s)
	case agent.Observed:
		if e.Step == 0 {
			return
		}
		msg := fmt.Sprintf("step %d", e.Step)
		if t := strings.TrimSpace(p.thought); t != "" {
			msg += ": " + clip(t, 400)
		}
		if len(p.acts) > 0 {
			msg += " | actions: " + clip(strings.Join(p.acts, ", "), 600)
		}
		p.send(float64(e.Step), p.a.RedactText(msg))
	case agent.Paused:
		p.send(-1, p.a.RedactText("paused: "+e.Reason))
	case agent.Finished:
		p.send(float64(e.Steps), p.a.RedactText("finished: "+string(e.Outcome)))
	}
}

// send queues a notification; progress never goes back (-1 keeps it).
func (p *progress) send(step float64, msg string) {
	p.last = max(p.last, step)
	token := p.token
	if p.trip != nil {
		token = p.trip.progressToken()
	}
	if token == nil {
		return
	}
	n := &mcp.ProgressNotificationParams{ProgressToken: token, Message: msg, Progress: p.last}
	if p.max > 0 {
		n.Total = float64(p.max)
	}
	select {
	case p.out <- n:
	default: // a host that reads nothing does not hold up the run
	}
}

// clip shortens s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
