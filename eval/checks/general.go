package checks

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// generalMetrics are OSWorld's metrics/general.py and the infeasible marker.
func generalMetrics() map[string]Metric {
	return map[string]Metric{
		"infeasible":                        {Fn: infeasible},
		"exact_match":                       {Fn: exactMatch, Check: rulesWith("expected")},
		"check_include_exclude":             {Fn: checkIncludeExclude, Check: includeExcludeRules},
		"is_in_list":                        {Fn: isInList, Check: rulesWith("expected")},
		"match_in_list":                     {Fn: matchInList, Check: rulesWith("expected")},
		"fuzzy_match":                       {Fn: fuzzyMatch, Check: rulesWith("expected")},
		"literal_match":                     {Fn: literalMatch, Options: []string{"type", "ignore_case"}, Kwargs: true},
		"check_direct_json_object":          {Fn: checkDirectJSONObject, Check: rulesWith("expected")},
		"check_list":                        {Fn: checkList},
		"check_csv":                         {Fn: checkCSV},
		"check_json":                        {Fn: checkJSON, Options: []string{"is_yaml"}},
		"diff_text_file":                    {Fn: diffTextFile},
		"file_contains":                     {Fn: fileContains, Check: both(fileResult, rulesWith("expected"))},
		"check_line_number":                 {Fn: checkLineNumber},
		"compare_python_pure_text":          {Fn: comparePythonPureText},
		"compare_time_in_speedtest_results": {Fn: compareTimeInSpeedtestResults},
		"check_accessibility_tree":          {Fn: checkAccessibilityTree},
		"check_mp3_meta":                    {Fn: checkMP3Meta},
	}
}

// rulesWith checks at load time that the expected getter is a rule whose rules
// object has the keys need (Python would raise a KeyError at check time).
func rulesWith(need ...string) func(_, e, _ map[string]any) error {
	return func(_, e, _ map[string]any) error {
		if e == nil {
			return errors.New("needs an expected getter of type rule")
		}
		if e["type"] != "rule" {
			return nil // a getter's value is only known at check time
		}
		m, ok := e["rules"].(map[string]any)
		if !ok {
			return fmt.Errorf("rules must be a JSON object")
		}
		for _, k := range need {
			if _, ok := m[k]; !ok {
				return fmt.Errorf("rules need %q", k)
			}
		}
		return nil
	}
}

func includeExcludeRules(_, e, _ map[string]any) error {
	if e == nil {
		return errors.New("needs an expected getter of type rule")
	}
	if e["type"] != "rule" {
		return nil
	}
	m, ok := e["rules"].(map[string]any)
	if !ok {
		return fmt.Errorf("rules must be a JSON object")
	}
	for _, k := range []string{"include", "exclude"} {
		if v, ok := m[k]; ok {
			if _, err := strList(v, "rules."+k); err != nil {
				return err
			}
		}
	}
	return nil
}

// infeasible scores OSWorld's infeasible tasks: 1 when the agent declared the
// task infeasible (its last action was FAIL), else 0.
func infeasible(_ context.Context, c Call) (Score, error) {
	if c.Env != nil && c.Env.Infeasible() {
		return Score{Value: 1}, nil
	}
	return Score{Note: "the agent did not declare the task infeasible"}, nil
}

// rules returns the expected value as the rules object a metric subscripts.
func rules(c Call) (map[string]any, error) {
	if c.Expected == nil {
		return nil, errNoExpected
	}
	return obj(c.Expected, "rules")
}

func exactMatch(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	want, err := key(r, "expected")
	if err != nil {
		return Score{}, err
	}
	if PyEqual(c.Result, want) {
		return Score{Value: 1}, nil
	}
	return Score{Note: fmt.Sprintf("got %s, expected %s", show(c.Result), show(want))}, nil
}

func checkIncludeExclude(_ context.Context, c Call) (Score, error) {
	if c.Result == nil {
		return Score{Note: "no result"}, nil
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	for _, k := range []string{"include", "exclude"} {
		items, _ := r[k].([]any)
		for _, it := range items {
			in, err := PyIn(it, c.Result)
			if err != nil {
				return Score{}, err
			}
			if in != (k == "include") {
				verb := "lacks"
				if k == "exclude" {
					verb = "contains"
				}
				return Score{Note: fmt.Sprintf("%s %s %s", show(c.Result), verb, show(it))}, nil
			}
		}
	}
	return Score{Value: 1}, nil
}

func isInList(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	want, err := key(r, "expected")
	if err != nil {
		return Score{}, err
	}
	in, err := PyIn(want, c.Result)
	if err != nil || in {
		return Score{Value: b2f(in)}, err
	}
	return Score{Note: fmt.Sprintf("%s is not in %s", show(want), show(c.Result))}, nil
}

// matchInList is 1 when the result is in rules["expected"].
func matchInList(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	list, err := key(r, "expected")
	if err != nil {
		return Score{}, err
	}
	in, err := PyIn(c.Result, list)
	if err != nil || in {
		return Score{Value: b2f(in)}, err
	}
	return Score{Note: fmt.Sprintf("%s is not in %s", show(c.Result), show(list))}, nil
}

// fuzzyMatch is rapidfuzz's fuzz.ratio(result, rules["expected"]) / 100; a
// None result scores 0 (rapidfuzz returns 0 for None).
func fuzzyMatch(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	want, err := strKey(r, "expected")
	if err != nil {
		return Score{}, err
	}
	if c.Result == nil {
		return Score{Note: "no result"}, nil
	}
	got, ok := c.Result.(string)
	if !ok {
		return Score{}, fmt.Errorf("result is %s, not a string", PyType(c.Result))
	}
	return similarity(got, want)
}

// similarity scores two strings by fuzz.ratio, with a note below 1.
func similarity(got, want string) (Score, error) {
	v, err := fuzzRatio(got, want)
	if err != nil {
		return Score{}, err
	}
	s := Score{Value: v}
	if v < 1 {
		s.Note = fmt.Sprintf("similarity %.3f of %s to %s", v, show(got), show(want))
	}
	return s, nil
}

func literalMatch(_ context.Context, c Call) (Score, error) {
	typ := "str"
	if t, ok := c.Options["type"].(string); ok {
		typ = t
	}
	ic := optBool(c.Options, "ignore_case", false)
	norm := func(v any) string {
		s := PyStr(v)
		if ic {
			s = PyLower(s)
		}
		return s
	}
	switch typ {
	case "str":
		if norm(c.Result) == norm(c.Expected) {
			return Score{Value: 1}, nil
		}
		return Score{Note: fmt.Sprintf("got %s, expected %s", show(c.Result), show(c.Expected))}, nil
	case "list":
		a, ok1 := c.Result.([]any)
		b, ok2 := c.Expected.([]any)
		if !ok1 || !ok2 || len(a) != len(b) {
			return Score{Note: "not two lists of one length"}, nil
		}
		for i := range a {
			if norm(a[i]) != norm(b[i]) {
				return Score{Note: fmt.Sprintf("item %d: got %s, expected %s", i, show(a[i]), show(b[i]))}, nil
			}
		}
		return Score{Value: 1}, nil
	}
	return Score{}, fmt.Errorf("literal_match: type %q not supported", typ)
}

// checkDirectJSONObject compares the result object with rules["expected"]: key
// by key equality, or with expect_in_result, each expected string a substring
// of the result's and each expected list sharing an item with the result's.
// A string result is parsed as JSON after ' becomes ".
func checkDirectJSONObject(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	result := c.Result
	if s, ok := result.(string); ok {
		s = strings.ReplaceAll(pyStrip(s), "'", `"`)
		if err := decodeJSON([]byte(s), &result); err != nil {
			return Score{}, fmt.Errorf("the result is not JSON: %w", err)
		}
	}
	if result == nil {
		return Score{Note: "no result"}, nil
	}
	// Everything below is inside OSWorld's try/except, which scores 0.
	res, ok := result.(map[string]any)
	if !ok {
		return Score{Note: fmt.Sprintf("the result is %s, not an object", PyType(result))}, nil
	}
	exp, ok := r["expected"].(map[string]any)
	if !ok {
		return Score{Note: "rules.expected is not an object"}, nil
	}
	inResult := PyTruthy(r["expect_in_result"])
	for k, want := range exp {
		got := res[k]
		if !inResult {
			if !PyEqual(want, got) {
				return Score{Note: fmt.Sprintf("%s: got %s, expected %s", k, show(got), show(want))}, nil
			}
			continue
		}
		switch w := want.(type) {
		case []any:
			gl, isList := got.([]any)
			found := false
			for _, x := range w {
				if in, _ := PyIn(x, gl); isList && in {
					found = true
					break
				}
			}
			if !found {
				return Score{Note: fmt.Sprintf("%s: %s has none of %s", k, show(got), show(w))}, nil
			}
		case string:
			in, err := PyIn(w, got)
			if err != nil || !in {
				return Score{Note: fmt.Sprintf("%s: %s is not in %s", k, show(w), show(got))}, nil
			}
		default:
			return Score{Note: fmt.Sprintf("%s: expected value of type %s is not supported", k, PyType(want))}, nil
		}
	}
	return Score{Value: 1}, nil
}

func fileContains(_ context.Context, c Call) (Score, error) {
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
		return Score{Note: err.Error()}, nil // OSWorld catches a missing or unreadable file
	}
	want, err := strList(r["expected"], "rules.expected")
	if err != nil {
		return Score{Note: err.Error()}, nil
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			return Score{Note: fmt.Sprintf("the file lacks %s", show(w))}, nil
		}
	}
	return Score{Value: 1}, nil
}

// fileResult checks at load time that a metric reading its result as a file
// does not get deskpilot's answer getter, which gives text.
func fileResult(r, _, _ map[string]any) error {
	if r["type"] == "answer" {
		return errors.New("needs a file result, not the answer")
	}
	return nil
}

// filePair checks at load time that a metric opening both values as files
// gets neither the answer nor a rule.
func filePair(r, e, _ map[string]any) error {
	if r["type"] == "answer" || r["type"] == "rule" || (e != nil && e["type"] == "rule") {
		return errors.New("needs file getters for the result and the expected value")
	}
	return nil
}

// both runs two load-time checks.
func both(a, b func(r, e, o map[string]any) error) func(r, e, o map[string]any) error {
	return func(r, e, o map[string]any) error {
		if err := a(r, e, o); err != nil {
			return err
		}
		return b(r, e, o)
	}
}
