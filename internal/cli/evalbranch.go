//go:build linux

package cli

import (
	"context"
	"errors"

	"deskpilot/agent"
	"deskpilot/eval"
)

// run replays the prefix (replayPrefix), then continues the task with the
// model, the replayed steps as its history. A screen that does not look as
// recorded stops the attempt before the model is asked anything: exit 4.
func (b *evalBranch) run(ctx context.Context, a *agent.Agent, j eval.Job, h agent.Hooks) (agent.Finished, error) {
	prior, dir, err := b.replayPrefix(ctx, a, j.Instruction, h)
	if err != nil {
		return agent.Finished{Outcome: agent.Failed, Error: "branch: " + err.Error(), TraceDir: dir}, err
	}
	s := a.Continue(ctx, []agent.Prior{prior}, branchTask(j.Instruction, b.step), h)
	<-s.Done()
	return s.Result(), nil
}

// branchOutcome is the outcome of an attempt whose prefix could not be
// replayed: exit 4 for a screen that diverged, else 1.
func (r *evalRunner) branchOutcome(fin agent.Finished, err error) (eval.Outcome, error) {
	o := eval.Outcome{Outcome: string(agent.Failed), Exit: exitFailed, Trace: fin.TraceDir}
	var div *agent.DivergenceError
	if errors.As(err, &div) {
		o.Exit = exitDiverged
	}
	return o, errors.New("branch: " + r.redact(err.Error()))
}
