package script

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"deskpilot/actions"
)

// The sandbox tests start this test binary again as the child.
func TestMain(m *testing.M) {
	if code, ok := os.LookupEnv(memParentEnv); ok {
		runMemoryParent(code)
		return
	}
	ServeIfChild(func(name string) (func(call func(*starlark.Thread, string, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)) starlark.StringDict, error) {
		if name != "pad" {
			return nil, fmt.Errorf("no module set %q", name)
		}
		return func(call func(*starlark.Thread, string, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)) starlark.StringDict {
			twice := starlark.NewBuiltin("twice", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
				if _, err := call(th, "echo", args, kw); err != nil {
					return nil, err
				}
				return call(th, "echo", args, kw)
			})
			return starlark.StringDict{"pad": starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{"twice": twice})}
		}, nil
	})
	os.Exit(m.Run())
}

// echoTool returns its argument, logs an action and can sleep untimed.
func echoTool(log *[]string) Tool {
	return Tool{Name: "echo", Kind: KindScreen, Params: []Param{{Name: "v", Type: "Any"}, {Name: "nap", Type: "float", Default: "0"}},
		Fn: func(c *Call, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			a, err := c.Bind()
			if err != nil {
				return nil, err
			}
			v, nap := a.Value("v"), a.Number("nap")
			if err := a.Err(); err != nil {
				return nil, err
			}
			if s, ok := v.(starlark.String); ok && s == "boom" {
				return nil, fmt.Errorf("it blew up")
			}
			if err := c.Sleep(time.Duration(nap * float64(time.Second))); err != nil {
				return nil, err
			}
			*log = append(*log, v.String())
			c.Log(actions.Record{Name: "echo", Args: c.ArgsText(), Result: "echoed"})
			return starlark.Tuple{v, starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{"x": starlark.MakeInt(3)})}, nil
		}}
}

func newSandbox(t *testing.T, o SandboxOptions, log *[]string) *Sandbox {
	t.Helper()
	s := NewSandbox(o, echoTool(log))
	t.Cleanup(func() { s.Close() })
	return s
}

func TestSandboxRunsCodeAcrossTheBoundary(t *testing.T) {
	var log []string
	s := newSandbox(t, SandboxOptions{Modules: "pad"}, &log)
	res := s.Exec(t.Context(), "v, st = echo([1, 2.5, None, {'k': (True, b'x')}])\nprint(v, st.x)\nkept = 41")
	if res.Err != nil {
		t.Fatal(res.Err.Msg)
	}
	if res.Output != "[1, 2.5, None, {\"k\": (True, b\"x\")}] 3\n" {
		t.Errorf("output %q", res.Output)
	}
	if len(res.Actions) != 1 || res.Actions[0].Name != "echo" || len(log) != 1 {
		t.Errorf("actions %+v log %v", res.Actions, log)
	}
	res = s.Exec(t.Context(), "print(kept + 1)\npad.twice('m')\nfinal_answer(kept)")
	if res.Err != nil || res.Output != "42\n" || res.Final == nil || res.Final.Value != "41" || len(res.Actions) != 2 {
		t.Fatalf("second block: %+v %+v", res, res.Err)
	}
	res = s.Exec(t.Context(), "echo('boom')")
	if res.Err == nil || !strings.Contains(res.Err.Msg, "echo: it blew up") || res.Err.Line != 1 {
		t.Errorf("tool error: %+v", res.Err)
	}
	res = s.Exec(t.Context(), "echo(lambda: 1, nap='x')")
	if res.Err == nil || !strings.Contains(res.Err.Msg, "nap must be a number, got string") {
		t.Errorf("a bad argument: %+v", res.Err)
	}
	if !strings.Contains(s.Stubs(), "def echo(") || s.Kind("echo") != KindScreen {
		t.Errorf("stubs or kind wrong")
	}
}

// One line that overflows the interpreter's stack crashes the child, not the
// agent: the model is told its variables were lost, and the next block runs in
// a fresh child.
func TestSandboxSurvivesACrash(t *testing.T) {
	var log []string
	s := newSandbox(t, SandboxOptions{}, &log)
	if res := s.Exec(t.Context(), "kept = 1"); res.Err != nil {
		t.Fatal(res.Err.Msg)
	}
	res := s.Exec(t.Context(), `json.decode("[" * 5000000)`)
	if res.Err == nil || !strings.Contains(res.Err.Msg, "the code's process crashed") || !strings.Contains(res.Err.Msg, "variables were lost") {
		t.Fatalf("crash: %+v", res.Err)
	}
	res = s.Exec(t.Context(), "print(kept)")
	if res.Err == nil || !strings.Contains(res.Err.Msg, "kept") {
		t.Errorf("a fresh child still has the old globals: %+v %q", res.Err, res.Output)
	}
	if res := s.Exec(t.Context(), "print(echo('again')[0])"); res.Err != nil || res.Output != "again\n" {
		t.Errorf("the fresh child does not work: %+v %q", res.Err, res.Output)
	}
}

// Code that piles up memory is stopped at the limit; the agent lives on.
func TestSandboxMemoryLimit(t *testing.T) {
	var log []string
	s := newSandbox(t, SandboxOptions{Memory: 96 << 20}, &log)
	code := "s = 'x' * 1000000\nl = []\nfor i in range(100000):\n    l.append(s + str(i))"
	start := time.Now()
	res := s.Exec(t.Context(), code)
	if res.Err == nil || res.Err.Kind != KindLimit || !strings.Contains(res.Err.Msg, "more than 96 MiB") {
		t.Fatalf("memory: %+v", res.Err)
	}
	t.Logf("stopped after %s", time.Since(start))
	if res := s.Exec(t.Context(), "print(1)"); res.Err != nil || res.Output != "1\n" {
		t.Errorf("after the memory stop: %+v", res.Err)
	}
}

// Stop ends a block stuck in one long operation (str of a deeply nested
// list): the block ends cancelled, not at its time limit nor by finishing the
// operation, and nothing after the operation runs.
func TestSandboxCancelStopsALongOperation(t *testing.T) {
	var log []string
	started := make(chan struct{})
	signal := Tool{Name: "started", Kind: KindScreen, Fn: func(*Call, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		close(started)
		return nil, nil
	}}
	s := NewSandbox(SandboxOptions{}, echoTool(&log), signal)
	t.Cleanup(func() { s.Close() })
	go func() {
		<-started // the code is past its last tool call, into the operation
		s.Cancel()
	}()
	res := s.Exec(t.Context(), "l = []\nfor i in range(300000):\n    l = [l]\nstarted()\nx = str(l)\necho('after')")
	if res.Err == nil || res.Err.Kind != KindCancelled {
		t.Errorf("cancelled block: %+v (a limit or a crash: the cancel did not reach the operation)", res.Err)
	}
	if len(log) != 0 {
		t.Errorf("the code ran on after the cancel: %v", log)
	}
}

// A block that runs past its time limit inside one operation is stopped.
func TestSandboxTimeBackstop(t *testing.T) {
	var log []string
	s := newSandbox(t, SandboxOptions{Options: Options{Timeout: 500 * time.Millisecond}}, &log)
	res := s.Exec(t.Context(), "l = []\nfor i in range(300000):\n    l = [l]\nx = str(l)")
	if res.Err == nil || res.Err.Kind != KindLimit {
		t.Errorf("time: %+v", res.Err)
	}
}

// The child's environment holds nothing of the parent's (no API key).
func TestSandboxEnvironmentIsEmpty(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-parent-secret-123456")
	var log []string
	s := newSandbox(t, SandboxOptions{}, &log)
	if res := s.Exec(t.Context(), "x = 1"); res.Err != nil {
		t.Fatal(res.Err.Msg)
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", s.proc.cmd.Process.Pid))
	if err != nil {
		t.Skip("no /proc here:", err)
	}
	if strings.Contains(string(data), "sk-parent-secret") || strings.Count(string(data), "\x00") > 2 {
		t.Errorf("child environment: %q", data)
	}
}

// BenchmarkSandboxExec is the cost of the process boundary per block: a block
// with one tool call, in the sandbox child and in process.
func BenchmarkSandboxExec(b *testing.B) {
	var log []string
	for _, mode := range []string{"process", "inprocess"} {
		b.Run(mode, func(b *testing.B) {
			var e interface {
				Exec(ctx context.Context, code string) Result
				Close() error
			}
			if mode == "process" {
				e = NewSandbox(SandboxOptions{}, echoTool(&log))
			} else {
				e = New(Options{}, echoTool(&log))
			}
			defer e.Close()
			e.Exec(b.Context(), "x = 0") // start the child
			b.ResetTimer()
			for i := range b.N {
				if res := e.Exec(b.Context(), fmt.Sprintf("x = echo(%d)", i)); res.Err != nil {
					b.Fatal(res.Err.Msg)
				}
			}
		})
	}
}

// Rebind keeps the child and its globals and routes the next blocks' calls to
// the new tools; tools that differ from the child's are refused.
func TestSandboxRebind(t *testing.T) {
	var first, second []string
	s := newSandbox(t, SandboxOptions{}, &first)
	if s.Alive() {
		t.Error("alive before the first block")
	}
	if res := s.Exec(t.Context(), "kept = 41\necho('one')"); res.Err != nil {
		t.Fatal(res.Err.Msg)
	}
	if !s.Alive() {
		t.Fatal("the child is not running after a block")
	}
	other := echoTool(&second)
	other.Name = "shout"
	if s.Rebind(other) {
		t.Error("tools with another name were accepted")
	}
	if !s.Rebind(echoTool(&second)) {
		t.Fatal("the same tools were refused")
	}
	res := s.Exec(t.Context(), "echo(kept + 1)\nprint(kept)")
	if res.Err != nil || res.Output != "41\n" {
		t.Fatalf("after Rebind: %+v %+v", res, res.Err)
	}
	if len(first) != 1 || len(second) != 1 || second[0] != "42" {
		t.Errorf("calls went to %v (old) and %v (new); want the new tools to get 42", first, second)
	}
}
