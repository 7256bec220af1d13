//go:build linux

package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// decodeEvaluator reads an OSWorld evaluator: "func" (a metric name or a list),
// "conj" ("and", the default, or "or"), "result" and "expected" getters (lists of
// the same length when func is a list; expected entries may be null),
// "options" (metric options, likewise) and "postconfig" steps.
func decodeEvaluator(raw json.RawMessage) (evaluator, error) {
	var ev evaluator
	m, err := object(raw, "evaluator field", "func", "conj", "result", "expected", "options", "postconfig")
	if err != nil {
		return ev, err
	}
	list := false
	var one string
	if err := json.Unmarshal(m["func"], &one); err == nil && !isNull(m["func"]) {
		ev.funcs = []string{one}
	} else if err := json.Unmarshal(m["func"], &ev.funcs); err != nil || len(ev.funcs) == 0 {
		return ev, errors.New(`evaluator "func" must be a metric name or a non-empty list of them`)
	} else {
		list = true
	}
	for _, f := range ev.funcs {
		if _, ok := metricFor(f); !ok {
			return ev, &UnsupportedError{What: "evaluator func", Name: f}
		}
	}
	ev.conj = "and"
	if err := optStr(m["conj"], &ev.conj); err != nil || (ev.conj != "and" && ev.conj != "or") {
		return ev, errors.New(`evaluator "conj" must be "and" or "or"`)
	}
	if ev.post, err = decodeSteps(m["postconfig"], "postconfig"); err != nil {
		return ev, err
	}
	n := len(ev.funcs)
	results, err := perMetric(m["result"], list, n, "result")
	if err != nil {
		return ev, err
	}
	expected, err := perMetric(m["expected"], list, n, "expected")
	if err != nil {
		return ev, err
	}
	options, err := perMetric(m["options"], list, n, "options")
	if err != nil {
		return ev, err
	}
	for i, f := range ev.funcs {
		r, e, opts, err := decodeMetric(f, results[i], expected[i], options[i])
		if err != nil {
			return ev, err
		}
		ev.result, ev.expected, ev.options = append(ev.result, r), append(ev.expected, e), append(ev.options, opts)
	}
	return ev, nil
}

// decodeMetric reads one metric's getters and options and checks they suit it.
func decodeMetric(f string, result, expected, options json.RawMessage) (r, e *getter, opts map[string]any, err error) {
	if isNull(result) {
		return nil, nil, nil, fmt.Errorf("%s has no result getter", f)
	}
	if r, err = decodeGetter(result, "result getter"); err != nil {
		return nil, nil, nil, err
	}
	if !isNull(expected) {
		if e, err = decodeGetter(expected, "expected getter"); err != nil {
			return nil, nil, nil, err
		}
	}
	opts = map[string]any{}
	if !isNull(options) {
		if err := decodeAny(options, &opts); err != nil || opts == nil {
			return nil, nil, nil, fmt.Errorf("options of %s must be a JSON object", f)
		}
	}
	spec, _ := metricFor(f)
	return r, e, opts, spec.validate(f, r, e, opts)
}

// perMetric returns one raw value per metric: raw itself for a single metric,
// else raw's n elements (all null when raw is absent).
func perMetric(raw json.RawMessage, list bool, n int, what string) ([]json.RawMessage, error) {
	if !list {
		return []json.RawMessage{raw}, nil
	}
	if isNull(raw) {
		return make([]json.RawMessage, n), nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || len(items) != n {
		return nil, fmt.Errorf("evaluator %q must be a list of %d entries, one per func", what, n)
	}
	return items, nil
}

// decodeGetter reads a getter: {"type": ..., its parameters}.
func decodeGetter(raw json.RawMessage, what string) (*getter, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &head); err != nil || head.Type == "" {
		return nil, fmt.Errorf("%s must be an object with a \"type\"", what)
	}
	g := &getter{kind: head.Type}
	switch g.kind {
	case "vm_command_line", "vm_command_error":
		m, err := object(raw, g.kind+" getter field", "type", "command", "shell")
		if err != nil {
			return nil, err
		}
		if g.cmd, err = decodeCommand(m, false); err != nil {
			return nil, fmt.Errorf("%s: %w", g.kind, err)
		}
	case "vm_file":
		m, err := object(raw, "vm_file getter field", "type", "path", "dest")
		if err != nil {
			return nil, err
		}
		if err := str(m["path"], &g.path); err != nil || g.path == "" {
			return nil, errors.New("vm_file: path must be a non-empty string")
		}
	case "rule":
		m, err := object(raw, "rule getter field", "type", "rules")
		if err != nil {
			return nil, err
		}
		if isNull(m["rules"]) {
			return nil, errors.New("rule: no rules")
		}
		if err := decodeAny(m["rules"], &g.rules); err != nil {
			return nil, fmt.Errorf("rule: %w", err)
		}
	case "answer":
		if _, err := object(raw, "answer getter field", "type"); err != nil {
			return nil, err
		}
	default:
		return nil, &UnsupportedError{What: "getter", Name: g.kind}
	}
	return g, nil
}

// decodeAny decodes JSON keeping numbers exact (json.Number).
func decodeAny(raw json.RawMessage, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(dst)
}

// rulesObject returns a rule getter's rules as an object with the keys need.
func rulesObject(f string, e *getter, need ...string) (map[string]any, error) {
	if e == nil || e.kind != "rule" {
		return nil, fmt.Errorf("%s needs an expected getter of type rule", f)
	}
	m, ok := e.rules.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: rules must be a JSON object", f)
	}
	for _, k := range need {
		if _, ok := m[k]; !ok {
			return nil, fmt.Errorf("%s: rules need %q", f, k)
		}
	}
	return m, nil
}

// stringList reports whether v is a JSON list of strings.
func stringList(v any) bool {
	l, ok := v.([]any)
	if !ok {
		return false
	}
	return !slices.ContainsFunc(l, func(x any) bool { _, ok := x.(string); return !ok })
}
