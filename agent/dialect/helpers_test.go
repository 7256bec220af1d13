package dialect

import (
	"context"
	"fmt"
	"image"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"deskpilot/actions"
	"deskpilot/agent/script"
	"deskpilot/vision"
)

// recInput is the mouse and keyboard behind the real desktop builtins in
// these tests: it records each primitive with its screen point, as the
// robot would receive it.
type recInput struct {
	mu     sync.Mutex
	calls  []string
	cursor actions.Point
}

func (r *recInput) rec(format string, args ...any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, fmt.Sprintf(format, args...))
	return nil
}

func (r *recInput) Move(_ context.Context, p actions.Point) error {
	r.cursor = p
	return r.rec("move %d,%d", p.X, p.Y)
}
func (r *recInput) Click(_ context.Context, p actions.Point, b actions.Button, n int) error {
	r.cursor = p
	return r.rec("click %d,%d %v x%d", p.X, p.Y, b, n)
}
func (r *recInput) Drag(_ context.Context, from, to actions.Point) error {
	r.cursor = to
	return r.rec("drag %d,%d -> %d,%d", from.X, from.Y, to.X, to.Y)
}
func (r *recInput) Scroll(_ context.Context, p actions.Point, d actions.Direction, n int) error {
	r.cursor = p
	return r.rec("scroll %d,%d %s %d", p.X, p.Y, d, n)
}
func (r *recInput) Press(_ context.Context, c actions.Combo) error { return r.rec("press %s", c) }
func (r *recInput) Hold(_ context.Context, c actions.Combo, d time.Duration) error {
	return r.rec("hold %s %s", c, d)
}
func (r *recInput) Type(_ context.Context, text string) error { return r.rec("type %q", text) }
func (r *recInput) Cursor() (actions.Point, error)            { return r.cursor, nil }
func (r *recInput) ReleaseAll() error                         { return nil }

// recInput holds keys and buttons too (actions.Holder), recording each.
func (r *recInput) KeyDown(_ context.Context, c actions.Combo) error { return r.rec("keydown %s", c) }
func (r *recInput) KeyUp(_ context.Context, c actions.Combo) error   { return r.rec("keyup %s", c) }
func (r *recInput) ButtonDown(_ context.Context, p actions.Point, b actions.Button) error {
	r.cursor = p
	return r.rec("buttondown %d,%d %v", p.X, p.Y, b)
}
func (r *recInput) ButtonUp(_ context.Context, p actions.Point, b actions.Button) error {
	r.cursor = p
	return r.rec("buttonup %d,%d %v", p.X, p.Y, b)
}

func (r *recInput) Calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

// askTool is ask_user answering "blue".
func askTool(asked *[]string) script.Tool {
	return script.Tool{
		Name: "ask_user", Params: []script.Param{{Name: "question", Type: "str"}}, Returns: "str",
		Fn: func(c *script.Call, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			a, err := c.Bind()
			if err != nil {
				return nil, err
			}
			*asked = append(*asked, a.String("question"))
			return starlark.String("blue"), nil
		},
	}
}

// run parses reply with d for a display of the given size, runs the
// program on the real executor and desktop builtins with a Mapper built from
// d's Space, and returns what reached the mouse and keyboard.
func run(t *testing.T, d Dialect, display image.Point, reply string) ([]string, script.Result) {
	t.Helper()
	r, err := d.Parse(reply)
	if err != nil {
		t.Fatalf("Parse(%q): %v", reply, err)
	}
	return runCode(t, d, display, r.Code)
}

func runCode(t *testing.T, d Dialect, display image.Point, code string) ([]string, script.Result) {
	t.Helper()
	sp := d.Space(display, 0)
	in := &recInput{cursor: actions.Point{X: 10, Y: 20}}
	var asked []string
	m := vision.Mapper{Display: image.Rectangle{Max: display}, Image: sp.Image, Mode: sp.Mode}
	tools := append(script.Desktop(script.DesktopDeps{Mapper: m, Input: in}), askTool(&asked))
	ex := script.New(script.Options{}, tools...)
	res := ex.Exec(t.Context(), code)
	calls := in.Calls()
	for _, q := range asked {
		calls = append(calls, "asked "+q)
	}
	if res.Final != nil {
		calls = append(calls, "final "+res.Final.Value)
	}
	return calls, res
}

// checkCompiled fails unless code is valid Starlark made only of calls to
// the compiler's builtins with literal arguments (plus the cursor preamble
// the compiler writes itself).
func checkCompiled(t testing.TB, code string) {
	t.Helper()
	if err := compiledOK(code); err != nil {
		t.Fatalf("%v\nprogram:\n%s", err, code)
	}
}

func compiledOK(code string) error {
	f, err := pyFileOptions().Parse("compiled.star", code, 0)
	if err != nil {
		return fmt.Errorf("compiled program does not parse: %v", err)
	}
	known := func(name string) bool { return slices.Contains(builtins(), name) || name == hereVar }
	constants := func(n string) bool { return n == "None" || n == "True" || n == "False" }
	if err := resolve.File(f, known, constants); err != nil {
		return fmt.Errorf("compiled program uses unknown names: %v", err)
	}
	for _, s := range f.Stmts {
		switch s := s.(type) {
		case *syntax.ExprStmt:
			if err := literalCall(s.X); err != nil {
				return err
			}
		case *syntax.AssignStmt: // here = cursor_position()
			if id, ok := s.LHS.(*syntax.Ident); !ok || id.Name != hereVar {
				return fmt.Errorf("unexpected assignment in compiled program")
			}
		case *syntax.IfStmt: // if here == None: fail(...)
			if len(s.True) != 1 || len(s.False) != 0 {
				return fmt.Errorf("unexpected if in compiled program")
			}
		default:
			return fmt.Errorf("unexpected %T in compiled program", s)
		}
	}
	return nil
}

// literalCall checks a call to a known builtin whose arguments are literals,
// here[i], or (for print) a nested ask_user call.
func literalCall(x syntax.Expr) error {
	call, ok := x.(*syntax.CallExpr)
	if !ok {
		return fmt.Errorf("statement is not a call")
	}
	fn, ok := call.Fn.(*syntax.Ident)
	if !ok || !slices.Contains(builtins(), fn.Name) {
		return fmt.Errorf("call to %T is not a builtin", call.Fn)
	}
	for _, a := range call.Args {
		if b, ok := a.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			a = b.Y // keyword argument
		}
		switch a := a.(type) {
		case *syntax.Literal:
		case *syntax.UnaryExpr:
			if _, ok := a.X.(*syntax.Literal); !ok || a.Op != syntax.MINUS && a.Op != syntax.PLUS {
				return fmt.Errorf("argument of %s is not a literal", fn.Name)
			}
		case *syntax.IndexExpr:
			if id, ok := a.X.(*syntax.Ident); !ok || id.Name != hereVar {
				return fmt.Errorf("argument of %s indexes something else", fn.Name)
			}
		case *syntax.CallExpr:
			if fn.Name != "print" {
				return fmt.Errorf("nested call in %s", fn.Name)
			}
			if err := literalCall(a); err != nil {
				return err
			}
		default:
			return fmt.Errorf("argument %T of %s is not a literal", a, fn.Name)
		}
	}
	return nil
}

// evalString evaluates a Starlark string literal.
func evalString(lit string) (string, error) {
	v, err := starlark.EvalOptions(&syntax.FileOptions{}, &starlark.Thread{}, "lit", lit, nil)
	if err != nil {
		return "", err
	}
	s, ok := v.(starlark.String)
	if !ok {
		return "", fmt.Errorf("%s is a %s", lit, v.Type())
	}
	return string(s), nil
}

func lines(s ...string) string { return strings.Join(s, "\n") }
