package script

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"deskpilot/actions"
	"deskpilot/vision"
)

// Every parameter of every builtin, in both forms a grounder gives the
// pointer builtins, has a size limit.
func TestEveryArgumentHasALimit(t *testing.T) {
	for _, tl := range Builtins() {
		for _, form := range []Tool{tl, groundedBuiltin(tl)} {
			for _, p := range form.Params {
				if p.MaxLen <= 0 {
					t.Errorf("%s(%s %s) has no MaxLen", form.Name, p.Name, p.Type)
				}
			}
		}
	}
}

// desktopSandbox is a real sandbox with the desktop and grounding builtins
// over in, and a block limit of timeout.
func desktopSandbox(t *testing.T, in actions.Input, timeout time.Duration, redact func(string) string) *Sandbox {
	t.Helper()
	d := DesktopDeps{Mapper: vision.NewMapper(testDisplay, 960, ""), Input: in}
	s := NewSandbox(SandboxOptions{Options: Options{Timeout: timeout, Redact: redact}}, append(Desktop(d), Ground(d, GroundDeps{})...)...)
	t.Cleanup(func() { s.Close() })
	return s
}

// An argument over its limit is refused in the code's process, with the
// limit named; the process and its variables live on.
func TestOversizedArgumentsAreRefused(t *testing.T) {
	in := &fakeInput{}
	s := desktopSandbox(t, in, 10*time.Second, nil)
	if res := s.Exec(t.Context(), "kept = 7"); res.Err != nil {
		t.Fatal(res.Err.Msg)
	}
	for code, want := range map[string]string{
		`type_text("a" * (4 << 20))`:               "type_text: text is 4,194,304 characters long; the limit is 100,000 characters",
		`final_answer("A" * (70 << 20))`:           "final_answer: answer is 73,400,320 characters long; the limit is 100,000 characters",
		`final_answer(["A" * 1000] * 200)`:         "final_answer: answer is larger than its limit of 100,000 bytes",
		`click("the Save button" * 1000, 3)`:       "click: x is 15,000 characters long; the limit is 32 characters",
		`find_text(text="Save" * 100)`:             "find_text: text is 400 characters long; the limit is 256 characters",
		`press(keys="ctrl+" * 30 + "s")`:           "press: keys is 151 characters long; the limit is 100 characters",
		`fail("C" * (1 << 20))`:                    "bytes left out]",
		`scroll(10, 10, amount=int("9" * 100000))`: "scroll: amount is larger than its limit of 32 bytes",
		`type_text(text="ü" * 100001)`:             "type_text: text is 100,001 characters long",
		`find_elements(states=["x"] * 100000)`:     "find_elements: states is larger than its limit",
	} {
		res := s.Exec(t.Context(), code)
		if res.Err == nil || !strings.Contains(res.Err.Msg, want) {
			t.Errorf("%s: %+v, want an error with %q", code, res.Err, want)
		}
		if res.Err != nil && len(res.Err.Msg) > 2*maxErrorChars {
			t.Errorf("%s: an error of %d bytes", code, len(res.Err.Msg))
		}
	}
	if res := s.Exec(t.Context(), "print(kept)"); res.Err != nil || res.Output != "7\n" {
		t.Errorf("the variables did not survive: %+v %q", res.Err, res.Output)
	}
	if calls := in.Calls(); len(calls) != 0 {
		t.Errorf("the input was used: %v", calls)
	}
}

// blockTool waits until its call's context ends, as a tool stuck on the
// network or on an app does.
func blockTool() Tool {
	return Tool{Name: "block", Kind: KindResearch, Fn: func(c *Call, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		<-c.Ctx.Done()
		return nil, c.stopped()
	}}
}

// A tool call ends at the block's deadline, in process and in the sandbox,
// and the block says it hit its time limit; the sandbox's child lives on.
func TestToolCallsHonourTheBlockDeadline(t *testing.T) {
	for name, ex := range map[string]interface {
		Exec(context.Context, string) Result
		Close() error
	}{
		"in process": New(Options{Timeout: time.Second}, blockTool()),
		"sandbox":    NewSandbox(SandboxOptions{Options: Options{Timeout: time.Second}}, blockTool()),
	} {
		t.Run(name, func(t *testing.T) {
			defer ex.Close()
			res := ex.Exec(t.Context(), "kept = 1\nblock()")
			if res.Err == nil || res.Err.Kind != KindLimit || !strings.Contains(res.Err.Msg, "time limit") ||
				strings.Contains(res.Err.Msg, "variables were lost") {
				t.Fatalf("%+v", res.Err)
			}
			if res := ex.Exec(t.Context(), "print(kept)"); res.Err != nil || res.Output != "1\n" {
				t.Errorf("after the deadline: %+v %q", res.Err, res.Output)
			}
		})
	}
}

// Stop ends a tool call in the sandbox at once.
func TestStopEndsAToolCall(t *testing.T) {
	s := NewSandbox(SandboxOptions{Options: Options{Timeout: -1}}, blockTool())
	defer s.Close()
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	if res := s.Exec(ctx, "block()"); res.Err == nil || res.Err.Kind != KindCancelled {
		t.Errorf("%+v", res.Err)
	}
}

// pacedInput types one chunk at a time and signals each.
type pacedInput struct {
	fakeInput
	chunks chan string
	wait   time.Duration
}

func (p *pacedInput) Type(ctx context.Context, text string) error {
	p.chunks <- text
	select {
	case <-time.After(p.wait):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// type_text refuses text that cannot be typed in the block's time left, and
// stops between chunks when the run is stopped.
func TestTypeTextFitsTheBlock(t *testing.T) {
	in := &pacedInput{chunks: make(chan string, 1000), wait: 50 * time.Millisecond}
	s := desktopSandbox(t, in, 3*time.Second, nil)
	res := s.Exec(t.Context(), `type_text("x" * 5000)`)
	if res.Err == nil || !strings.Contains(res.Err.Msg, "the text is 5,000 characters long, and at 1,000 characters a second this block's") {
		t.Fatalf("%+v", res.Err)
	}
	if len(in.chunks) != 0 {
		t.Fatalf("%d chunks were typed of a text refused", len(in.chunks))
	}
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-in.chunks
		<-in.chunks // the second chunk is being typed
		cancel()
	}()
	res = s.Exec(ctx, `type_text("y" * 2000)`)
	if res.Err == nil || res.Err.Kind != KindCancelled {
		t.Fatalf("%+v", res.Err)
	}
	if len(res.Actions) != 1 || !strings.Contains(res.Actions[0].Error, "of 2,000 characters") {
		t.Errorf("actions %+v", res.Actions)
	}
}

// What a tool hands the code is redacted: every string in its result, and
// its error.
func TestToolResultsAreRedacted(t *testing.T) {
	const secret = "I_AM_SECRET_VALUE_42"
	leak := Tool{Name: "leak", Kind: KindScreen, Params: []Param{{Name: "fail", Type: "bool", Default: "False", MaxLen: 32}},
		Fn: func(c *Call, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			if len(args) > 0 && args[0] == starlark.Bool(true) {
				return nil, &os.PathError{Op: "open", Path: "/tmp/" + secret[2:12], Err: os.ErrNotExist}
			}
			d := starlark.NewDict(1)
			_ = d.SetKey(starlark.String("k"+secret), starlark.Tuple{starlark.String(secret[4:])})
			return starlark.NewList([]starlark.Value{d, starlarkstruct.FromStringDict(starlark.String("element"),
				starlark.StringDict{"text": starlark.String(secret)})}), nil
		}}
	redact := func(s string) string {
		return strings.NewReplacer(secret, "[secret:pw]", secret[4:], "[secret:pw]", secret[2:12], "[secret:pw]").Replace(s)
	}
	for name, ex := range map[string]interface {
		Exec(context.Context, string) Result
		Close() error
	}{
		"in process": New(Options{Redact: redact}, leak),
		"sandbox":    NewSandbox(SandboxOptions{Options: Options{Redact: redact}}, leak),
	} {
		t.Run(name, func(t *testing.T) {
			defer ex.Close()
			res := ex.Exec(t.Context(), "v = leak()\nprint(v, v[1].text[::-1])\nleak(True)")
			if res.Err == nil || strings.Contains(res.Err.Msg, secret[2:12]) || !strings.Contains(res.Err.Msg, "/tmp/[secret:pw]") {
				t.Errorf("error %+v", res.Err)
			}
			if strings.Contains(res.Output, "SECRET") || !strings.Contains(res.Output, `[{"k[secret:pw]": ("[secret:pw]",)}, element(text = "[secret:pw]")]`) {
				t.Errorf("output %q", res.Output)
			}
		})
	}
}

// A child that sends a frame over the limit is stopped before the agent
// reads it, with the sizes named; the agent does not allocate it.
func TestOversizedFrameFromTheChild(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal(err) // the Makefile installs python3
	}
	prog := filepath.Join(t.TempDir(), "child.py")
	src := `import json, struct, sys, time
def recv():
    n = struct.unpack(">I", sys.stdin.buffer.read(4))[0]
    return json.loads(sys.stdin.buffer.read(n))
def send(m):
    b = json.dumps(m).encode()
    sys.stdout.buffer.write(struct.pack(">I", len(b)) + b)
    sys.stdout.buffer.flush()
recv()
send({"result": {"output": "", "steps": 0, "ready": True}})
recv()
sys.stdout.buffer.write(struct.pack(">I", 100 << 20))
sys.stdout.buffer.flush()
time.sleep(30)
`
	if err := os.WriteFile(prog, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	s := NewSandbox(SandboxOptions{Command: func() (*exec.Cmd, error) { return exec.Command(py, prog), nil }})
	defer s.Close()
	res := s.Exec(t.Context(), "print(1)")
	if res.Err == nil || !strings.Contains(res.Err.Msg, "result too large (100.0 MB; limit 8.0 MB)") {
		t.Errorf("%+v", res.Err)
	}
}

// Real code runs under the smallest memory cap the sandbox takes: data
// structures, json, functions and tool calls, block after block.
func TestMinMemoryRunsRealCode(t *testing.T) {
	var log []string
	s := NewSandbox(SandboxOptions{Memory: MinMemory}, echoTool(&log))
	defer s.Close()
	for i, code := range []string{
		"rows = [{'id': i, 'name': 'row %d' % i, 'tags': [str(i), 'x' * (i % 7)]} for i in range(5000)]",
		"data = json.encode(rows)\nback = json.decode(data)\nprint(len(data), len(back), back[123]['name'])",
		"def score(r):\n    return len(r['name']) * 31 % 97 + r['id'] % 13\nbest = sorted(back, key=score)[:5]\nprint([b['id'] for b in best])",
		"text = '\\n'.join([r['name'].upper() for r in rows])\nprint(len(text.split('\\n')), echo(text[:40])[0])",
		"for i in range(200):\n    echo(i)\nprint('done', len(rows))",
	} {
		res := s.Exec(t.Context(), code)
		if res.Err != nil {
			t.Fatalf("block %d under %d MiB: %s", i, MinMemory>>20, res.Err.Msg)
		}
	}
}
