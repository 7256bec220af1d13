//go:build linux

package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"deskpilot/agent"
	"deskpilot/agent/trace"
	"deskpilot/eval"
)

// evalBranch is `eval --branch-from TRACE:STEP`: every attempt replays the
// recorded run's steps before STEP on its fresh display, checking the
// screen before each, and the model goes on from there.
type evalBranch struct {
	rec  *trace.Trace
	step int // the first step the model writes
}

// parseBranch reads TRACE:STEP: a trace folder and a step of it, from 1 to
// one past its last step.
func parseBranch(s string) (*evalBranch, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return nil, fmt.Errorf("--branch-from %q: want TRACE:STEP, e.g. traces/run-1:3", s)
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n < 1 {
		return nil, fmt.Errorf("--branch-from %q: the step must be a number from 1", s)
	}
	rec, err := trace.Read(s[:i])
	if err != nil {
		return nil, fmt.Errorf("--branch-from: %w", err)
	}
	if last := rec.StepCount(); n > last+1 {
		return nil, fmt.Errorf("--branch-from: the run has %d steps; branch from step 1 to %d", last, last+1)
	}
	return &evalBranch{rec: rec, step: n}, nil
}

// branchTask is what the model is asked once the prefix is replayed.
func branchTask(instruction string, step int) string {
	return fmt.Sprintf("Continue the same task from step %d, from the screen as it is now: %s", step, instruction)
}

// run replays the prefix with a's replay console (its own trace, in the
// job's trace folder), then continues the task with the model, the
// replayed steps as its history. A screen that does not look as recorded
// stops the attempt before the model is asked anything: exit 4.
func (b *evalBranch) run(ctx context.Context, a *agent.Agent, j eval.Job, h agent.Hooks) (agent.Finished, error) {
	if err := recordedSpace(&a.Config, b.rec); err != nil {
		return agent.Finished{Outcome: agent.Failed, Error: err.Error()}, err
	}
	con, err := a.NewReplay(ctx, "branch: "+j.Instruction, agent.Recording{Trace: b.rec})
	if err != nil {
		return agent.Finished{Outcome: agent.Failed, Error: err.Error()}, err
	}
	prior := agent.Prior{Task: j.Instruction, Dir: con.TraceDir()}
	for _, st := range b.rec.Steps {
		if st.Number < 1 || st.Number >= b.step || strings.TrimSpace(st.Code) == "" {
			continue
		}
		res, err := con.Step(ctx, st.Number, st.Code, h)
		if err == nil && res.Error != "" && (st.Observation == nil || st.Observation.Error == "") {
			err = fmt.Errorf("step %d failed, which it did not when recorded: %s", st.Number, firstLine(res.Error))
		}
		if err != nil {
			con.Finish("", err)
			return agent.Finished{Outcome: agent.Failed, Error: "branch: " + err.Error(), TraceDir: con.TraceDir()}, err
		}
		ps := agent.PriorStep{Reply: st.Reply}
		if st.Observation != nil {
			ps.Observation = st.Observation.Text
		}
		prior.Steps = append(prior.Steps, ps)
	}
	con.Finish("", nil)
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
