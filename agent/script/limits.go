package script

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// LimitError is an argument over its parameter's MaxLen: refused before the
// builtin runs (and, in a sandbox, before it leaves the code's process).
type LimitError struct {
	Tool, Param string
	Size, Limit int  // Size is only known for a string; for other values it is past Limit
	Chars       bool // a string: Size and Limit count characters, else bytes
}

func (e *LimitError) Error() string {
	if !e.Chars {
		return fmt.Sprintf("%s: %s is larger than its limit of %s bytes (as its repr would be)", e.Tool, e.Param, thousands(e.Limit))
	}
	return fmt.Sprintf("%s: %s is %s characters long; the limit is %s characters", e.Tool, e.Param, thousands(e.Size), thousands(e.Limit))
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// checkArgs refuses an argument larger than its parameter's MaxLen. Unknown
// and surplus arguments are left to Bind, which says what is wrong.
func checkArgs(t *Tool, args starlark.Tuple, kwargs []starlark.Tuple) error {
	for i, v := range args {
		if i < len(t.Params) {
			if err := checkArg(t, t.Params[i], v); err != nil {
				return err
			}
		}
	}
	for _, kv := range kwargs {
		k, _ := kv[0].(starlark.String)
		for _, p := range t.Params {
			if p.Name == string(k) {
				if err := checkArg(t, p, kv[1]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func checkArg(t *Tool, p Param, v starlark.Value) error {
	if p.MaxLen <= 0 {
		return nil
	}
	if s, ok := v.(starlark.String); ok {
		if len(s) <= p.MaxLen {
			return nil // at most as many characters as bytes
		}
		if n := utf8.RuneCountInString(string(s)); n > p.MaxLen {
			return &LimitError{Tool: t.Name, Param: p.Name, Size: n, Limit: p.MaxLen, Chars: true}
		}
		return nil
	}
	if n := valueSize(v, p.MaxLen, 0); n > p.MaxLen {
		return &LimitError{Tool: t.Name, Param: p.Name, Size: n, Limit: p.MaxLen}
	}
	return nil
}

// valueSize estimates the bytes of v's repr without building it, stopping
// once it passes limit (a value holding itself is counted until then).
func valueSize(v starlark.Value, limit, depth int) int {
	if depth > maxWireDepth {
		return limit + 1
	}
	items := func(it starlark.Iterable, n int) int {
		size := 2
		iter := it.Iterate()
		defer iter.Done()
		var x starlark.Value
		for iter.Next(&x) && size <= limit {
			size += 2 + valueSize(x, limit-size, depth+1)
		}
		return size + n
	}
	switch v := v.(type) {
	case starlark.String:
		return len(v) + 2
	case starlark.Bytes:
		return len(v) + 3
	case starlark.Int:
		if i, ok := v.Int64(); ok {
			return len(fmt.Sprint(i))
		}
		return int(float64(v.BigInt().BitLen())*0.30103) + 2 // decimal digits
	case starlark.Float, starlark.Bool, starlark.NoneType:
		return 24
	case *starlark.List:
		return items(v, 0)
	case starlark.Tuple:
		return items(v, 0)
	case *starlark.Set:
		return items(v, 5)
	case *starlark.Dict:
		size := 2
		for _, kv := range v.Items() {
			if size > limit {
				break
			}
			size += 4 + valueSize(kv[0], limit-size, depth+1)
			size += valueSize(kv[1], limit-size, depth+1)
		}
		return size
	case *starlarkstruct.Struct:
		size := 8
		for _, name := range v.AttrNames() {
			if size > limit {
				break
			}
			x, _ := v.Attr(name)
			size += len(name) + 3 + valueSize(x, limit-size, depth+1)
		}
		return size
	}
	return len(v.String())
}

// redactValue returns v with every string in it passed through f: a tool's
// result on its way to the code. Containers are copied; other values come
// back as they are.
func redactValue(v starlark.Value, f func(string) string, depth int) starlark.Value {
	if depth > maxWireDepth {
		return v
	}
	list := func(xs []starlark.Value) []starlark.Value {
		out := make([]starlark.Value, len(xs))
		for i, x := range xs {
			out[i] = redactValue(x, f, depth+1)
		}
		return out
	}
	switch v := v.(type) {
	case starlark.String:
		return starlark.String(f(string(v)))
	case starlark.Bytes:
		return starlark.Bytes(f(string(v)))
	case *starlark.List:
		xs := make([]starlark.Value, v.Len())
		for i := range xs {
			xs[i] = v.Index(i)
		}
		return starlark.NewList(list(xs))
	case starlark.Tuple:
		return starlark.Tuple(list(v))
	case *starlark.Dict:
		d := starlark.NewDict(v.Len())
		for _, kv := range v.Items() {
			_ = d.SetKey(redactValue(kv[0], f, depth+1), redactValue(kv[1], f, depth+1))
		}
		return d
	case *starlark.Set:
		s := starlark.NewSet(v.Len())
		iter := v.Iterate()
		defer iter.Done()
		var x starlark.Value
		for iter.Next(&x) {
			_ = s.Insert(redactValue(x, f, depth+1))
		}
		return s
	case *starlarkstruct.Struct:
		fields := starlark.StringDict{}
		for _, name := range v.AttrNames() {
			x, _ := v.Attr(name)
			fields[name] = redactValue(x, f, depth+1)
		}
		return starlarkstruct.FromStringDict(v.Constructor(), fields)
	}
	return v
}

// redactedError is a tool's error with its text redacted; it still unwraps
// to the original, so callers can tell a cancellation.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactErr returns err with its message passed through f.
func redactErr(err error, f func(string) string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if r := f(msg); r != msg {
		return &redactedError{msg: r, err: err}
	}
	return err
}

// errTooBig is the sentinel of a frame over the protocol's limit.
var errTooBig = errors.New("too large")

// tooLarge is a frame between the code's process and the agent over the
// limit, as both say it: "result too large (N MB; limit M MB)".
func tooLarge(size, limit int64) error {
	return fmt.Errorf("result %w (%s MB; limit %s MB)", errTooBig, mb(size), mb(limit))
}

// mb writes n bytes in megabytes with one decimal.
func mb(n int64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) }
