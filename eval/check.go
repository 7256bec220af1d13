//go:build linux

package eval

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
)

// verdict is the outcome of checking a task.
type verdict struct {
	score float64 // 0..1; correct when 1
	note  string  // what the checker saw when the score is below 1
}

// evaluate runs an OSWorld evaluator after the agent's run, as OSWorld's
// DesktopEnv.evaluate does: postconfig steps, then each metric on its result
// and expected values. With several metrics, "and" stops at the first 0 and
// otherwise averages; "or" stops at the first 1 and otherwise takes the best.
// answer is the run's final answer, for the answer getter ("" = none).
func (b *box) evaluate(ctx context.Context, ev evaluator, answer string) (verdict, error) {
	if err := b.runSteps(ctx, ev.post, "postconfig"); err != nil {
		return verdict{}, err
	}
	var scores []float64
	var notes []string
	for i, f := range ev.funcs {
		v, err := b.metric(ctx, f, ev.result[i], ev.expected[i], ev.options[i], answer)
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

// metric gets one metric's values and applies it.
func (b *box) metric(ctx context.Context, f string, r, e *getter, opts map[string]any, answer string) (verdict, error) {
	spec, _ := metricFor(f)
	result, err := b.get(ctx, r, answer)
	if err != nil {
		return verdict{}, fmt.Errorf("result: %w", err)
	}
	var expected any
	if e != nil {
		if expected, err = b.get(ctx, e, answer); err != nil {
			return verdict{}, fmt.Errorf("expected: %w", err)
		}
	}
	score, note, err := spec.fn(result, expected, opts)
	if err != nil {
		return verdict{}, err
	}
	return verdict{score, note}, nil
}

// get runs a getter. Like OSWorld's, a command that cannot run and a missing
// file give nil (None), which metrics score 0; only a cancelled ctx is an error.
func (b *box) get(ctx context.Context, g *getter, answer string) (any, error) {
	switch g.kind {
	case "vm_command_line", "vm_command_error":
		res, err := b.exec(ctx, g.cmd)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			b.log.printf("[check] %s: %v (result None)\n", g.kind, err)
			return nil, nil
		}
		if g.kind == "vm_command_error" {
			return res.stderr, nil
		}
		return res.stdout, nil
	case "vm_file":
		p := b.path(g.path)
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
			b.log.printf("[check] vm_file %s: missing (result None)\n", p)
			return nil, nil
		}
		return p, nil
	case "rule":
		return g.rules, nil
	case "answer":
		if answer == "" {
			return nil, nil
		}
		return answer, nil
	}
	return nil, fmt.Errorf("unknown getter %q", g.kind) // decodeGetter lets none through
}
