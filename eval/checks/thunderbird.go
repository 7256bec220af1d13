package checks

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// thunderbirdMetrics are OSWorld's metrics/thunderbird.py.
func thunderbirdMetrics() map[string]Metric {
	return map[string]Metric{
		"check_thunderbird_prefs":  {Fn: checkThunderbirdPrefs},
		"check_thunderbird_filter": {Fn: checkThunderbirdFilter},
		"check_thunderbird_folder": {Fn: checkThunderbirdFolder, Options: []string{"ignore_status", "ignore_keys", "remove_deleted", "remove_duplicate"}, Kwargs: true},
	}
}

var prefPattern = regexp.MustCompile(`^user_pref\("((?:[^"]|\\")+)", (.+)\);$`)

// checkThunderbirdPrefs is check_thunderbird_prefs: in prefs.js, every
// "expect" preference present and matching its rule, no "unexpect" one
// matching.
func checkThunderbirdPrefs(_ context.Context, c Call) (Score, error) {
	if c.Result == nil {
		return Score{Note: "no prefs.js"}, nil
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	expect, err := optObj(r, "expect")
	if err != nil {
		return Score{}, err
	}
	unexpect, err := optObj(r, "unexpect")
	if err != nil {
		return Score{}, err
	}
	text, err := readPathText(c.Result)
	if err != nil {
		return Score{}, err
	}
	met := map[string]bool{}
	unexpectOK := true
	var notes []string
	for _, line := range strings.SplitAfter(text, "\n") {
		m := prefPattern.FindStringSubmatch(pyStrip(line))
		if m == nil {
			continue
		}
		k := m[1]
		var v any
		if err := decodeJSON([]byte(m[2]), &v); err != nil {
			return Score{}, fmt.Errorf("prefs.js: %s: %w", k, err)
		}
		if rule, ok := expect[k]; ok {
			ro, err := obj(rule, "expect."+k)
			if err != nil {
				return Score{}, err
			}
			if met[k], err = matchValueToRule(v, ro); err != nil {
				return Score{}, err
			}
		} else if rule, ok := unexpect[k]; ok && unexpectOK {
			ro, err := obj(rule, "unexpect."+k)
			if err != nil {
				return Score{}, err
			}
			hit, err := matchValueToRule(v, ro)
			if err != nil {
				return Score{}, err
			}
			if hit {
				unexpectOK = false
				notes = append(notes, fmt.Sprintf("%s is %s", k, show(v)))
			}
		}
	}
	for k := range expect {
		if !met[k] {
			notes = append(notes, k+" is not as expected")
		}
	}
	if len(notes) > 0 {
		slices.Sort(notes)
		return Score{Note: strings.Join(notes, "; ")}, nil
	}
	return Score{Value: 1}, nil
}

func readPathText(v any) (string, error) {
	p, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("want a file path, got %s", PyType(v))
	}
	return readText(p)
}

// filterValue is _value_processor: \" and \\ unescaped.
func filterValue(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, `\"`, `"`), `\\`, `\`)
}

// filterCondition finds the terms of a filter's condition: "AND (subject,
// contains,discount)", "ALL".
var filterCondition = regexp.MustCompile(`\b(?:AND|OR) \((?:[\p{L}\p{N}_ ]+),(?:[\p{L}\p{N}_ ']+),(?:"(?:(?:[^"]|")+)"|(?:[^)]+))\)|\bALL\b`)

// pySlice is s[from:len(s)-back] on code points, "" when that is empty.
func pySlice(s string, from, back int) string {
	rs := []rune(s)
	if from >= len(rs)-back {
		return ""
	}
	return string(rs[from : len(rs)-back])
}

// checkThunderbirdFilter is check_thunderbird_filter over
// msgFilterRules.dat: every "expect" record matched by some filter, no
// filter matching an "unexpect" one.
func checkThunderbirdFilter(_ context.Context, c Call) (Score, error) {
	if c.Result == nil {
		return Score{Note: "no filter file"}, nil
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	text, err := readPathText(c.Result)
	if err != nil {
		return Score{}, err
	}
	var filters []map[string]any
	var cur map[string]any
	fields := []struct {
		prefix, key string
	}{{"name=", "name"}, {"enabled=", "enabled"}, {"type=", "type"}, {"action=", "action"}, {"actionValue=", "actionValue"}, {"condition=", "condition"}}
	for _, line := range strings.SplitAfter(text, "\n") {
		for _, f := range fields {
			if !strings.HasPrefix(line, f.prefix) {
				continue
			}
			v := filterValue(pySlice(line, len(f.prefix)+1, 2))
			if f.key == "name" {
				cur = map[string]any{}
			} else if cur == nil {
				return Score{}, fmt.Errorf("UnboundLocalError: %q before any filter's name", f.prefix)
			}
			if f.key == "condition" {
				terms := []any{}
				for _, t := range filterCondition.FindAllString(v, -1) {
					terms = append(terms, t)
				}
				cur["condition"] = terms
				filters = append(filters, cur)
			} else {
				cur[f.key] = v
			}
			break
		}
	}
	expect, _ := r["expect"].([]any)
	unexpect, _ := r["unexpect"].([]any)
	met := make([]bool, len(expect))
	for _, flt := range filters {
		for i, e := range expect {
			met[i] = met[i] || matchRecord(e, flt)
		}
		for _, u := range unexpect {
			if matchRecord(u, flt) {
				return Score{Note: fmt.Sprintf("filter %s matches %s", show(flt["name"]), show(u))}, nil
			}
		}
	}
	for i, ok := range met {
		if !ok {
			return Score{Note: fmt.Sprintf("no filter matches %s", show(expect[i]))}, nil
		}
	}
	return Score{Value: 1}, nil
}

// checkThunderbirdFolder is check_thunderbird_folder as OSWorld's code runs:
// its reader keeps only the blank pieces between "FROM - " separators (the
// test for a message is inverted), so a folder file reads as "FROM - " when
// it is empty or holds blank pieces and as "" otherwise, and the files
// compare equal on that alone.
func checkThunderbirdFolder(_ context.Context, c Call) (Score, error) {
	got, want := []any{c.Result}, []any{c.Expected}
	if l, ok := c.Expected.([]any); ok {
		want = l
		if got, ok = c.Result.([]any); !ok {
			return Score{}, errors.New("TypeError: the result is not a list")
		}
	} else if c.Expected == nil {
		return Score{}, errNoExpected
	}
	dedupe := optBool(c.Options, "remove_duplicate", true)
	read := func(v any) (string, error) {
		text, err := readPathText(v)
		if err != nil {
			return "", err
		}
		var msgs []string
		for _, piece := range strings.Split(pyStrip(text), "FROM - ") {
			if pyStrip(piece) == "" {
				msgs = append(msgs, "FROM - ")
			}
		}
		if dedupe && len(msgs) > 1 {
			msgs = msgs[:1]
		}
		return strings.Join(msgs, "\n"), nil
	}
	for i := range min(len(got), len(want)) {
		if got[i] == nil {
			return Score{Note: "a folder file is missing"}, nil
		}
		a, err := read(got[i])
		if err != nil {
			return Score{}, err
		}
		b, err := read(want[i])
		if err != nil {
			return Score{}, err
		}
		if a != b {
			return Score{Note: fmt.Sprintf("folder %d differs", i+1)}, nil
		}
	}
	return Score{Value: 1}, nil
}
