package checks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// basicOSMetrics are OSWorld's metrics/basic_os.py.
func basicOSMetrics() map[string]Metric {
	return map[string]Metric{
		"check_gnome_favorite_apps": {Fn: checkGnomeFavoriteApps, Check: rulesWith("expected")},
		"is_utc_0":                  {Fn: isUTC0},
		"check_text_enlarged":       {Fn: checkTextEnlarged},
		"check_moved_jpgs":          {Fn: checkMovedJpgs, Check: rulesWith("expected")},
		"is_in_vm_clickboard":       {Fn: isInVMClipboard},
	}
}

// pyStringList reads a Python list literal of strings ("['a.desktop',
// \"b\"]"), as the Python's eval does for gsettings' output; anything else is
// an error.
func pyStringList(s string) ([]string, error) {
	s = pyStrip(s)
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, fmt.Errorf("eval: not a list: %q", cut(s, 80))
	}
	body := s[1 : len(s)-1]
	var out []string
	for i := 0; i < len(body); {
		switch c := body[i]; {
		case c == ' ' || c == ',' || c == '\t' || c == '\n':
			i++
		case c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(body) && body[j] != c; j++ {
				if body[j] == '\\' && j+1 < len(body) {
					j++
				}
				b.WriteByte(body[j])
			}
			if j >= len(body) {
				return nil, errors.New("eval: SyntaxError: unterminated string")
			}
			out = append(out, b.String())
			i = j + 1
		default:
			return nil, fmt.Errorf("eval: SyntaxError at %q", cut(body[i:], 20))
		}
	}
	return out, nil
}

func checkGnomeFavoriteApps(_ context.Context, c Call) (Score, error) {
	s, ok := c.Result.(string)
	if !ok {
		return Score{}, fmt.Errorf("TypeError: eval() arg must be a string, got %s", PyType(c.Result))
	}
	apps, err := pyStringList(s)
	if err != nil {
		return Score{}, err
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	want, err := strList(r["expected"], "rules.expected")
	if err != nil {
		return Score{}, err
	}
	sa, sw := slices.Clone(apps), slices.Clone(want)
	slices.Sort(sa)
	slices.Sort(sw)
	same := len(apps) == len(want) && slices.Equal(slices.Compact(sa), slices.Compact(sw))
	return verdict(same, "the favourite apps are %s", show(apps))
}

func isUTC0(_ context.Context, c Call) (Score, error) {
	s, ok := c.Result.(string)
	if !ok {
		return Score{}, fmt.Errorf("AttributeError: the output is %s", PyType(c.Result))
	}
	lines := strings.Split(s, "\n")
	if len(lines) < 4 {
		return Score{}, errors.New("IndexError: list index out of range (fewer than 4 lines)")
	}
	return verdict(strings.HasSuffix(lines[3], "+0000)"), "the time zone line is %q", lines[3])
}

func checkTextEnlarged(_ context.Context, c Call) (Score, error) {
	s, ok := c.Result.(string)
	if !ok {
		if f, ok := PyNumber(c.Result); ok {
			return verdict(f > 1, "the text scaling factor is %v", f)
		}
		return Score{}, fmt.Errorf("TypeError: float() of %s", PyType(c.Result))
	}
	f, ok := PyFloat(s)
	if !ok {
		return Score{}, fmt.Errorf("ValueError: could not convert string to float: %q", cut(s, 40))
	}
	return verdict(f > 1, "the text scaling factor is %v", f)
}

func checkMovedJpgs(_ context.Context, c Call) (Score, error) {
	d, err := obj(c.Result, "the directory listing")
	if err != nil {
		return Score{}, err
	}
	children, ok := d["children"].([]any)
	if !ok {
		return Score{}, errors.New("KeyError: children")
	}
	var names []string
	for _, ch := range children {
		n, err := obj(ch, "a child")
		if err != nil {
			return Score{}, err
		}
		names = append(names, PyStr(n["name"]))
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	want, err := strList(r["expected"], "rules.expected")
	if err != nil {
		return Score{}, err
	}
	sn, sw := slices.Clone(names), slices.Clone(want)
	slices.Sort(sn)
	slices.Sort(sw)
	same := len(names) == len(want) && slices.Equal(slices.Compact(sn), slices.Compact(sw))
	return verdict(same, "the folder holds %s", show(names))
}

// isInVMClipboard is is_in_vm_clickboard(config, terminal_output): the
// rule's expected string (or every one of a list) in the command's output.
func isInVMClipboard(_ context.Context, c Call) (Score, error) {
	cfg, err := obj(c.Result, "config")
	if err != nil {
		return Score{}, err
	}
	want, err := key(cfg, "expected")
	if err != nil {
		return Score{}, err
	}
	if c.Expected == nil {
		return Score{}, errNoExpected
	}
	items, isList := want.([]any)
	if !isList {
		items = []any{want}
	}
	for _, it := range items {
		in, err := PyIn(it, c.Expected)
		if err != nil {
			return Score{}, err
		}
		if !in {
			return Score{Note: fmt.Sprintf("the clipboard %s lacks %s", show(c.Expected), show(it))}, nil
		}
	}
	return Score{Value: 1}, nil
}
