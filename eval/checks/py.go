package checks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// This file gives Go values Python's semantics where the metrics lean on them:
// ==, in, str(), truthiness and the type names of error messages. Values are
// nil, bool, json.Number, int, int64, float64, string, []any, map[string]any.

// PyEqual is Python's == on getter and rule values: numbers compare by value
// (1 == 1.0, True == 1), lists and objects deeply, NaN equals nothing.
func PyEqual(a, b any) bool {
	if x, ok := pyRat(a); ok {
		y, ok := pyRat(b)
		return ok && x != nil && y != nil && x.Cmp(y) == 0
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, PyEqual)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !PyEqual(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// pyRat returns a number (bool included: Python's bool is an int) as a
// rational; ok is false for a non-number, r is nil for NaN and the infinities.
func pyRat(v any) (r *big.Rat, ok bool) {
	switch x := v.(type) {
	case bool:
		return big.NewRat(int64(b2f(x)), 1), true
	case int:
		return big.NewRat(int64(x), 1), true
	case int64:
		return big.NewRat(x, 1), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, true
		}
		return new(big.Rat).SetFloat64(x), true
	case json.Number:
		r, ok := new(big.Rat).SetString(string(x))
		if !ok {
			return nil, true
		}
		return r, true
	}
	return nil, false
}

// PyNumber returns v as a float64 when it is a number (bools included).
func PyNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case bool:
		return b2f(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// pyInt returns v as an int when it is an integral number (a JSON 2, not 2.5).
func pyInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int(x), true
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i), true
		}
	}
	return 0, false
}

// PyIn is Python's `item in container`: a substring test for strings,
// membership for lists, a key test for objects; a TypeError (here an error)
// otherwise.
func PyIn(item, container any) (bool, error) {
	switch c := container.(type) {
	case string:
		s, ok := item.(string)
		if !ok {
			return false, fmt.Errorf("'in <string>' requires string as left operand, not %s", PyType(item))
		}
		return strings.Contains(c, s), nil
	case []any:
		return slices.ContainsFunc(c, func(x any) bool { return PyEqual(item, x) }), nil
	case map[string]any:
		switch k := item.(type) {
		case string:
			_, ok := c[k]
			return ok, nil
		case []any, map[string]any:
			return false, fmt.Errorf("unhashable type: '%s'", PyType(item))
		}
		return false, nil
	}
	return false, fmt.Errorf("argument of type '%s' is not iterable", PyType(container))
}

// PyType names a value's Python type, for error messages.
func PyType(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case string:
		return "str"
	case bool:
		return "bool"
	case int, int64:
		return "int"
	case float64:
		return "float"
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return "float"
		}
		return "int"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

// PyTruthy is Python's bool(v).
func PyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	if f, ok := PyNumber(v); ok {
		return f != 0
	}
	return true
}

// PyStr is Python's str(v) for the values metrics print: floats as repr does
// ("3.0", "1e-05"), None as "None", bools as "True"/"False", lists and dicts
// as their repr.
func PyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return PyFloatRepr(x)
	case json.Number:
		if PyType(x) == "int" {
			return string(x)
		}
		f, _ := x.Float64()
		return PyFloatRepr(f)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = pyRepr(k) + ": " + pyRepr(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

func pyRepr(v any) string {
	if s, ok := v.(string); ok {
		if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
			return `"` + s + `"`
		}
		return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
	}
	return PyStr(v)
}

// PyFloatRepr is Python's repr(float): the shortest digits that read back,
// in positional notation for exponents from -5 to 15, else as 1e+16.
func PyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp)
	}
	s = strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// show renders a value for a check's note, shortened.
func show(v any) string {
	if v == nil {
		return "None"
	}
	data, err := json.Marshal(v)
	if err != nil {
		return cut(fmt.Sprintf("%v", v), 200)
	}
	return cut(string(data), 200)
}

// cut shortens s to at most n bytes (on a rune boundary), marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// obj returns v as a JSON object, or an error naming what as Python's
// subscript of a non-dict would.
func obj(v any, what string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want an object, got %s", what, PyType(v))
	}
	return m, nil
}

// key returns m[k], or a KeyError.
func key(m map[string]any, k string) (any, error) {
	v, ok := m[k]
	if !ok {
		return nil, fmt.Errorf("KeyError: '%s'", k)
	}
	return v, nil
}

// strKey returns the string m[k], or an error.
func strKey(m map[string]any, k string) (string, error) {
	v, err := key(m, k)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: want a string, got %s", k, PyType(v))
	}
	return s, nil
}

// strList returns v as a list of strings.
func strList(v any, what string) ([]string, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a list of strings, got %s", what, PyType(v))
	}
	out := make([]string, len(l))
	for i, x := range l {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: want a string, got %s", what, i, PyType(x))
		}
		out[i] = s
	}
	return out, nil
}

// optBool reads a boolean option with a default, as options.get(k, def).
func optBool(opts map[string]any, k string, def bool) bool {
	if v, ok := opts[k]; ok {
		return PyTruthy(v)
	}
	return def
}

// decodeJSON decodes JSON keeping numbers exact (json.Number), as the task
// files are decoded.
func decodeJSON(data []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("extra data after the JSON value")
	}
	return nil
}
