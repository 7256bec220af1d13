package script

import (
	"fmt"
	"math"
	"strings"

	"go.starlark.net/starlark"
)

// Args holds a call's arguments bound to its Tool's Params (Call.Bind). The
// getters convert one argument each; the first conversion error sticks and
// is returned by Err, so a tool reads all its arguments and checks once:
//
//	a, err := c.Bind()
//	x, y := a.Number("x"), a.Number("y")
//	if err := a.Err(); err != nil { return nil, err }
//
// Messages name the tool and the parameter, e.g.
// "click: x must be a number, got string".
type Args struct {
	tool string
	idx  map[string]int
	vals []starlark.Value // by parameter index; defaults filled in
	err  error
}

// Bind binds the call's positional and keyword arguments to the tool's
// Params, filling in defaults. Misuse (too many, unknown, repeated or
// missing arguments) is an error that shows the tool's signature.
func (c *Call) Bind() (*Args, error) {
	t := c.tool
	a := &Args{tool: t.Name, idx: make(map[string]int, len(t.Params)), vals: make([]starlark.Value, len(t.Params))}
	for i, p := range t.Params {
		a.idx[p.Name] = i
	}
	sig := signature(t)
	if len(t.Params) == 0 && len(c.args)+len(c.kwargs) > 0 {
		return nil, fmt.Errorf("%s: takes no arguments; call it as %s", t.Name, sig)
	}
	if len(c.args) > len(t.Params) {
		return nil, fmt.Errorf("%s: got %d positional arguments, want at most %d; call it as %s",
			t.Name, len(c.args), len(t.Params), sig)
	}
	copy(a.vals, c.args)
	for _, kv := range c.kwargs {
		k := string(kv[0].(starlark.String))
		i, ok := a.idx[k]
		if !ok {
			return nil, fmt.Errorf("%s: unexpected keyword argument %s; call it as %s", t.Name, k, sig)
		}
		if a.vals[i] != nil {
			return nil, fmt.Errorf("%s: got multiple values for argument %s; call it as %s", t.Name, k, sig)
		}
		a.vals[i] = kv[1]
	}
	for i, p := range t.Params {
		if a.vals[i] != nil {
			continue
		}
		d := c.r.exec.defaults[t.Name][i]
		if d == nil {
			return nil, fmt.Errorf("%s: missing argument %s; call it as %s", t.Name, p.Name, sig)
		}
		a.vals[i] = d
	}
	return a, nil
}

// Err returns the first conversion error of the getters, or nil.
func (a *Args) Err() error { return a.err }

// Value returns the named argument as given (None when it defaulted to None).
// An unknown name is a programming error reported through Err.
func (a *Args) Value(name string) starlark.Value {
	i, ok := a.idx[name]
	if !ok {
		a.fail(fmt.Errorf("%s: internal error: no parameter %q", a.tool, name))
		return starlark.None
	}
	return a.vals[i]
}

// IsNone reports whether the named argument is None.
func (a *Args) IsNone(name string) bool { return a.Value(name) == starlark.None }

// Number returns an int or float argument as float64; a non-finite float is
// an error.
func (a *Args) Number(name string) float64 {
	switch v := a.Value(name).(type) {
	case starlark.Int:
		f, _ := starlark.AsFloat(v)
		return f
	case starlark.Float:
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			a.fail(fmt.Errorf("%s: %s must be a finite number, got %s", a.tool, name, v))
		}
		return float64(v)
	default:
		a.fail(a.typeError(name, "a number", v))
		return 0
	}
}

// Int returns an int argument (a float with no fraction, like 3.0, is
// accepted).
func (a *Args) Int(name string) int {
	switch v := a.Value(name).(type) {
	case starlark.Int:
		if i, ok := v.Int64(); ok && i >= math.MinInt32 && i <= math.MaxInt32 {
			return int(i)
		}
		a.fail(fmt.Errorf("%s: %s is out of range: %s", a.tool, name, v))
	case starlark.Float:
		if f := float64(v); f == math.Trunc(f) && math.Abs(f) <= math.MaxInt32 {
			return int(f)
		}
		a.fail(fmt.Errorf("%s: %s must be a whole number, got %s", a.tool, name, v))
	default:
		a.fail(a.typeError(name, "an integer", v))
	}
	return 0
}

// String returns a string argument.
func (a *Args) String(name string) string {
	v, ok := a.Value(name).(starlark.String)
	if !ok {
		a.fail(a.typeError(name, "a string", a.Value(name)))
	}
	return string(v)
}

// OptString returns a string argument, or ok == false when it is None.
func (a *Args) OptString(name string) (s string, ok bool) {
	if a.IsNone(name) {
		return "", false
	}
	return a.String(name), true
}

// Bool returns a bool argument.
func (a *Args) Bool(name string) bool {
	v, ok := a.Value(name).(starlark.Bool)
	if !ok {
		a.fail(a.typeError(name, "True or False", a.Value(name)))
	}
	return bool(v)
}

func (a *Args) typeError(name, want string, v starlark.Value) error {
	return fmt.Errorf("%s: %s must be %s, got %s", a.tool, name, want, typeName(v))
}

func (a *Args) fail(err error) {
	if a.err == nil {
		a.err = err
	}
}

// typeName is the Python-style type name of v, with the value for short
// scalars so the model sees what it passed, e.g. `string "abc"`.
func typeName(v starlark.Value) string {
	if v == nil {
		return "nothing"
	}
	switch v.(type) {
	case starlark.String:
		if s := v.String(); len(s) <= 40 {
			return "string " + s
		}
		return "string"
	case starlark.NoneType:
		return "None"
	}
	return v.Type()
}

// signature renders t's call form, e.g. `click(x, y, button="left")`.
func signature(t *Tool) string {
	var b strings.Builder
	b.WriteString(t.Name)
	b.WriteByte('(')
	for i, p := range t.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
		if p.Default != "" {
			b.WriteString("=" + p.Default)
		}
	}
	b.WriteByte(')')
	return b.String()
}
