package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"deskpilot/agent/llm"
	"deskpilot/agent/script"
	"deskpilot/agent/trace"
)

// Prior is an earlier run that a follow-up turn continues: its task and its
// steps as the trace recorded them (redacted, as everything in a trace).
type Prior struct {
	Dir    string // its trace folder
	Task   string
	Steps  []PriorStep
	Answer string // its final answer, if it gave one
	// Unfollowed says why the run this one continues was not read (its link
	// was not signed by the user's runs); "" when it continues none or was.
	Unfollowed string
}

// PriorStep is one step of a Prior: the model's reply and what it was told.
type PriorStep struct {
	Reply, Observation string
}

// Bounds on what a follow-up carries over: a chain of runs, steps per run and
// text per reply or observation. The newest screenshot is always fresh.
const (
	maxPriorRuns  = 16
	maxPriorSteps = 200
	maxPriorText  = 8 << 10
)

// ReadPriors reads the run recorded in the trace folder dir (the one the
// person names) and the runs it followed up, oldest first, for Continue. It
// follows a trace's continues field only when the trace's run_start signs it
// with key (SignContinues), so that a chain passes only through traces this
// user's runs wrote; an unsigned link ends the chain there, and the oldest
// Prior's Unfollowed says so.
func ReadPriors(dir string, key []byte) ([]Prior, error) {
	var chain []Prior
	seen := map[string]bool{}
	for dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		if seen[abs] {
			return nil, fmt.Errorf("follow-up: the traces continue each other in a loop at %s", dir)
		}
		if len(chain) == maxPriorRuns {
			return nil, fmt.Errorf("follow-up: more than %d runs in a row; start a new task", maxPriorRuns)
		}
		seen[abs] = true
		tr, err := trace.Read(abs)
		if err != nil {
			return nil, fmt.Errorf("follow-up: %w", err)
		}
		if tr.Start.Task == "" {
			return nil, fmt.Errorf("follow-up: %s records no task", dir)
		}
		p := Prior{Dir: abs, Task: tr.Start.Task}
		if tr.End != nil {
			p.Answer = tr.End.Answer
		}
		for _, s := range tr.Steps {
			if s.Number == 0 || s.Reply == "" {
				continue
			}
			st := PriorStep{Reply: clip(s.Reply, maxPriorText)}
			if s.Observation != nil {
				st.Observation = clip(s.Observation.Text, maxPriorText)
			}
			p.Steps = append(p.Steps, st)
		}
		if len(p.Steps) > maxPriorSteps {
			p.Steps = p.Steps[len(p.Steps)-maxPriorSteps:]
		}
		dir = tr.Start.Continues
		if dir != "" && !signedContinues(key, tr.Start) {
			p.Unfollowed = fmt.Sprintf("%s says it continues %s, but no run of yours signed that: the earlier run was not read", abs, dir)
			dir = ""
		}
		chain = append([]Prior{p}, chain...)
		if dir != "" && !filepath.IsAbs(dir) {
			dir = filepath.Join(abs, dir)
		}
	}
	return chain, nil
}

// Continue starts a follow-up turn: task is what the person asks next, and the
// conversation begins with the earlier runs (oldest first, from ReadPriors):
// their tasks, the model's replies and what it was told, their screenshots
// replaced by a note, then the follow-up with a fresh screenshot. The turn is
// a new run with its own trace, whose run_start names the last prior's trace.
// Variables the earlier runs' code defined do not carry over. With no priors
// it is Start.
func (a *Agent) Continue(ctx context.Context, priors []Prior, task string, h Hooks) *Session {
	if len(priors) == 0 {
		return a.start(ctx, task, h, nil)
	}
	return a.start(ctx, task, h, &followUp{priors: priors})
}

// startPriors begins the conversation of a follow-up: the earlier runs, then
// the follow-up task with shot.
func (r *runState) startPriors(sys, notes string, shot llm.Part) {
	gone := llm.Part{Text: prunedNote}
	for i, p := range r.priors {
		if i == 0 {
			r.conv.start(sys, r.hist.FirstTurn(p.Task), gone)
		} else {
			r.conv.user(followUpText(p.Task), nil, gone)
		}
		for _, s := range p.Steps {
			r.conv.add("assistant", s.Reply)
			r.conv.user(s.Observation, nil, gone)
		}
	}
	last := followUpText(r.task)
	if r.codeKept {
		last = strings.Replace(last, variablesGone, variablesKept, 1)
	}
	r.conv.user(withLayers(last, notes), nil, shot)
}

// What a follow-up tells the model of the earlier code's variables.
const (
	variablesGone = "(variables from earlier code are gone)"
	variablesKept = "(the variables and functions your earlier code defined are still there)"
)

// followUpText is the user turn that asks a follow-up.
func followUpText(task string) string {
	return "The person asks a follow-up to the task above. Work on it from the screen as it is now " +
		variablesGone + ":\n" + task
}

// followUp is what a follow-up run starts from: the earlier runs, and the
// sandbox child the last one kept (nil when none).
type followUp struct {
	priors []Prior
	code   *script.Sandbox
}

// keepCode hands the run's sandbox child to its Session when the run
// answered and the agent keeps code for follow-ups; it reports whether it did.
func (r *runState) keepCode(fin Finished) bool {
	sb, ok := r.exec.(*script.Sandbox)
	if !r.a.KeepCode || fin.Outcome != Answered || !ok || !sb.Alive() {
		return false
	}
	r.session.mu.Lock()
	r.session.kept = sb
	r.session.mu.Unlock()
	return true
}

// takeCode returns the sandbox child the session kept, and forgets it.
func (s *Session) takeCode() *script.Sandbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	sb := s.kept
	s.kept = nil
	return sb
}

// Release frees what an ended session kept for a follow-up (the code's
// child process). Safe at any time and more than once; a session no follow-up
// continues should be released.
func (s *Session) Release() {
	if sb := s.takeCode(); sb != nil {
		_ = sb.Close()
	}
}

// ContinueSession starts a follow-up turn of prev, an ended run of this
// process: like Continue with the runs prev's trace records, and, when prev
// kept its code's child (Agent.KeepCode), the variables and functions its
// code defined are still there. prev is released.
func (a *Agent) ContinueSession(ctx context.Context, prev *Session, task string, h Hooks) (*Session, error) {
	fin := prev.Result()
	code := prev.takeCode()
	if fin.TraceDir == "" {
		if code != nil {
			_ = code.Close()
		}
		return nil, errors.New("follow-up: the earlier run left no trace to continue")
	}
	priors, err := ReadPriors(fin.TraceDir, a.TraceKey)
	if err != nil {
		if code != nil {
			_ = code.Close()
		}
		return nil, err
	}
	return a.start(ctx, task, h, &followUp{priors: priors, code: code}), nil
}
