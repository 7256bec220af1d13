package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/trace"
	"deskpilot/internal/mcpserve"
)

// wantTools are the tools `deskpilot mcp` offers, sorted.
func wantTools() []string {
	names := append(mcpserve.Primitives(), "run_code", "run_task")
	slices.Sort(names)
	return names
}

// toolNames reads a list step's tool names.
func toolNames(t *testing.T, m map[string]any) []string {
	t.Helper()
	raw, _ := m["tools"].([]any)
	var out []string
	for _, x := range raw {
		out = append(out, x.(string))
	}
	slices.Sort(out)
	return out
}

// The official TypeScript client over stdio lists the tools, takes a
// screenshot (an image with its coordinate contract), clicks an xmessage
// button at the point find_text reported and another by click_text (the
// apps print the button pressed), keeps run_code's variables from call to
// call, and reads the session's trace and latest screenshot as resources.
func TestMCPStdioDrivesTheDesktop(t *testing.T) {
	_, env := mcpEnv(t)
	first := xmessage(t, "Alpha,Bravo,Charlie")
	steps := host(t, stdioPlan(t, env, nil,
		step("list"),
		step("call", "name", "screenshot"),
		step("clickFound", "text", "Bravo"),
	))
	if got := toolNames(t, steps[0]); !slices.Equal(got, wantTools()) {
		t.Errorf("tools %v, want %v", got, wantTools())
	}
	schemas := steps[0]["schemas"].(map[string]any)
	click := schemas["click"].(map[string]any)
	if req := fmt.Sprint(click["required"]); req != "[x y]" {
		t.Errorf("click's schema requires %s, want [x y]: %v", req, click)
	}
	shot := steps[1]
	if imgs, _ := shot["images"].([]any); len(imgs) != 1 || !strings.Contains(text(shot), "1280x800 pixels") {
		t.Errorf("screenshot: %v", shot)
	}
	if out := exitedWith(t, first); out != "Bravo" {
		t.Errorf("the first xmessage printed %q after the click at find_text's point (%v, %v), want Bravo; result: %s", out, steps[2]["x"], steps[2]["y"], text(steps[2]))
	}

	second := xmessage(t, "Xray,Yankee,Zulu")
	steps = host(t, stdioPlan(t, env, nil,
		step("call", "name", "click_text", "args", map[string]any{"text": "Zulu"}),
		step("call", "name", "run_code", "args", map[string]any{"code": "kept = 20 + 1"}),
		step("call", "name", "run_code", "args", map[string]any{"code": "print('kept is', kept * 2)"}),
		step("resources"),
	))
	if out := exitedWith(t, second); out != "Zulu" {
		t.Errorf("the second xmessage printed %q after click_text, want Zulu; result: %s", out, text(steps[0]))
	}
	if !strings.Contains(text(steps[2]), "kept is 42") {
		t.Errorf("run_code did not keep the session's variables: %s", text(steps[2]))
	}
	res := steps[3]
	tr, _ := res["trace"].(string)
	if !strings.Contains(tr, `click_text(text=\"Zulu\")`) || !strings.Contains(tr, "kept * 2") {
		t.Errorf("the session's trace resource lacks its calls:\n%s", tr)
	}
	if n, _ := res["screenshot"].(float64); n < 100 {
		t.Errorf("latest screenshot resource: %v bytes", res["screenshot"])
	}
}

// Over streamable HTTP with a token: the client with the token drives the
// desktop; a request without it, or from a foreign web origin, gets a
// JSON-RPC error and nothing runs; a non-loopback address without a token
// is refused at start.
func TestMCPStreamableHTTP(t *testing.T) {
	_, env := mcpEnv(t)
	url := httpServer(t, env, "--token", "s3cret-token-for-test")
	app := xmessage(t, "Red,Green,Blue")
	steps := host(t, map[string]any{"transport": "http", "url": url, "token": "s3cret-token-for-test", "steps": []map[string]any{
		step("list"),
		step("call", "name", "click_text", "args", map[string]any{"text": "Green"}),
	}})
	if got := toolNames(t, steps[0]); !slices.Equal(got, wantTools()) {
		t.Errorf("tools over HTTP %v, want %v", got, wantTools())
	}
	if out := exitedWith(t, app); out != "Green" {
		t.Errorf("xmessage printed %q, want Green; result: %s", out, text(steps[1]))
	}

	post := func(hdr map[string]string) (int, string) {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url,
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 8192))
		return resp.StatusCode, string(data)
	}
	if code, body := post(nil); code != http.StatusUnauthorized || !strings.Contains(body, `"jsonrpc":"2.0"`) {
		t.Errorf("token-less request: %d %s", code, body)
	}
	if code, body := post(map[string]string{"Authorization": "Bearer wrong"}); code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d %s", code, body)
	}
	if code, body := post(map[string]string{"Authorization": "Bearer s3cret-token-for-test", "Origin": "https://evil.example"}); code != http.StatusForbidden {
		t.Errorf("foreign origin: %d %s", code, body)
	}
	if code, _ := post(map[string]string{"Authorization": "Bearer s3cret-token-for-test"}); code != http.StatusOK {
		t.Errorf("the server stopped serving after refusals: %d", code)
	}

	out, code := cli(t, "", "mcp", "--http", "0.0.0.0:0")
	if code != exitUsage || !strings.Contains(out, "not a loopback address") {
		t.Errorf("non-loopback without a token: exit %d\n%s", code, out)
	}
}

// The MCP Inspector CLI lists the same tools as the SDK client.
func TestMCPInspectorListsTheTools(t *testing.T) {
	_, env := mcpEnv(t)
	dir := nodeDir(t)
	bin, err := binary()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	// The Inspector CLI finds its own package.json as "../package.json" from
	// the folder it runs in, so it runs in its build folder.
	build := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector-cli", "build")
	cmd := exec.CommandContext(t.Context(), "node", filepath.Join(build, "index.js"), bin, "mcp", "--method", "tools/list")
	cmd.Dir = build
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("inspector: %v\n%s", err, out)
	}
	var res struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("inspector output: %v\n%s", err, out)
	}
	var got []string
	for _, tl := range res.Tools {
		got = append(got, tl.Name)
	}
	slices.Sort(got)
	if !slices.Equal(got, wantTools()) {
		t.Errorf("inspector lists %v, want %v", got, wantTools())
	}
}

// Elicitation: launch needs approval. A host that elicits gets the question
// and its Allow starts the program, its Deny refuses it; a host without
// elicitation gets a refusal, never an approval. ask_user's question goes to
// the host's person and the answer comes back.
func TestMCPElicitation(t *testing.T) {
	_, env := mcpEnv(t)
	dir := t.TempDir()
	launch := func(name string) map[string]any {
		return step("call", "name", "run_code", "args", map[string]any{"code": fmt.Sprintf("launch(%q)", "touch "+filepath.Join(dir, name))})
	}
	exists := func(name string) bool {
		for range 50 {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				return true
			}
			time.Sleep(100 * time.Millisecond)
		}
		return false
	}
	for _, c := range []struct {
		elicit, file string
		launched     bool
		says         string
	}{
		{"allow", "allowed", true, "started (pid"},
		{"deny", "denied", false, "did not allow"},
		{"", "nobody", false, "offers no elicitation"},
	} {
		t.Run("elicit="+c.elicit, func(t *testing.T) {
			plan := stdioPlan(t, env, nil, launch(c.file))
			if c.elicit != "" {
				plan["elicit"] = c.elicit
			}
			res := host(t, plan)[0]
			if got := exists(c.file); got != c.launched {
				t.Errorf("launched %v, want %v; result: %s", got, c.launched, text(res))
			}
			if !strings.Contains(text(res), c.says) {
				t.Errorf("result does not say %q: %s", c.says, text(res))
			}
			asked, _ := res["elicited"].([]any)
			if c.elicit != "" && (len(asked) != 1 || !strings.Contains(fmt.Sprint(asked[0]), "touch")) {
				t.Errorf("the host was asked %v", asked)
			}
		})
	}
	plan := stdioPlan(t, env, nil, step("call", "name", "run_code", "args", map[string]any{"code": `print("reply:", ask_user("Which colour?"))`}))
	plan["elicit"] = "answer:teal"
	if res := host(t, plan)[0]; !strings.Contains(text(res), "reply: teal") {
		t.Errorf("ask_user over elicitation: %s", text(res))
	}
}

// run_task runs the agent against the fake model with a progress
// notification every step; the host's cancellation (notifications/cancelled)
// or its going away stops it: no line is typed into the terminal after it,
// the model is asked nothing more and the run's trace says cancelled.
func TestMCPRunTaskCancelStopsTheRun(t *testing.T) {
	for _, op := range []string{"cancelAfter", "closeAfter"} {
		t.Run(op, func(t *testing.T) { cancelRunTask(t, op) })
	}
}

func cancelRunTask(t *testing.T, op string) {
	traces, env := mcpEnv(t)
	out := filepath.Join(t.TempDir(), "typed.txt")
	term := startTerminal(t, out)
	var replies []llmtest.Reply
	for i := range 40 {
		replies = append(replies, llmtest.Reply{Delay: 30 * time.Millisecond,
			Text: fmt.Sprintf("Thought: line %d.\n```python\ntype_text(\"line %d\\n\")\nwait(0.3)\n```", i, i)})
	}
	srv := llmtest.New(t, replies...)
	args := []string{"--base-url", srv.URL, "--model", "m", "--trace-dir", traces}
	res := host(t, stdioPlan(t, env, args,
		step(op, "name", "run_task", "args", map[string]any{"task": "type lines"}, "progress", 3),
		step("sleep", "ms", 1500),
	))[0]
	if op == "closeAfter" {
		time.Sleep(1500 * time.Millisecond) // the client is gone; the server sees its input end
	}
	if res["cancelled"] != true && res["closed"] != true {
		t.Fatalf("the call was not cancelled: %v", res)
	}
	if p, _ := res["progress"].([]any); len(p) < 3 || !strings.Contains(fmt.Sprint(p[0]), "step 1: line 0") || !strings.Contains(fmt.Sprint(p[0]), "type_text") {
		t.Errorf("progress notifications: %v", p)
	}
	typed := lines(t, out)
	asked := len(srv.Requests())
	time.Sleep(2 * time.Second)
	if again := lines(t, out); again != typed || typed < 2 {
		t.Errorf("%d lines typed when the cancel had taken effect, %d two seconds later (want equal, at least 2)", typed, again)
	}
	if n := len(srv.Requests()); n != asked {
		t.Errorf("the model was asked %d more times after the cancel", n-asked)
	}
	tr := runTrace(t, traces, "type lines")
	if tr.End == nil || tr.End.Outcome != trace.OutcomeCancelled {
		t.Errorf("the run's trace ends %+v, want cancelled", tr.End)
	}
	sess := runTrace(t, traces, "MCP session with deskpilot-test-host")
	last := sess.Steps[len(sess.Steps)-1]
	if n := sess.StepCount(); n != 1 || !strings.Contains(last.Code, `run_task(task="type lines")`) ||
		last.Observation == nil || !strings.Contains(last.Observation.Text, "cancelled") {
		t.Errorf("the session's trace: %d steps, the last %+v", n, last)
	}
	_ = term
}

// Bad input over stdio — malformed JSON-RPC, an unknown method and tool,
// arguments of the wrong type, unknown and huge ones — each gets a JSON-RPC
// error, nothing runs (no trace step is written), and the server still
// answers afterwards.
func TestMCPBadInputIsRefused(t *testing.T) {
	traces, env := mcpEnv(t)
	env["DESKPILOT_TRACE_DIR"] = traces
	s := newRawSession(t, env)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if _, err := rpcError(s.answer("1")); err == nil {
		t.Fatal("initialize failed")
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	huge := strings.Repeat("a", 2<<20)
	cases := []struct{ name, line string }{
		{"malformed", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":`},
		{"unknown method", `{"jsonrpc":"2.0","id":3,"method":"desktop/format_disk"}`},
		{"unknown tool", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"launch","arguments":{"app":"xterm"}}}`},
		{"wrong types", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"click","arguments":{"x":"left","y":[1]}}}`},
		{"unknown argument", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"type_text","arguments":{"text":"hi","then":"press enter"}}}`},
		{"huge", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"type_text","arguments":{"text":"` + huge + `"}}}`},
		{"code injection", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"click","arguments":{"x":"1); launch('xterm'","y":2}}}`},
	}
	for i, c := range cases {
		s.send(c.line)
		id := fmt.Sprint(i + 2)
		if c.name == "malformed" {
			id = "null"
		}
		if _, err := rpcError(s.answer(id)); err != nil {
			t.Errorf("%s: not a JSON-RPC error", c.name)
		}
	}
	s.send(`{"jsonrpc":"2.0","id":20,"method":"tools/list"}`)
	if m := s.answer("20"); m["result"] == nil {
		t.Errorf("tools/list after the bad input: %v", m)
	}
	if entries, _ := os.ReadDir(traces); len(entries) != 0 {
		t.Errorf("bad input opened the desktop: %d trace folders", len(entries))
	}
}

// runTrace reads the one trace under root whose task is task.
func runTrace(t *testing.T, root, task string) *trace.Trace {
	t.Helper()
	list, err := trace.List(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list {
		if s.Task == task {
			tr, err := trace.Read(s.Dir)
			if err != nil {
				t.Fatal(err)
			}
			return tr
		}
	}
	t.Fatalf("no trace of %q under %s", task, root)
	return nil
}

// startTerminal opens an xterm whose shell appends every line typed to out,
// focused, and waits for it.
func startTerminal(t *testing.T, out string) string {
	t.Helper()
	d := attach(t)
	app, err := d.StartApp(t.Context(), "xterm", "-T", "typed lines", "-e", "sh", "-c", "cat >> "+out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = app.Stop() })
	waitWindow(t, d, "typed lines")
	return out
}

// lines counts the lines of path ("" = none yet).
func lines(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

// A secret's value that comes back in what the code printed, or in an
// error, reaches the host as [redacted], as it reaches a model; so in the
// session's trace.
func TestMCPRedactsSecrets(t *testing.T) {
	traces, env := mcpEnv(t)
	const secret = "tok-5ecret-0123456789abcdef"
	env["DESKPILOT_SECRET_TOKEN"] = secret
	env["DESKPILOT_TRACE_DIR"] = traces
	steps := host(t, stdioPlan(t, env, nil,
		step("call", "name", "run_code", "args", map[string]any{"code": `print("the token is", "` + secret + `")`}),
		step("call", "name", "run_code", "args", map[string]any{"code": `x = {}["` + secret + `"]`}),
		step("resources"),
	))
	for i, s := range steps[:2] {
		if strings.Contains(text(s), secret) || !strings.Contains(text(s), "[secret:token]") {
			t.Errorf("result %d: %s", i, text(s))
		}
	}
	if tr, _ := steps[2]["trace"].(string); strings.Contains(tr, secret) {
		t.Errorf("the trace resource has the secret:\n%s", tr)
	}
}
