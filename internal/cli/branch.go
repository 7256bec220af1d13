package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"deskpilot/agent"
	"deskpilot/agent/trace"
)

// evalBranch is --branch-from TRACE:STEP, of `eval` (every attempt) and of
// `run`: the recorded run's steps before STEP are replayed on the display,
// the screen checked before each, and the model goes on from there.
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

// replayPrefix replays the recorded steps before b.step with a's replay
// console (a trace of its own) and returns them as the model's history, with
// the replay's trace folder. A screen that does not look as recorded is an
// *agent.DivergenceError, and a step that fails where it did not when
// recorded an error: either stops before the model is asked anything.
func (b *evalBranch) replayPrefix(ctx context.Context, a *agent.Agent, task string, h agent.Hooks) (agent.Prior, string, error) {
	if err := recordedSpace(&a.Config, b.rec); err != nil {
		return agent.Prior{}, "", err
	}
	con, err := a.NewReplay(ctx, "branch: "+task, agent.Recording{Trace: b.rec})
	if err != nil {
		return agent.Prior{}, "", err
	}
	prior := agent.Prior{Task: task, Dir: con.TraceDir()}
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
			return agent.Prior{}, con.TraceDir(), err
		}
		ps := agent.PriorStep{Reply: st.Reply}
		if st.Observation != nil {
			ps.Observation = st.Observation.Text
		}
		prior.Steps = append(prior.Steps, ps)
	}
	con.Finish("", nil)
	return prior, con.TraceDir(), nil
}
