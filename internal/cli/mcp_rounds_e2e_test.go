package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"deskpilot/agent/llm/llmtest"
)

// On revision 2026-07-28 a server may not send the host a request mid-call:
// run_task's approvals and ask_user ride on input_required results, and the
// host (the official TypeScript SDK v2 client) calls again with the answers.
// Over stdio the client negotiates 2026-07-28; the HTTP server keeps
// sessions, so there the same client falls back to 2025-11-25 and is asked
// mid-call. Either way Allow starts the program, Deny refuses it, and a host
// without elicitation gets refusals, never an approval.
func TestMCPRunTaskElicitation2026(t *testing.T) {
	for _, c := range []struct {
		transport, elicit string
		negotiated        string
		launched          bool
		model             []string // what the model's next requests say of the launch and the question
	}{
		{"stdio", "allow", "2026-07-28", true, []string{"started (pid", "reply: yes"}},
		{"stdio", "deny", "2026-07-28", false, []string{"did not allow", "did not answer (decline)"}},
		{"stdio", "", "2026-07-28", false, []string{"offers no elicitation", "offers no elicitation"}},
		{"http", "allow", "2025-11-25", true, []string{"started (pid", "reply: yes"}},
	} {
		t.Run(c.transport+"/elicit="+c.elicit, func(t *testing.T) {
			traces, env := mcpEnv(t)
			file := filepath.Join(t.TempDir(), "launched")
			srv := llmtest.New(t,
				reply(fmt.Sprintf("launch(%q)", "touch "+file)),
				reply(`print("reply:", ask_user("Shall I go on?"))`),
				reply(`final_answer("done")`))
			args := []string{"--base-url", srv.URL, "--model", "m", "--trace-dir", traces}
			steps := []map[string]any{
				step("protocol"),
				step("call", "name", "run_task", "args", map[string]any{"task": "launch and ask"}),
			}
			plan := stdioPlan(t, env, args, steps...)
			if c.transport == "http" {
				plan = map[string]any{"transport": "http", "url": httpServer(t, env, args...), "steps": steps}
			}
			if c.elicit != "" {
				plan["elicit"] = c.elicit
				if c.elicit == "allow" {
					plan["elicit"] = "answer:yes"
				}
			}
			res := hostWith(t, "client2026.mjs", plan)
			if got := res[0]["negotiated"]; got != c.negotiated {
				t.Fatalf("negotiated %v, want %s (the client offers %v)", got, c.negotiated, res[0]["offered"])
			}
			call := res[1]
			checkLaunchAndAsk(t, call, file, c.launched, srv, c.model)
			asked, _ := call["elicited"].([]any)
			if c.elicit != "" && (len(asked) != 2 || !strings.Contains(fmt.Sprint(asked[0]), "touch") ||
				!strings.Contains(fmt.Sprint(asked[1]), "Shall I go on?")) {
				t.Errorf("the host was asked %q", asked)
			}
		})
	}
}

// A run_code block that needs approval, on 2026-07-28 over stdio: the
// question rides on the result and the block goes on where it stopped, its
// variables intact; a host that drops the question (aborts the call between
// rounds) and calls again finds the desktop free, and the dropped block
// never acted.
func TestMCPRunCodeRounds2026(t *testing.T) {
	traces, env := mcpEnv(t)
	dir := t.TempDir()
	first, dropped := filepath.Join(dir, "first"), filepath.Join(dir, "dropped")
	args := []string{"--trace-dir", traces}
	plan := stdioPlan(t, env, args,
		step("protocol"),
		step("call", "name", "run_code", "args", map[string]any{"code": fmt.Sprintf("n = 41\nprint(launch(%q))\nn += 1\nprint('n is', n)", "touch "+first)}),
		step("cancelAfter", "name", "run_code", "args", map[string]any{"code": fmt.Sprintf("print(launch(%q))", "touch "+dropped)}, "elicited", 1),
		step("call", "name", "run_code", "args", map[string]any{"code": "print('still', n)"}),
	)
	plan["elicit"] = "allow"
	res := hostWith(t, "client2026.mjs", plan)
	if res[0]["negotiated"] != "2026-07-28" {
		t.Fatalf("negotiated %v", res[0]["negotiated"])
	}
	if got := text(res[1]); !strings.Contains(got, "started (pid") || !strings.Contains(got, "n is 42") {
		t.Errorf("the approved block: %s", got)
	}
	if _, err := os.Stat(first); err != nil {
		t.Errorf("the approved launch did not run: %v", err)
	}
	if asked, _ := res[1]["elicited"].([]any); len(asked) != 1 || !strings.Contains(fmt.Sprint(asked[0]), "touch "+first) {
		t.Errorf("the host was asked %q", asked)
	}
	if res[2]["cancelled"] != true {
		t.Errorf("the dropped call: %v", res[2])
	}
	if got := text(res[3]); !strings.Contains(got, "still 42") {
		t.Errorf("the call after the dropped one: %v", res[3])
	}
	if _, err := os.Stat(dropped); err == nil {
		t.Error("the dropped block launched its program")
	}
}

// A retry is a claim on a parked call, so every part of it is checked
// before anything acts: the Go SDK's own client, its automatic rounds off,
// gets input_required for a launch, then sends a state never given, the
// state with another tool, the state with other arguments and answers
// without a state: each an invalid-params error, nothing launched. The
// true retry then launches; the same state a second time is refused.
func TestMCPRoundsRefuseForeignRetries(t *testing.T) {
	file := filepath.Join(t.TempDir(), "launched")
	cs, ctx := goHost(t)
	code := map[string]any{"code": fmt.Sprintf("print(launch(%q))", "touch "+file)}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: code})
	if err != nil {
		t.Fatal(err)
	}
	q, ok := res.InputRequests["deskpilot"].(*mcp.ElicitParams)
	if !res.NeedsInput() || !ok || res.RequestState == "" || !strings.Contains(q.Message, "touch") {
		t.Fatalf("the launch did not ask: %+v", res)
	}
	allow := mcp.InputResponseMap{"deskpilot": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}}
	for name, p := range map[string]*mcp.CallToolParams{
		"a state never given": {Name: "run_code", Arguments: code, InputResponses: allow, RequestState: strings.Repeat("0", 32)},
		"another tool":        {Name: "screenshot", Arguments: map[string]any{}, InputResponses: allow, RequestState: res.RequestState},
		"other arguments":     {Name: "run_code", Arguments: map[string]any{"code": "print(1)"}, InputResponses: allow, RequestState: res.RequestState},
		"answers, no state":   {Name: "run_code", Arguments: code, InputResponses: allow},
	} {
		_, err := cs.CallTool(ctx, p)
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: %v, want an invalid-params error", name, err)
		}
		if _, err := os.Stat(file); err == nil {
			t.Fatalf("%s launched the program", name)
		}
	}
	retry := &mcp.CallToolParams{Name: "run_code", Arguments: code, InputResponses: allow, RequestState: res.RequestState}
	done, err := cs.CallTool(ctx, retry)
	if err != nil || done.NeedsInput() {
		t.Fatalf("the true retry: %v %+v", err, done)
	}
	if got := toolText(done); !strings.Contains(got, "started (pid") {
		t.Errorf("the approved launch: %s", got)
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("the approved launch did not run: %v", err)
	}
	if _, err := cs.CallTool(ctx, retry); err == nil {
		t.Error("a state answered already was taken again")
	}
}

// toolText is the text content of a Go SDK tool result.
func toolText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// A question the host never answers holds the desktop only for
// --answer-wait: then it counts as refused, the call ends, its state is
// refused, and the next call gets the desktop.
func TestMCPRoundsAnswerWait(t *testing.T) {
	file := filepath.Join(t.TempDir(), "launched")
	cs, ctx := goHost(t, "--answer-wait", "2s")
	code := map[string]any{"code": fmt.Sprintf("print(launch(%q))", "touch "+file)}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: code})
	if err != nil || !res.NeedsInput() {
		t.Fatalf("the launch did not ask: %v %+v", err, res)
	}
	time.Sleep(3 * time.Second)
	allow := mcp.InputResponseMap{"deskpilot": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: code, InputResponses: allow, RequestState: res.RequestState})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || !strings.Contains(werr.Message, "expired") {
		t.Errorf("an answer past the wait: %v", err)
	}
	next, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_code", Arguments: map[string]any{"code": "print('free')"}})
	if err != nil || !strings.Contains(toolText(next), "free") {
		t.Fatalf("the call after the expired one: %v %+v", err, next)
	}
	if _, err := os.Stat(file); err == nil {
		t.Error("the unanswered launch ran")
	}
}

// goHost connects the Go SDK's client, its automatic rounds off, to
// `deskpilot mcp` over stdio, on revision 2026-07-28.
func goHost(t *testing.T, args ...string) (*mcp.ClientSession, context.Context) {
	t.Helper()
	traces, env := mcpEnv(t)
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"--trace-dir", traces, "mcp"}, args...)...)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "deskpilot-go-host", Version: "1"}, &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the server sent elicitation/create on 2026-07-28")
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s", v)
	}
	return cs, ctx
}
