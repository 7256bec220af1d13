package script

import (
	"deskpilot/actions"
	"fmt"

	"context"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// testTools are small real tools for the executor tests: nap sleeps through
// Call.Sleep (announcing itself on napping), mark logs an action.
func testTools(napping chan<- struct{}) []Tool {
	return []Tool{
		{
			Name: "nap", Group: "test", Params: []Param{{Name: "seconds", Type: "float"}},
			Doc: "Sleep.",
			Fn: func(c *Call, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
				a, err := c.Bind()
				if err != nil {
					return nil, err
				}
				s := a.Number("seconds")
				if err := a.Err(); err != nil {
					return nil, err
				}
				if napping != nil {
					napping <- struct{}{}
				}
				return nil, c.Sleep(time.Duration(s * float64(time.Second)))
			},
		},
		{
			Name: "mark", Group: "test",
			Params: []Param{{Name: "x", Type: "int"}, {Name: "label", Type: "str", Default: `"m"`}},
			Doc:    "Log a mark.",
			Fn: func(c *Call, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
				a, err := c.Bind()
				if err != nil {
					return nil, err
				}
				x, label := a.Number("x"), a.String("label")
				if err := a.Err(); err != nil {
					return nil, err
				}
				c.Log(actions.Record{Name: c.Name, Args: c.ArgsText(), Model: &[2]float64{x, 0}, Result: label})
				return starlark.MakeInt(int(x) * 2), nil
			},
		},
		{
			Name: "boom", Group: "test", Doc: "Panic.",
			Fn: func(*Call, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) { panic("kaboom") },
		},
	}
}

// execAll executes blocks in order on one executor and returns the last result,
// failing on any unexpected error in the earlier ones.
func execAll(t *testing.T, e *Executor, blocks ...string) Result {
	t.Helper()
	var res Result
	for i, b := range blocks {
		res = e.Exec(t.Context(), b)
		if i < len(blocks)-1 && res.Err != nil {
			t.Fatalf("block %d: unexpected error: %s", i+1, res.Err.Msg)
		}
	}
	return res
}

func TestPersistence(t *testing.T) {
	tests := []struct {
		name   string
		blocks []string
		want   string
	}{
		{"variable", []string{"x = 41", "x += 1\nprint(x)"}, "42\n"},
		{"function", []string{"def double(n):\n    return 2 * n", "print(double(21))"}, "42\n"},
		{"function sees reassigned global", []string{
			"items = []\ndef show():\n    return items",
			"items = [1, 2]",
			"print(show())",
		}, "[1, 2]\n"},
		{"reassignment in the same block", []string{
			"target = 1\ndef go():\n    return target",
			"target = 2\nprint(go())",
		}, "2\n"},
		{"redefined helper", []string{
			"def b():\n    return 'old'\ndef a():\n    return b()",
			"def b():\n    return 'new'\nprint(a())",
			"print(a(), b())",
		}, "new new\n"},
		{"mutation", []string{"d = {}", "d['k'] = 'v'", "print(d)"}, "{\"k\": \"v\"}\n"},
		{"tool result", []string{"y = mark(21)", "print(y)"}, "42\n"},
		{"modules", []string{"print(math.floor(2.7), json.encode({'a': [1]}))"}, "2 {\"a\":[1]}\n"},
		{"local shadow of a tool is fine", []string{"def f():\n    mark = 3\n    return mark\nprint(f())"}, "3\n"},
		{"while and set", []string{"s = set()\ni = 0\nwhile i < 3:\n    s.add(i % 2)\n    i += 1\nprint(sorted(s))"}, "[0, 1]\n"},
		{"recursion", []string{"def fact(n):\n    return 1 if n < 2 else n * fact(n - 1)\nprint(fact(5))"}, "120\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Options{}, testTools(nil)...)
			res := execAll(t, e, tt.blocks...)
			if res.Err != nil {
				t.Fatalf("error: %s", res.Err.Msg)
			}
			if res.Output != tt.want {
				t.Errorf("output = %q, want %q", res.Output, tt.want)
			}
		})
	}
}

func TestFinalAnswer(t *testing.T) {
	tests := []struct {
		name, code, want, output string
	}{
		{"string as-is", `final_answer("done")`, "done", ""},
		{"other values via str", `final_answer([1, "a"])`, `[1, "a"]`, ""},
		{"nested function", "def f():\n    print('in f')\n    final_answer(42)\n    print('after')\ndef g():\n    f()\ng()\nprint('not reached')", "42", "in f\n"},
		{"inside a loop with prints", "for i in range(10):\n    print(i)\n    if i == 2:\n        final_answer('at %d' % i)", "at 2", "0\n1\n2\n"},
		{"inside sorted key", "sorted([3, 1], key=lambda x: final_answer('key'))\nprint('no')", "key", ""},
		{"keyword", `final_answer(answer="kw")`, "kw", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := New(Options{}).Exec(t.Context(), tt.code)
			if res.Err != nil {
				t.Fatalf("error: %s", res.Err.Msg)
			}
			if res.Final == nil || res.Final.Value != tt.want {
				t.Fatalf("final = %+v, want %q", res.Final, tt.want)
			}
			if res.Output != tt.output {
				t.Errorf("output = %q, want %q", res.Output, tt.output)
			}
		})
	}
}

func TestErrorThenRecover(t *testing.T) {
	e := New(Options{}, testTools(nil)...)
	res := e.Exec(t.Context(), "print('Flag!')\nx = 1\ny = x / 0\nprint('no')")
	if res.Err == nil || res.Err.Kind != KindRuntime || res.Err.Line != 3 {
		t.Fatalf("err = %+v, want runtime at line 3", res.Err)
	}
	for _, want := range []string{"division by zero", "3 | y = x / 0"} {
		if !strings.Contains(res.Err.Msg, want) {
			t.Errorf("message %q lacks %q", res.Err.Msg, want)
		}
	}
	if res.Output != "Flag!\n" {
		t.Errorf("output = %q, want the print before the error", res.Output)
	}
	res = e.Exec(t.Context(), "print(x + 1)")
	if res.Err != nil || res.Output != "2\n" {
		t.Fatalf("second block: output %q, err %v", res.Output, res.Err)
	}
}

func TestRuntimeErrorInnermostFrame(t *testing.T) {
	e := New(Options{}, testTools(nil)...)
	res := execAll(t, e,
		"def ratio(a, b):\n    return a / b",
		"print('start')\nr = ratio(1, 0)",
	)
	if res.Err == nil || res.Err.Kind != KindRuntime || res.Err.Line != 2 {
		t.Fatalf("err = %+v, want runtime at line 2", res.Err)
	}
	for _, want := range []string{"2 | r = ratio(1, 0)", "in ratio, line 2 of a function defined in an earlier block", "return a / b"} {
		if !strings.Contains(res.Err.Msg, want) {
			t.Errorf("message %q lacks %q", res.Err.Msg, want)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		name      string
		code      string
		line, col int
		want      []string
	}{
		{"is operator", "x = 1\nif x is None:\n    pass", 2, 8, []string{"line 2, column 8", "2 | if x is None:", "no is operator", "Nothing in this block ran"}},
		{"import", "import os\nos.system('ls')", 1, 1, []string{"there are no imports"}},
		{"from import", "from time import sleep", 1, 1, []string{"there are no imports"}},
		{"f-string", "n = 3\nprint(f\"n={n}\")", 2, 15, []string{"no f-strings"}},
		{"try", "try:\n    x = 1\nexcept:\n    pass", 1, 1, []string{"no try/except"}},
		{"is in a conditional", "y = None\nx = 1 if y is not None else 2", 2, 7, []string{"no is operator"}},
		{"is inside a string is no hint", "print('this is it'", 1, 19, []string{"got end of file"}},
		{"for else", "for i in [1]:\n    pass\nelse:\n    pass", 3, 1, []string{"cannot have an else clause"}},
		{"unterminated string", "s = 'abc", 1, 5, []string{"line 1, column 5"}},
		{"undefined name", "x = 1\nprnt(x)", 2, 1, []string{"undefined: prnt", "did you mean print?", "Nothing in this block ran"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := New(Options{}).Exec(t.Context(), tt.code)
			if res.Err == nil || res.Err.Kind != KindSyntax {
				t.Fatalf("err = %+v, want a syntax error", res.Err)
			}
			if strings.HasSuffix(tt.name, "no hint") && strings.Contains(res.Err.Msg, "hint:") {
				t.Errorf("unexpected hint:\n%s", res.Err.Msg)
			}
			if res.Err.Line != tt.line || res.Err.Col != tt.col {
				t.Errorf("position = %d:%d, want %d:%d\n%s", res.Err.Line, res.Err.Col, tt.line, tt.col, res.Err.Msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Err.Msg, w) {
					t.Errorf("message lacks %q:\n%s", w, res.Err.Msg)
				}
			}
		})
	}
}

func TestSandbox(t *testing.T) {
	tests := []struct {
		name, code string
		want       []string
	}{
		{"load", `load("os", "x")`, []string{"load() is not available"}},
		{"open", `print(open("/etc/passwd").read())`, []string{"undefined: open", "no file access"}},
		{"__import__", `os = __import__("os")`, []string{"undefined: __import__", "no imports"}},
		{"socket", `s = socket.socket()`, []string{"undefined: socket", "no network access"}},
		{"requests", `requests.get("http://example.com")`, []string{"undefined: requests", "no network access"}},
		{"os", `os.system("true")`, []string{"undefined: os", "no OS access"}},
		{"eval", `eval("1")`, []string{"undefined: eval"}},
		{"time", `time.sleep(1)`, []string{"undefined: time", "wait(seconds)"}},
		{"assign tool", `print("x")
mark = 5`, []string{"line 2, column 1: cannot assign to mark: it is a builtin tool"}},
		{"assign final_answer", `final_answer = "x"`, []string{"cannot assign to final_answer"}},
		{"tuple assign", `a, (nap, b) = 1, (2, 3)`, []string{"cannot assign to nap"}},
		{"def tool name", "def mark(x):\n    pass", []string{"cannot define a function named mark"}},
		{"loop variable", "for json in [1]:\n    pass", []string{"cannot use as a loop variable json: it is a builtin module"}},
		{"nested top level", "if True:\n    math = 1", []string{"cannot assign to math"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Options{}, testTools(nil)...)
			res := e.Exec(t.Context(), tt.code)
			if res.Err == nil || res.Err.Kind != KindSyntax {
				t.Fatalf("err = %+v, want a syntax-kind refusal", res.Err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Err.Msg, w) {
					t.Errorf("message lacks %q:\n%s", w, res.Err.Msg)
				}
			}
			if res.Output != "" {
				t.Errorf("output = %q: something ran", res.Output)
			}
			// The tools survive the attempt.
			if res := e.Exec(t.Context(), "print(mark(1), math.floor(1.5))"); res.Err != nil || res.Output != "2 1\n" {
				t.Errorf("after: output %q, err %v", res.Output, res.Err)
			}
		})
	}
}

func TestToolErrors(t *testing.T) {
	tests := []struct {
		name, code, want string
	}{
		{"type", `mark("a")`, `mark: x must be a number, got string "a"`},
		{"missing", `mark()`, `mark: missing argument x; call it as mark(x, label="m")`},
		{"too many", `mark(1, "a", 3)`, "mark: got 3 positional arguments, want at most 2"},
		{"unknown keyword", `mark(1, colour="red")`, "mark: unexpected keyword argument colour"},
		{"repeated", `mark(1, x=2)`, "mark: got multiple values for argument x"},
		{"panic", `boom()`, "boom: internal error: kaboom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := New(Options{}, testTools(nil)...).Exec(t.Context(), "print('before')\n"+tt.code)
			if res.Err == nil || res.Err.Kind != KindRuntime || res.Err.Line != 2 {
				t.Fatalf("err = %+v, want runtime at line 2", res.Err)
			}
			if !strings.Contains(res.Err.Msg, tt.want) {
				t.Errorf("message lacks %q:\n%s", tt.want, res.Err.Msg)
			}
			if res.Output != "before\n" {
				t.Errorf("output = %q", res.Output)
			}
		})
	}
}

func TestActionsLogged(t *testing.T) {
	res := New(Options{}, testTools(nil)...).Exec(t.Context(), "mark(1)\nmark(2, label='two')")
	if res.Err != nil {
		t.Fatal(res.Err.Msg)
	}
	if len(res.Actions) != 2 {
		t.Fatalf("actions = %+v", res.Actions)
	}
	if got := res.Actions[1]; got.Args != `2, label="two"` || got.Result != "two" || got.Model[0] != 2 {
		t.Errorf("action = %+v", got)
	}
}

func TestOutputTruncation(t *testing.T) {
	e := New(Options{MaxOutput: 200}, testTools(nil)...)
	res := e.Exec(t.Context(), "for i in range(1000):\n    print('line %d' % i)")
	if res.Err != nil {
		t.Fatal(res.Err.Msg)
	}
	out := res.Output
	if !strings.HasPrefix(out, "line 0\nline 1\n") || !strings.HasSuffix(out, "line 998\nline 999\n") {
		t.Errorf("head or tail lost:\n%s", out)
	}
	if !strings.Contains(out, "characters omitted to stay below 200 characters") {
		t.Errorf("no truncation notice:\n%s", out)
	}
	if len(out) > 400 {
		t.Errorf("output is %d bytes, want about 200 plus the notice", len(out))
	}
}

func TestOutputTruncationUnicode(t *testing.T) {
	o := output{limit: 10}
	o.write(strings.Repeat("é", 15))
	o.write(strings.Repeat("ü", 15))
	s := o.String()
	if !strings.HasPrefix(s, "ééééé\n...") || !strings.HasSuffix(s, "_...\nüüüüü") || !strings.Contains(s, " 20 characters omitted") {
		t.Errorf("got %q: cut inside a rune or lost text", s)
	}
}

func TestStepLimit(t *testing.T) {
	e := New(Options{MaxSteps: 10_000, Timeout: -1}, testTools(nil)...)
	res := e.Exec(t.Context(), "print('start')\ni = 0\nwhile True:\n    i += 1")
	if res.Err == nil || res.Err.Kind != KindLimit {
		t.Fatalf("err = %+v, want limit", res.Err)
	}
	if !strings.Contains(res.Err.Msg, "step limit") || res.Err.Line != 4 {
		t.Errorf("message %q at line %d", res.Err.Msg, res.Err.Line)
	}
	if res.Output != "start\n" {
		t.Errorf("output = %q", res.Output)
	}
	if res := e.Exec(t.Context(), "print('next')"); res.Err != nil {
		t.Errorf("next block: %s", res.Err.Msg)
	}
}

func TestTimeLimit(t *testing.T) {
	t.Run("busy loop is stopped", func(t *testing.T) {
		e := New(Options{MaxSteps: 1 << 62, Timeout: 50 * time.Millisecond})
		res := e.Exec(t.Context(), "i = 0\nwhile True:\n    i += 1")
		if res.Err == nil || res.Err.Kind != KindLimit || !strings.Contains(res.Err.Msg, "time limit") {
			t.Fatalf("err = %+v, want a time limit", res.Err)
		}
		// The loop's progress is kept, like any global.
		if res := e.Exec(t.Context(), "print(i > 0)"); res.Output != "True\n" {
			t.Errorf("i not kept: %q %v", res.Output, res.Err)
		}
	})
	t.Run("sleep does not count", func(t *testing.T) {
		e := New(Options{Timeout: 200 * time.Millisecond}, testTools(nil)...)
		res := e.Exec(t.Context(), "nap(0.5)\nprint('woke')\nnap(0.3)\nprint('again')")
		if res.Err != nil {
			t.Fatalf("err: %s", res.Err.Msg)
		}
		if res.Output != "woke\nagain\n" {
			t.Errorf("output = %q", res.Output)
		}
	})
}

func TestCancel(t *testing.T) {
	t.Run("Executor.Cancel mid-sleep", func(t *testing.T) {
		napping := make(chan struct{}, 1)
		e := New(Options{}, testTools(napping)...)
		go func() {
			<-napping
			e.Cancel()
		}()
		res := e.Exec(t.Context(), "print('a')\nnap(600)\nprint('b')")
		if res.Err == nil || res.Err.Kind != KindCancelled || res.Err.Line != 2 {
			t.Fatalf("err = %+v, want cancelled at line 2", res.Err)
		}
		if res.Output != "a\n" {
			t.Errorf("output = %q", res.Output)
		}
		// Cancel does not poison the next block.
		if res := e.Exec(t.Context(), "print('next')"); res.Err != nil || res.Output != "next\n" {
			t.Errorf("next block: %q %v", res.Output, res.Err)
		}
	})
	t.Run("ctx mid-sleep", func(t *testing.T) {
		napping := make(chan struct{}, 1)
		e := New(Options{}, testTools(napping)...)
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			<-napping
			cancel()
		}()
		res := e.Exec(ctx, "nap(600)")
		if res.Err == nil || res.Err.Kind != KindCancelled {
			t.Fatalf("err = %+v, want cancelled", res.Err)
		}
	})
	t.Run("ctx mid-loop", func(t *testing.T) {
		napping := make(chan struct{}, 1)
		e := New(Options{MaxSteps: 1 << 62, Timeout: -1}, testTools(napping)...)
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			<-napping
			cancel()
		}()
		res := e.Exec(ctx, "nap(0)\nwhile True:\n    pass")
		if res.Err == nil || res.Err.Kind != KindCancelled {
			t.Fatalf("err = %+v, want cancelled", res.Err)
		}
	})
	t.Run("already cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		res := New(Options{}).Exec(ctx, "print('x')")
		if res.Err == nil || res.Err.Kind != KindCancelled || res.Output != "" {
			t.Fatalf("res = %+v", res)
		}
	})
}

func TestNewPanics(t *testing.T) {
	fn := func(*Call, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) { return nil, nil }
	tests := []struct {
		name  string
		tools []Tool
		want  string
	}{
		{"duplicate", []Tool{{Name: "a", Fn: fn}, {Name: "a", Fn: fn}}, `tool "a" registered twice`},
		{"final_answer", []Tool{{Name: "final_answer", Fn: fn}}, `tool "final_answer" registered twice`},
		{"module name", []Tool{{Name: "math", Fn: fn}}, `tool "math" registered twice`},
		{"universe", []Tool{{Name: "print", Fn: fn}}, `would hide the Starlark builtin`},
		{"keyword", []Tool{{Name: "import", Fn: fn}}, `not a valid identifier`},
		{"no fn", []Tool{{Name: "a"}}, `has no Fn`},
		{"bad default", []Tool{{Name: "a", Fn: fn, Params: []Param{{Name: "x", Default: "nope("}}}}, `default nope(`},
		{"required after optional", []Tool{{Name: "a", Fn: fn, Params: []Param{{Name: "x", Default: "1"}, {Name: "y"}}}}, `required parameter "y" follows`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				p := recover()
				if s, _ := p.(string); !strings.Contains(s, tt.want) {
					t.Errorf("panic = %v, want it to contain %q", p, tt.want)
				}
			}()
			New(Options{}, tt.tools...)
		})
	}
}

func TestDefaultsWithCallsAreNotReevaluated(t *testing.T) {
	e := New(Options{}, testTools(nil)...)
	res := execAll(t, e, "def f(v=mark(1)):\n    return v", "print(f())", "print(f())")
	if res.Err != nil || res.Output != "2\n" {
		t.Fatalf("res = %+v", res)
	}
	if len(res.Actions) != 0 {
		t.Errorf("mark ran again in a later block: %+v", res.Actions)
	}
}

func TestFailedBlockKeepsFunctions(t *testing.T) {
	e := New(Options{}, testTools(nil)...)
	res := execAll(t, e, "def f():\n    return 'one'")
	res = e.Exec(t.Context(), "x = 1\nfail('stop')\ndef f():\n    return 'two'")
	if res.Err == nil || !strings.Contains(res.Err.Msg, "stop") {
		t.Fatalf("err = %+v", res.Err)
	}
	if res = e.Exec(t.Context(), "print(f(), x)"); res.Output != "one 1\n" {
		t.Errorf("output = %q, err %v", res.Output, res.Err)
	}
}

func TestStubsOrder(t *testing.T) {
	fn := func(*Call, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) { return nil, nil }
	e := New(Options{},
		Tool{Name: "b1", Group: "b", Fn: fn, Doc: "B one."},
		Tool{Name: "ask_user", Group: "control", Fn: fn, Doc: "Ask.", Returns: "str",
			Params: []Param{{Name: "question", Type: "str", Doc: "what to ask."}}},
		Tool{Name: "b2", Group: "b", Fn: fn, Doc: "B two.\nMore detail."},
		Tool{Name: "o", Fn: fn, Params: []Param{{Name: "v", Default: "None"}}, Doc: "Other."},
	)
	s := e.Stubs()
	var order []int
	for _, w := range []string{"# b\n", "def b1() -> None:\n    \"\"\"B one.\"\"\"", "def b2() -> None:\n    \"\"\"B two.\n    More detail.\n    \"\"\"",
		"# control\n", "def ask_user(question: str) -> str:", "def final_answer(", "# other\n", "def o(v=None) -> None:"} {
		i := strings.Index(s, w)
		if i < 0 {
			t.Fatalf("stubs lack %q:\n%s", w, s)
		}
		order = append(order, i)
	}
	for i := 1; i < len(order); i++ {
		if order[i] < order[i-1] {
			t.Errorf("stubs out of order:\n%s", s)
		}
	}
}

func TestCancelWhenIdle(t *testing.T) {
	e := New(Options{})
	e.Cancel() // nothing running: no effect on the next block
	if res := e.Exec(t.Context(), "print(1)"); res.Err != nil || res.Output != "1\n" {
		t.Fatalf("res = %+v", res)
	}
}

// Modules built over the tools call them as the code would: logged, and their
// names protected.
func TestModulesCallTools(t *testing.T) {
	var got []string
	tool := Tool{Name: "tap", Params: []Param{{Name: "x", Type: "int"}}, Fn: func(c *Call, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		a, err := c.Bind()
		if err != nil {
			return nil, err
		}
		got = append(got, fmt.Sprint(a.Int("x")))
		return starlark.None, a.Err()
	}}
	e := New(Options{Modules: func(call func(*starlark.Thread, string, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)) starlark.StringDict {
		twice := starlark.NewBuiltin("twice", func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			if _, err := call(th, "tap", args, kw); err != nil {
				return nil, err
			}
			return call(th, "tap", args, kw)
		})
		return starlark.StringDict{"pad": starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{"twice": twice})}
	}}, tool)
	if res := e.Exec(t.Context(), "pad.twice(7)"); res.Err != nil {
		t.Fatal(res.Err.Msg)
	}
	if strings.Join(got, ",") != "7,7" {
		t.Errorf("tool calls %v", got)
	}
	if res := e.Exec(t.Context(), "pad = 1"); res.Err == nil || !strings.Contains(res.Err.Msg, "builtin module") {
		t.Errorf("assigning to a module name: %+v", res.Err)
	}
	if res := e.Exec(t.Context(), "pad.twice('x')"); res.Err == nil || !strings.Contains(res.Err.Msg, "tap: x must be") {
		t.Errorf("bad argument through a module: %+v", res.Err)
	}
}
