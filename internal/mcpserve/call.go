package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"deskpilot/agent"
	"deskpilot/agent/script"
	"deskpilot/vision"
)

// MaxCode bounds run_code's code, in bytes.
const MaxCode = 256 << 10

// addTools registers the primitives, run_code and run_task.
func (s *Server) addTools() {
	for _, t := range catalogueTools() {
		s.mcp.AddTool(toolFor(t), s.withRounds(s.primitive(t)))
	}
	s.mcp.AddTool(&mcp.Tool{
		Name: toolRunCode,
		Description: "Run Starlark (a Python dialect) on the desktop with every builtin deskpilot's agent has: " +
			"click, type_text, press, find_text, click_text, find_elements, visit_page, inspect_file and the rest, " +
			"as a model's code runs, in a sandbox. Variables and functions persist for the session. " +
			"The result is what the code printed, the actions it took and the screen's change; " +
			"call final_answer(x) to return a value.",
		InputSchema: map[string]any{"type": "object", "additionalProperties": false, "required": []string{"code"},
			"properties": map[string]any{"code": map[string]any{"type": "string", "description": "the Starlark code"}}},
		Annotations: &mcp.ToolAnnotations{Title: "run code"},
	}, s.withRounds(s.runCode))
	s.mcp.AddTool(taskTool(), s.withRounds(s.runTask))
}

// primitive is the handler of one builtin's tool.
func (s *Server) primitive(t script.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := decodeArgs(req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		code, err := callCode(t, args)
		if err != nil {
			return nil, err
		}
		if t.Name == "screenshot" {
			code = "" // the observation after an empty block is the screenshot
		}
		return s.sessionOf(req.Session).call(ctx, t.Name, code, t.Name == "screenshot")
	}
}

// runCode is run_code's handler.
func (s *Server) runCode(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, err := decodeArgs(req.Params.Arguments)
	if err != nil {
		return nil, err
	}
	code, ok := args["code"].(string)
	switch {
	case !ok:
		return nil, invalid("run_code: code must be a string, got %s", jsonKind(args["code"]))
	case len(args) != 1:
		return nil, invalid("run_code takes one argument, code")
	case len(code) > MaxCode:
		return nil, invalid("run_code: code of %d bytes is more than the %d it may have", len(code), MaxCode)
	case strings.TrimSpace(code) == "":
		return nil, invalid("run_code: code is empty")
	}
	return s.sessionOf(req.Session).call(ctx, toolRunCode, code, false)
}

// blockEvents gathers what one console block reports.
type blockEvents struct {
	mu       sync.Mutex
	obs      agent.Observed
	got      bool
	tookOver string
}

// call runs code as one step of the session's console and returns what it
// did: the observation text (redacted), the images the code attached, and,
// for screenshot, the screen as the model would see it with its coordinate
// contract.
func (st *session) call(ctx context.Context, tool, code string, shot bool) (*mcp.CallToolResult, error) {
	if st.stopped.Load() {
		return errorResult(stoppedText), nil
	}
	if err := st.srv.acquire(ctx); err != nil {
		return nil, err
	}
	defer st.srv.release()
	st.mu.Lock()
	defer st.mu.Unlock()
	con, err := st.openConsole(ctx)
	if err != nil {
		return errorResult("deskpilot could not open the desktop: " + st.redact(err.Error())), nil
	}
	ev := &blockEvents{}
	hooks := agent.Hooks{
		Event: func(e agent.Event) {
			switch e := e.(type) {
			case agent.Observed:
				ev.mu.Lock()
				ev.obs, ev.got = e, true
				ev.mu.Unlock()
			case agent.Paused:
				if !st.stripPaused.Load() {
					// Takeover: the person has the desktop. The call stops
					// before acting further, at once, instead of waiting.
					ev.mu.Lock()
					ev.tookOver = e.Reason
					ev.mu.Unlock()
					con.CancelBlock()
				}
			}
		},
	}
	hooks.Ask, hooks.Confirm = st.questions(ctx)
	con.Fresh() // what the person did between calls is theirs
	st.setCall(tool, con.CancelBlock, nil)
	defer st.setCall("", nil, nil)
	stopOnCancel := context.AfterFunc(ctx, con.CancelBlock)
	res, err := con.Run(st.ctx, code, hooks)
	stopOnCancel()
	if res.ErrorKind == script.KindCancelled || ctx.Err() != nil {
		_ = st.wired.Agent.ReleaseInput()
	}
	ev.mu.Lock()
	obs, got, took := ev.obs, ev.got, ev.tookOver
	ev.mu.Unlock()
	if took != "" {
		con.Resume("")
	}
	if err != nil {
		return errorResult(st.redact(err.Error())), nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return st.result(con, tool, res, obs, got, took, shot), nil
}

// stoppedText answers calls after the person stopped the session.
const stoppedText = "stopped: the person stopped deskpilot (deskpilot stop, the Stop key or the strip's Stop); nothing was done. Reconnect the MCP server to use the desktop again."

// result is the MCP result of one console block.
func (st *session) result(con *agent.Console, tool string, res agent.BlockResult, obs agent.Observed, got bool, took string, shot bool) *mcp.CallToolResult {
	var b strings.Builder
	if took != "" {
		fmt.Fprintf(&b, "Stopped: the person took over the desktop (%s); the call ended before acting further. Take a new screenshot when they are done, then go on.\n", took)
	}
	if shot {
		b.WriteString(con.Mapper().Contract())
		b.WriteString("\n")
	}
	if got {
		text := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(obs.Text), "This is the screen now:"))
		if text != "" {
			b.WriteString(text)
			b.WriteString("\n")
		}
	}
	if res.Answered {
		fmt.Fprintf(&b, "final_answer: %s\n", res.Answer)
	}
	out := &mcp.CallToolResult{IsError: res.Error != "" || took != ""}
	out.Content = append(out.Content, &mcp.TextContent{Text: st.redact(strings.TrimSpace(b.String()))})
	for _, a := range obs.Attachments {
		out.Content = append(out.Content, &mcp.ImageContent{Data: a.Data, MIMEType: mimeOf(a.Format)})
	}
	if got && obs.FrameData != nil {
		mime := mimeOf(obs.FrameFormat)
		st.ctlMu.Lock()
		st.shot, st.mime = obs.FrameData, mime
		st.ctlMu.Unlock()
		if shot {
			out.Content = append(out.Content, &mcp.ImageContent{Data: obs.FrameData, MIMEType: mime})
		}
	}
	if shot {
		m := con.Mapper()
		x, y := m.Extent()
		out.StructuredContent = map[string]any{"width": m.Image.X, "height": m.Image.Y, "coords": string(m.Mode),
			"extent": []float64{x, y}}
	}
	return out
}

// mimeOf is the MIME type of an image format name ("png", "jpeg", "webp").
func mimeOf(format string) string {
	f, err := vision.ParseFormat(format)
	if err != nil {
		return "image/png"
	}
	return f.MIME()
}

// errorResult is a tool result that failed, with a text for the host's model.
func errorResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// errNoElicitation is why approvals are refused for a host that cannot ask.
var errNoElicitation = fmt.Errorf("the MCP host cannot ask the person (it offers no elicitation), so actions that need approval are refused")

// canElicit reports whether the host asks its person mid-call: it declared
// form elicitation (an empty elicitation capability means form; one with
// only url mode cannot show a form), on a protocol that allows a server to
// ask while it serves a call (before 2026-07-28; from it on questions ride
// on the call's result, see trip).
func (st *session) canElicit() bool {
	ip := st.ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil || ip.ProtocolVersion >= "2026-07-28" {
		return false
	}
	e := ip.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil
}

// questions are the Ask and Confirm hooks of a call served under ctx: its
// questions go to the host's person as the call's revision allows.
func (st *session) questions(ctx context.Context) (ask func(context.Context, string) (string, error), confirm func(context.Context, string) (bool, error)) {
	t := tripOf(ctx)
	bind := func(c context.Context) context.Context {
		if t != nil {
			return context.WithValue(c, tripKey{}, t)
		}
		return c
	}
	return func(c context.Context, q string) (string, error) { return st.ask(bind(c), q) },
		func(c context.Context, a string) (bool, error) { return st.confirm(bind(c), a) }
}

// confirm asks the host's person to approve action; a host without
// elicitation gets a refusal, never an approval.
func (st *session) confirm(ctx context.Context, action string) (bool, error) {
	res, err := st.elicit(ctx, &mcp.ElicitParams{
		Message: st.redact("deskpilot asks for your approval: " + action),
		RequestedSchema: map[string]any{"type": "object", "required": []string{"allow"}, "properties": map[string]any{
			"allow": map[string]any{"type": "boolean", "title": "Allow", "description": "true lets deskpilot do it"}}},
	})
	if err != nil {
		if errors.Is(err, errNoElicitation) {
			return false, err
		}
		return false, fmt.Errorf("elicitation: %w", err)
	}
	if res.Action != "accept" {
		return false, nil
	}
	allow, _ := res.Content["allow"].(bool)
	return allow, nil
}

// ask puts ask_user's question to the host's person.
func (st *session) ask(ctx context.Context, question string) (string, error) {
	res, err := st.elicit(ctx, &mcp.ElicitParams{
		Message: st.redact(question),
		RequestedSchema: map[string]any{"type": "object", "required": []string{"answer"}, "properties": map[string]any{
			"answer": map[string]any{"type": "string", "title": "Answer"}}},
	})
	if errors.Is(err, errNoElicitation) {
		return "", fmt.Errorf("nobody can answer: the MCP host offers no elicitation; decide yourself or end with final_answer and say what you need")
	}
	if err != nil {
		return "", fmt.Errorf("elicitation: %w", err)
	}
	if res.Action != "accept" {
		return "", fmt.Errorf("the person did not answer (%s)", res.Action)
	}
	answer, _ := res.Content["answer"].(string)
	return answer, nil
}
