//go:build linux

package eval

import (
	"bytes"
	"deskpilot/eval/checks"
	"encoding/json"
	"errors"
	"fmt"
)

// decodeEvaluator reads an OSWorld evaluator: "func" (a metric name or a list),
// "conj" ("and", the default, or "or"), "result" and "expected" getters (lists of
// the same length when func is a list; expected entries may be null),
// "options" (metric options, likewise) and "postconfig" steps.
func decodeEvaluator(raw json.RawMessage) (evaluator, error) {
	var ev evaluator
	// OSWorld reads these fields and ignores any other.
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return ev, errors.New("evaluator: want a JSON object")
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
		if _, ok := checks.Lookup(f); !ok {
			return ev, &UnsupportedError{What: "evaluator func", Name: f}
		}
	}
	ev.conj = "and"
	if err := optStr(m["conj"], &ev.conj); err != nil || (ev.conj != "and" && ev.conj != "or") {
		return ev, errors.New(`evaluator "conj" must be "and" or "or"`)
	}
	var err error
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
		if f == "infeasible" { // OSWorld reads no value for it
			return &getter{kind: "rule", rules: map[string]any{"type": "rule", "rules": nil}}, nil, map[string]any{}, nil
		}
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
	spec, _ := checks.Lookup(f)
	var ecfg map[string]any
	if e != nil {
		ecfg = e.config()
	}
	if err := spec.Validate(r.config(), ecfg, opts); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", f, err)
	}
	return r, e, opts, nil
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

// decodeGetter reads a getter: {"type": ..., its parameters}. The whole
// object, decoded with exact numbers, is kept in g.rules (config returns it)
// for the getter of package checks that its type names; deskpilot's own
// "answer" getter takes no parameters. Fields a getter does not read are
// ignored, as OSWorld ignores them.
func decodeGetter(raw json.RawMessage, what string) (*getter, error) {
	var cfg map[string]any
	if err := decodeAny(raw, &cfg); err != nil || cfg == nil {
		return nil, fmt.Errorf("%s must be an object with a \"type\"", what)
	}
	kind, _ := cfg["type"].(string)
	if kind == "" {
		return nil, fmt.Errorf("%s must be an object with a \"type\"", what)
	}
	g := &getter{kind: kind, rules: cfg}
	g.path, _ = cfg["path"].(string)
	if kind == "answer" {
		if _, err := object(raw, "answer getter field", "type"); err != nil {
			return nil, err
		}
		return g, nil
	}
	spec, ok := checks.LookupGetter(kind)
	if !ok {
		return nil, &UnsupportedError{What: "getter", Name: kind}
	}
	if _, ok := cfg["command"]; ok && (kind == "vm_command_line" || kind == "vm_command_error") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		var err error
		if g.cmd, err = decodeCommand(m, false); err != nil {
			return nil, fmt.Errorf("%s: %w", kind, err)
		}
	}
	if err := spec.Validate(cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	return g, nil
}

// config is the getter's JSON object.
func (g *getter) config() map[string]any {
	cfg, _ := g.rules.(map[string]any)
	return cfg
}

// decodeAny decodes JSON keeping numbers exact (json.Number).
func decodeAny(raw json.RawMessage, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(dst)
}
