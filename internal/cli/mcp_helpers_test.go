package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"deskpilot/vision/xdisplay"
)

// nodeDir is test/node, where `make node-deps` installed the real MCP peers
// (the TypeScript SDK, the Inspector CLI, server-everything) from the
// committed package-lock.json. Without node the test skips, saying why;
// with node but without the packages it fails.
func nodeDir(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the MCP tests drive deskpilot with the official TypeScript SDK (apt-get install nodejs npm; make node-deps)")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "test", "node"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the MCP peers are not installed in %s: run `make node-deps` (npm ci): %v", dir, err)
	}
	return dir
}

// mcpEnv isolates the test (config, data, cache and runtime folders of its
// own) and returns the environment a host gives `deskpilot mcp`: this one,
// with the private display.
func mcpEnv(t *testing.T) (traces string, env map[string]string) {
	t.Helper()
	traces = isolate(t)
	run := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(run, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", run)
	env = map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return traces, env
}

// host runs the TypeScript SDK client (test/node/client.mjs) with plan and
// returns the JSON line each step printed.
func host(t *testing.T, plan map[string]any) []map[string]any {
	t.Helper()
	return hostWith(t, "client.mjs", plan)
}

// hostWith runs plan with the host script in test/node named script.
func hostWith(t *testing.T, script string, plan map[string]any) []map[string]any {
	t.Helper()
	dir := nodeDir(t)
	data, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, script), string(data))
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second // a server the client left behind may hold its output open
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript client failed: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	var steps []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("client line %q: %v\nstderr:\n%s", line, err, stderr.String())
		}
		if m["op"] == "connect" {
			t.Fatalf("the client could not connect: %v\nstderr:\n%s", m["error"], stderr.String())
		}
		steps = append(steps, m)
	}
	if len(steps) == 0 {
		t.Fatalf("the client printed nothing; stderr:\n%s", stderr.String())
	}
	return steps
}

// stdioPlan is a plan that starts the deskpilot binary as a host does.
func stdioPlan(t *testing.T, env map[string]string, args []string, steps ...map[string]any) map[string]any {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return map[string]any{"transport": "stdio", "command": bin, "args": append(args, "mcp"), "env": env, "steps": steps}
}

// step is one step of a plan.
func step(op string, kv ...any) map[string]any {
	m := map[string]any{"op": op}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// text is a step result's text.
func text(m map[string]any) string {
	s, _ := m["text"].(string)
	if e, ok := m["error"].(string); ok {
		s += e
	}
	return s
}

// attach is the test binary's private display.
func attach(t *testing.T) *xdisplay.Display {
	t.Helper()
	d, err := xdisplay.Attach("")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// waitWindow waits for a window whose title has title.
func waitWindow(t *testing.T, d *xdisplay.Display, title string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := d.WaitWindow(ctx, title); err != nil {
		t.Fatalf("window %q: %v", title, err)
	}
}

// xmessage starts an xmessage with buttons and waits for its window.
func xmessage(t *testing.T, buttons string) *xdisplay.App {
	t.Helper()
	d := attach(t)
	app, err := d.StartApp(t.Context(), "xmessage", "-buttons", buttons, "-print", "Pick one")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = app.Stop() })
	waitWindow(t, d, "xmessage")
	return app
}

// exitedWith waits for app to exit and returns what it printed.
func exitedWith(t *testing.T, app *xdisplay.App) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !app.Exited() {
		if time.Now().After(deadline) {
			t.Fatalf("the app did not exit; it printed %q", app.Output())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Xaw may warn about fonts first; the button is the last line.
	out := strings.Split(strings.TrimSpace(app.Output()), "\n")
	return out[len(out)-1]
}

// httpServer starts `deskpilot mcp --http 127.0.0.1:0` with args and returns
// its URL once it listens.
func httpServer(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	cmd := exec.CommandContext(t.Context(), bin, append([]string{"mcp", "--http", "127.0.0.1:0"}, args...)...)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("deskpilot mcp --http ended before it listened")
			}
			if _, url, found := strings.Cut(l, "serving streamable HTTP at "); found {
				go func() {
					for range lines { // keep draining
					}
				}()
				return strings.TrimSpace(url)
			}
		case <-timeout:
			t.Fatal("deskpilot mcp --http did not say where it listens")
		}
	}
}

// rawSession speaks JSON-RPC lines to `deskpilot mcp` over its standard
// input and output, as a hostile or broken host would.
type rawSession struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Reader
}

func newRawSession(t *testing.T, env map[string]string) *rawSession {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	cmd := exec.CommandContext(t.Context(), bin, "mcp")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = in.Close()
		_ = cmd.Wait()
	})
	return &rawSession{t: t, in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

// send writes one line.
func (r *rawSession) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

// answer reads lines until the response with id (a JSON number or
// string), skipping notifications; it fails after a minute.
func (r *rawSession) answer(id string) map[string]any {
	r.t.Helper()
	type res struct {
		m   map[string]any
		err error
	}
	ch := make(chan res, 1)
	go func() {
		for {
			line, err := r.out.ReadString('\n')
			if err != nil {
				ch <- res{err: err}
				return
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				ch <- res{err: fmt.Errorf("not JSON from the server: %q", line)}
				return
			}
			got, _ := json.Marshal(m["id"])
			if _, isReq := m["method"]; !isReq && string(got) == id {
				ch <- res{m: m}
				return
			}
		}
	}()
	select {
	case x := <-ch:
		if x.err != nil {
			r.t.Fatalf("reading the answer to %s: %v", id, x.err)
		}
		return x.m
	case <-time.After(time.Minute):
		r.t.Fatalf("no answer to request %s", id)
	}
	return nil
}

// rpcError is the code of a JSON-RPC error response; errors.New when it is none.
func rpcError(m map[string]any) (int, error) {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return 0, errors.New("not an error response")
	}
	code, _ := e["code"].(float64)
	return int(code), nil
}
