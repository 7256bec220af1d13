package checks

import (
	"context"
	"fmt"
	"math"
	"strings"

	"sigs.k8s.io/yaml"
)

// matchValueToRule is OSWorld's _match_value_to_rule: rule["method"] compares
// value with rule["ref"]: "re" and "re.FLAG..." (re.search), "eq", "ne", "lt",
// "le", "gt", "ge", "approx:T" (|float(value) - ref| <= T), "range.XY"
// (ref[0] X value Y ref[1], X and Y "t" for < or "e" for <=),
// "spreadsheet_range", "str_list_eq" and "str_set_eq" (value split on commas).
func matchValueToRule(value any, rule map[string]any) (bool, error) {
	method, err := strKey(rule, "method")
	if err != nil {
		return false, err
	}
	ref := rule["ref"]
	switch {
	case strings.HasPrefix(method, "re"):
		flags := ""
		for _, f := range strings.Split(method, ".")[1:] {
			switch f {
			case "I", "IGNORECASE":
				flags += "i"
			case "M", "MULTILINE":
				flags += "m"
			case "S", "DOTALL":
				flags += "s"
			default:
				return false, fmt.Errorf("regex flag %q is not supported", f)
			}
		}
		pat, ok := ref.(string)
		if !ok {
			return false, fmt.Errorf("ref of %s must be a string", method)
		}
		s, ok := value.(string)
		if !ok {
			return false, fmt.Errorf("re.search: expected string, got %s", PyType(value))
		}
		if flags != "" {
			pat = "(?" + flags + ")" + pat
		}
		re, err := pyRegexp(pat)
		if err != nil {
			return false, err
		}
		return re.MatchString(s), nil
	case method == "eq":
		return PyEqual(value, ref), nil
	case method == "ne":
		return !PyEqual(value, ref), nil
	case method == "lt", method == "le", method == "gt", method == "ge":
		cmp, err := pyCompare(value, ref)
		if err != nil {
			return false, err
		}
		return map[string]bool{"lt": cmp < 0, "le": cmp <= 0, "gt": cmp > 0, "ge": cmp >= 0}[method], nil
	case strings.HasPrefix(method, "approx"):
		_, t, _ := strings.Cut(method, ":")
		th, ok := PyFloat(t)
		if !ok {
			return false, fmt.Errorf("method %q: bad threshold", method)
		}
		r, ok := PyNumber(ref)
		if !ok {
			return false, fmt.Errorf("ref of %s must be a number", method)
		}
		v, ok := pyFloatOf(value)
		if !ok {
			return false, nil
		}
		return math.Abs(v-r) <= th, nil
	case method == "spreadsheet_range":
		return spreadsheetRange(value, ref)
	case strings.HasPrefix(method, "range.") && len(method) == 8:
		l, ok := ref.([]any)
		if !ok || len(l) != 2 {
			return false, fmt.Errorf("ref of %s must be two numbers", method)
		}
		c1, err := pyCompare(l[0], value)
		if err != nil {
			return false, err
		}
		c2, err := pyCompare(value, l[1])
		if err != nil {
			return false, err
		}
		ok1 := c1 < 0 || (method[6] == 'e' && c1 == 0)
		ok2 := c2 < 0 || (method[7] == 'e' && c2 == 0)
		return ok1 && ok2, nil
	case method == "str_list_eq", method == "str_set_eq":
		s, ok := value.(string)
		if !ok {
			return false, fmt.Errorf("%s: value is %s, not a string", method, PyType(value))
		}
		got := strings.Split(pyStripChars(s, `"'`, true, true), ",")
		want, err := strList(ref, "ref")
		if err != nil {
			return false, err
		}
		if method == "str_list_eq" {
			return strings.Join(got, "\x00") == strings.Join(want, "\x00") && len(got) == len(want), nil
		}
		return sameSet(got, want), nil
	}
	return false, fmt.Errorf("method %q is not implemented", method)
}

func sameSet(a, b []string) bool {
	sa, sb := map[string]bool{}, map[string]bool{}
	for _, x := range a {
		sa[x] = true
	}
	for _, x := range b {
		sb[x] = true
	}
	if len(sa) != len(sb) {
		return false
	}
	for x := range sa {
		if !sb[x] {
			return false
		}
	}
	return true
}

// pyFloatOf is Python's float(v): numbers, and strings float() accepts.
func pyFloatOf(v any) (float64, bool) {
	if s, ok := v.(string); ok {
		return PyFloat(s)
	}
	if v == nil {
		return 0, false
	}
	return PyNumber(v)
}

// pyCompare orders two numbers or two strings as Python's < does; other pairs
// are Python's TypeError.
func pyCompare(a, b any) (int, error) {
	if x, ok := PyNumber(a); ok {
		if y, ok := PyNumber(b); ok {
			switch {
			case x < y:
				return -1, nil
			case x > y:
				return 1, nil
			}
			return 0, nil
		}
	}
	if x, ok := a.(string); ok {
		if y, ok := b.(string); ok {
			return strings.Compare(x, y), nil
		}
	}
	return 0, fmt.Errorf("'<' not supported between instances of '%s' and '%s'", PyType(a), PyType(b))
}

// checkJSON reads the result file as JSON (YAML with is_yaml) and applies
// rules["expect"] (each key path must exist and match) and rules["unexpect"]
// (a missing path is None; none may match).
func checkJSON(_ context.Context, c Call) (Score, error) {
	p, ok, err := pathArg(c.Result, "result")
	if err != nil || !ok {
		return Score{Note: "the result file does not exist"}, err
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	text, err := readText(p)
	if err != nil {
		return Score{}, err
	}
	body := []byte(text)
	if optBool(c.Options, "is_yaml", false) {
		if body, err = yaml.YAMLToJSON(body); err != nil {
			return Score{}, fmt.Errorf("%s: %w", p, err)
		}
	}
	var data any
	if err := decodeJSON(body, &data); err != nil {
		return Score{}, fmt.Errorf("%s: %w", p, err)
	}
	expect, _ := r["expect"].([]any)
	unexpect, _ := r["unexpect"].([]any)
	for _, er := range expect {
		rule, err := obj(er, "rules.expect item")
		if err != nil {
			return Score{}, err
		}
		v, found, err := jsonPath(data, rule["key"])
		if err != nil {
			return Score{}, err
		}
		if !found {
			return Score{Note: fmt.Sprintf("no %s", show(rule["key"]))}, nil
		}
		ok, err := matchValueToRule(v, rule)
		if err != nil {
			return Score{}, err
		}
		if !ok {
			return Score{Note: fmt.Sprintf("%s is %s, not %s %s", show(rule["key"]), show(v), rule["method"], show(rule["ref"]))}, nil
		}
	}
	for _, ur := range unexpect {
		rule, err := obj(ur, "rules.unexpect item")
		if err != nil {
			return Score{}, err
		}
		v, _, err := jsonPath(data, rule["key"])
		if err != nil {
			return Score{}, err
		}
		ok, err := matchValueToRule(v, rule)
		if err != nil {
			return Score{}, err
		}
		if ok {
			return Score{Note: fmt.Sprintf("%s is %s", show(rule["key"]), show(v))}, nil
		}
	}
	return Score{Value: 1}, nil
}

// jsonPath follows a list of keys (strings into objects, integers into
// lists); found is false at the first missing key, as Python's KeyError.
func jsonPath(data, keys any) (any, bool, error) {
	l, ok := keys.([]any)
	if !ok {
		return nil, false, fmt.Errorf("key must be a list")
	}
	v := data
	for _, k := range l {
		switch x := v.(type) {
		case map[string]any:
			s, ok := k.(string)
			if !ok {
				return nil, false, nil
			}
			if v, ok = x[s]; !ok {
				return nil, false, nil
			}
		case []any:
			i, ok := pyInt(k)
			if !ok {
				return nil, false, fmt.Errorf("list indices must be integers, not %s", PyType(k))
			}
			if i < 0 {
				i += len(x)
			}
			if i < 0 || i >= len(x) {
				return nil, false, fmt.Errorf("list index out of range")
			}
			v = x[i]
		default:
			return nil, false, fmt.Errorf("'%s' object is not subscriptable", PyType(v))
		}
	}
	return v, true, nil
}
