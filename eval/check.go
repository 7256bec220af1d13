//go:build linux

package eval

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"deskpilot/eval/checks"
)

// verdict is the outcome of checking a task.
type verdict struct {
	score float64 // 0..1; correct when 1
	note  string  // what the checker saw when the score is below 1
}

// evaluate runs an OSWorld evaluator after the agent's run, as OSWorld's
// DesktopEnv.evaluate does: postconfig steps; then, for an infeasible task, 1
// when the agent declared it infeasible; a feasible task the agent declared
// infeasible scores 0; otherwise each metric on its result and expected
// values. With several metrics, "and" stops at the first 0 and otherwise
// averages; "or" stops at the first 1 and otherwise takes the best. answer is
// the run's final answer, for the answer getter ("" = none).
func (b *box) evaluate(ctx context.Context, ev evaluator, answer string) (verdict, error) {
	if err := b.runSteps(ctx, ev.post, "postconfig"); err != nil {
		return verdict{}, err
	}
	env := b.checkEnv(answer)
	if len(ev.funcs) == 1 && ev.funcs[0] == "infeasible" {
		if env.Infeasible() {
			return verdict{score: 1}, nil
		}
		return verdict{note: "infeasible: the agent did not declare the task infeasible"}, nil
	}
	if env.Infeasible() {
		return verdict{note: "the agent declared a feasible task infeasible"}, nil
	}
	var scores []float64
	var notes []string
	for i, f := range ev.funcs {
		v, err := b.metric(ctx, env, f, ev.result[i], ev.expected[i], ev.options[i], answer)
		if err != nil {
			return verdict{}, fmt.Errorf("%s: %w", f, err)
		}
		b.log.printf("[check] %s: score %g %s\n", f, v.score, v.note)
		if v.note != "" {
			notes = append(notes, f+": "+v.note)
		}
		switch {
		case ev.conj == "and" && v.score == 0:
			return verdict{0, strings.Join(notes, "; ")}, nil
		case ev.conj == "or" && v.score == 1:
			return verdict{score: 1}, nil
		}
		scores = append(scores, v.score)
	}
	v := verdict{note: strings.Join(notes, "; ")}
	if ev.conj == "and" {
		for _, s := range scores {
			v.score += s
		}
		v.score /= float64(len(scores))
	} else {
		v.score = slices.Max(scores)
	}
	if v.score == 1 {
		v.note = ""
	}
	return v, nil
}

// metric gets one metric's values and applies it. As in OSWorld, an expected
// getter that gives None calls the metric without an expected value.
func (b *box) metric(ctx context.Context, env *checkEnv, f string, r, e *getter, opts map[string]any, answer string) (verdict, error) {
	spec, ok := checks.Lookup(f)
	if !ok {
		return verdict{}, fmt.Errorf("no metric %q", f) // decodeEvaluator lets none through
	}
	result, err := b.get(ctx, env, r, answer)
	if err != nil {
		return verdict{}, fmt.Errorf("result: %w", err)
	}
	var expected any
	if e != nil {
		if expected, err = b.get(ctx, env, e, answer); err != nil {
			return verdict{}, fmt.Errorf("expected: %w", err)
		}
	}
	s, err := spec.Fn(ctx, checks.Call{Env: env, Result: result, Expected: expected, Options: opts})
	if err != nil {
		return verdict{}, err
	}
	return verdict{s.Value, s.Note}, nil
}

// get runs a getter. Like OSWorld's, a command that cannot run and a missing
// file give nil (None), which metrics score 0; a getter that cannot work on
// this machine, or a cancelled ctx, is an error.
func (b *box) get(ctx context.Context, env *checkEnv, g *getter, answer string) (any, error) {
	if g.kind == "answer" {
		if answer == "" {
			return nil, nil
		}
		return answer, nil
	}
	v, err := checks.Get(ctx, env, g.config())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", g.kind, err)
	}
	if v == nil {
		b.log.printf("[check] %s: None\n", g.kind)
	}
	return v, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
