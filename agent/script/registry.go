package script

import (
	"fmt"
	"slices"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// isKeyword reports whether s is a Starlark or Python reserved word.
func isKeyword(s string) bool {
	switch s {
	case "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
		"elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
		"is", "lambda", "load", "nonlocal", "not", "or", "pass", "raise", "return", "try",
		"while", "with", "yield", "None", "True", "False":
		return true
	}
	return false
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9'
		if !ok {
			return false
		}
	}
	return true
}

// register validates t and binds it as a global.
func (e *Executor) register(t *Tool) error {
	switch {
	case !isIdent(t.Name) || isKeyword(t.Name):
		return fmt.Errorf("tool name %q is not a valid identifier", t.Name)
	case starlark.Universe.Has(t.Name):
		return fmt.Errorf("tool %q would hide the Starlark builtin of that name", t.Name)
	case e.protected[t.Name] != "":
		return fmt.Errorf("tool %q registered twice (or named like a module)", t.Name)
	case t.Fn == nil:
		return fmt.Errorf("tool %q has no Fn", t.Name)
	}
	defaults, err := e.paramDefaults(t)
	if err != nil {
		return fmt.Errorf("tool %q: %w", t.Name, err)
	}
	e.protected[t.Name] = "tool"
	e.defaults[t.Name] = defaults
	e.tools = append(e.tools, t)
	e.globals[t.Name] = e.builtin(t)
	return nil
}

// paramDefaults checks t's parameters and evaluates their defaults; a nil
// entry is a required parameter.
func (e *Executor) paramDefaults(t *Tool) ([]starlark.Value, error) {
	out := make([]starlark.Value, len(t.Params))
	var seen []string
	optional := false
	for i, p := range t.Params {
		switch {
		case !isIdent(p.Name) || isKeyword(p.Name):
			return nil, fmt.Errorf("parameter name %q is not a valid identifier", p.Name)
		case slices.Contains(seen, p.Name):
			return nil, fmt.Errorf("parameter %q appears twice", p.Name)
		case p.Default == "" && optional:
			return nil, fmt.Errorf("required parameter %q follows an optional one", p.Name)
		}
		seen = append(seen, p.Name)
		if p.Default == "" {
			continue
		}
		optional = true
		v, err := starlark.EvalOptions(&syntax.FileOptions{}, &starlark.Thread{}, "default", p.Default, nil)
		if err != nil {
			return nil, fmt.Errorf("parameter %q: default %s: %w", p.Name, p.Default, err)
		}
		v.Freeze()
		out[i] = v
	}
	return out, nil
}

// builtin wraps t as a Starlark builtin bound to the running block.
func (e *Executor) builtin(t *Tool) *starlark.Builtin {
	return starlark.NewBuiltin(t.Name, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		r, _ := th.Local(runKey).(*run)
		if r == nil {
			return nil, fmt.Errorf("%s: called outside a running block", t.Name)
		}
		return invoke(r, t, args, kwargs)
	})
}

// invoke runs t for block r: its errors are prefixed with its name, a panic
// becomes an error, nil means None.
func invoke(r *run, t *Tool, args starlark.Tuple, kwargs []starlark.Tuple) (v starlark.Value, err error) {
	c := &Call{Ctx: r.ctx, Name: t.Name, r: r, tool: t, args: args, kwargs: kwargs}
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, fmt.Errorf("%s: internal error: %v", t.Name, p)
		}
	}()
	if err := checkArgs(t, args, kwargs); err != nil {
		return nil, err
	}
	v, err = t.Fn(c, args, kwargs)
	if f := r.exec.opts.Redact; f != nil {
		if v != nil {
			v = redactValue(v, f, 0)
		}
		err = redactErr(err, f)
	}
	switch {
	case err != nil && !strings.HasPrefix(err.Error(), t.Name+":"):
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	case err != nil:
		return nil, err
	case v == nil:
		return starlark.None, nil
	}
	return v, nil
}

// finalAnswerTool is the always-present final_answer.
func finalAnswerTool() Tool {
	return Builtin("final_answer", func(c *Call, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		a, err := c.Bind()
		if err != nil {
			return nil, err
		}
		v := a.Value("answer")
		s, ok := v.(starlark.String)
		if !ok {
			s = starlark.String(v.String())
		}
		c.r.mu.Lock()
		if c.r.final == nil {
			c.r.final = &Final{Value: string(s)}
		}
		c.r.mu.Unlock()
		c.r.stop(stopFinal)
		return nil, errFinal
	})
}

// check refuses, before anything runs, load statements and top-level
// bindings of tool and module names (which would hide them from later
// blocks).
func (e *Executor) check(f *syntax.File, src string) *Error {
	var bad *Error
	var visit func(stmts []syntax.Stmt)
	bind := func(id *syntax.Ident, what string) {
		if kind := e.protected[id.Name]; kind != "" && bad == nil {
			bad = staticError(id.NamePos, src,
				fmt.Sprintf("cannot %s %s: it is a builtin %s", what, id.Name, kind),
				fmt.Sprintf("use another name, such as my_%s", id.Name))
		}
	}
	visit = func(stmts []syntax.Stmt) {
		for _, s := range stmts {
			switch s := s.(type) {
			case *syntax.LoadStmt:
				if bad == nil {
					bad = staticError(s.Load, src, loadRefusal, "")
				}
			case *syntax.AssignStmt:
				bindTargets(s.LHS, func(id *syntax.Ident) { bind(id, "assign to") })
			case *syntax.DefStmt:
				bind(s.Name, "define a function named")
			case *syntax.ForStmt:
				bindTargets(s.Vars, func(id *syntax.Ident) { bind(id, "use as a loop variable") })
				visit(s.Body)
			case *syntax.WhileStmt:
				visit(s.Body)
			case *syntax.IfStmt:
				visit(s.True)
				visit(s.False)
			}
		}
	}
	visit(f.Stmts)
	return bad
}

// bindTargets calls fn for each identifier an assignment target binds.
func bindTargets(x syntax.Expr, fn func(*syntax.Ident)) {
	switch x := x.(type) {
	case *syntax.Ident:
		fn(x)
	case *syntax.ParenExpr:
		bindTargets(x.X, fn)
	case *syntax.TupleExpr:
		for _, y := range x.List {
			bindTargets(y, fn)
		}
	case *syntax.ListExpr:
		for _, y := range x.List {
			bindTargets(y, fn)
		}
	}
}
