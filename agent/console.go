package agent

import (
	"context"
	"errors"
	"strings"
	"sync"

	"go.starlark.net/starlark"

	"deskpilot/actions"
	"deskpilot/agent/dialect"
	"deskpilot/agent/script"
)

// Console runs code typed by a person on the desktop, without a model: the same
// executor, builtins, observation and trace as a run (`deskpilot console`, the app's
// Console view, `deskpilot replay`). The person types deskpilot's own Starlark, so a
// console speaks the code dialect in the configured coordinate mode, whatever dialect
// the model is set to, with the pyautogui modules besides (a recorded pyautogui run
// replays); with a grounder configured, click("the Save button") works there too.
// Globals persist between Exec calls. Exec calls must not overlap.
//
// A replay console (NewReplay) runs a recorded run's code again: it checks the
// screen against the recording (Step, and the checkpoint builtin of played
// scripts) and applies the confirmation policy as a run does.
type Console struct {
	r     *runState
	mu    sync.Mutex
	hooks Hooks
	end   sync.Once
}

// NewConsole opens a console session; its trace is named after task.
func (a *Agent) NewConsole(ctx context.Context, task string) (*Console, error) {
	return a.newConsole(ctx, task, nil)
}

// NewReplay opens a console that replays rec: Step checks the screen against
// the recorded step before running its code, code may call checkpoint(step),
// and actions the safety policy marks are refused unless the Confirm hook
// approves them. Its trace, named after task, records the replay.
func (a *Agent) NewReplay(ctx context.Context, task string, rec Recording) (*Console, error) {
	if rec.Trace == nil {
		return nil, errors.New("replay: no recording")
	}
	return a.newConsole(ctx, task, &replayer{rec: rec})
}

func (a *Agent) newConsole(ctx context.Context, task string, rp *replayer) (*Console, error) {
	if strings.TrimSpace(task) == "" {
		task = "console"
	}
	s := &Session{cancel: func() {}, gate: newGate(), done: make(chan struct{})}
	c := &Console{}
	cfg := a.Config
	cfg.Dialect = consoleDialect{}
	r, err := a.newRunWith(ctx, cfg, task, Hooks{Event: c.deliver, Ask: c.ask, Confirm: c.confirm}, s, rp, nil)
	if err != nil {
		return nil, err
	}
	c.r = r
	first, err := r.capture(ctx)
	if err != nil {
		r.finish(r.fail(ctx, err))
		return nil, err
	}
	r.disp.emit(RunStarted{Task: task, Model: "console", MaxSteps: 0, Screen: a.Display,
		ImageSize: r.mapper.Image, CoordMode: string(r.mapper.Mode), TraceDir: r.traceDir(), Time: r.started})
	if v, err := r.observe(ctx, first); err == nil {
		r.disp.emit(v.observed(0, "The screen when the console opened."))
	}
	return c, nil
}

// consoleDialect is what a console speaks: deskpilot's own code, plus the
// pyautogui dialect's modules.
type consoleDialect struct{ dialect.Code }

// Modules implements dialect.Moduler.
func (consoleDialect) Modules(call dialect.Caller) starlark.StringDict {
	return dialect.PyAutoGUI{}.Modules(call)
}

func (c *Console) current() Hooks {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hooks
}

func (c *Console) deliver(e Event) {
	if h := c.current(); h.Event != nil {
		h.Event(e)
	}
}

func (c *Console) ask(ctx context.Context, q string) (string, error) {
	if h := c.current(); h.Ask != nil {
		return h.Ask(ctx, q)
	}
	return "", errNoPerson
}

func (c *Console) confirm(ctx context.Context, action string) (bool, error) {
	if h := c.current(); h.Confirm != nil {
		return h.Confirm(ctx, action)
	}
	// A person typed a console's code; a replay's was written by a model.
	return c.r.replay == nil, nil
}

// Resume lets a console whose person took over (takeover pauses it, as a
// run) act again. Safe from any goroutine.
func (c *Console) Resume(note string) { c.r.session.Resume(note) }

// BlockResult is what one block of console code did.
type BlockResult struct {
	// Error is why the code stopped early, "" when it ran to its end or
	// answered; ErrorKind is its kind (script.KindSyntax, KindRuntime,
	// KindLimit, KindCancelled).
	Error, ErrorKind string
	// Answered reports that the code called final_answer, with Answer.
	Answered bool
	Answer   string
}

// Exec runs one block of code and emits CodeParsed, ActionDone and Observed events
// (the observation text holds output, actions and errors) through h.
func (c *Console) Exec(ctx context.Context, code string, h Hooks) error {
	_, err := c.run(ctx, code, h, 0)
	return err
}

// Run is Exec that also returns what the block did. In a replay console, a
// checkpoint that stopped the block returns a *DivergenceError.
func (c *Console) Run(ctx context.Context, code string, h Hooks) (BlockResult, error) {
	return c.run(ctx, code, h, 0)
}

// Step runs code as recorded step of a replay console, in one step of the
// new trace: first the check of checkpoint(step), then, unless the screen
// diverged, the code. A divergence returns a *DivergenceError (with
// Recording.Force the check is logged and the code runs). Moved targets are
// acted on where they are now when the recording adapts.
func (c *Console) Step(ctx context.Context, step int, code string, h Hooks) (BlockResult, error) {
	if c.r.replay == nil {
		return BlockResult{}, errors.New("replay: not a replay console")
	}
	return c.run(ctx, code, h, step)
}

// run runs one block; check > 0 checks the screen against that recorded
// step first.
func (c *Console) run(ctx context.Context, code string, h Hooks, check int) (BlockResult, error) {
	c.mu.Lock()
	c.hooks = h
	c.mu.Unlock()
	r := c.r
	r.step++
	r.curStep.Store(int32(r.step))
	start := r.a.now()
	st := StepStarted{Step: r.step, Time: start}
	if r.replay != nil {
		st.Source = SourceScript
	}
	r.disp.emit(st)
	r.disp.emit(CodeParsed{Step: r.step, Code: code})
	if r.replay != nil {
		r.replay.reset()
	}
	var res script.Result
	var pre []actions.Record
	if check > 0 {
		act, stop, err := r.checker.checkpoint(ctx, check)
		if err != nil {
			return BlockResult{}, err
		}
		pre = append(pre, act)
		if stop {
			res.Err = &script.Error{Kind: script.KindRuntime, Msg: act.Error}
		}
	}
	if res.Err == nil {
		res = r.execBlock(ctx, code)
	}
	res.Actions = append(pre, res.Actions...)
	for _, x := range res.Actions {
		r.disp.emit(ActionDone{Step: r.step, Action: x})
	}
	if _, err := r.observeStep(ctx, res, nil, nil, start); err != nil {
		return BlockResult{}, err
	}
	var out BlockResult
	if res.Err != nil {
		out.Error, out.ErrorKind = res.Err.Msg, res.Err.Kind
	}
	if res.Final != nil {
		out.Answered, out.Answer = true, res.Final.Value
		r.disp.emit(ModelReplied{Step: r.step, Text: "final_answer: " + res.Final.Value})
	}
	r.disp.flush()
	if r.replay != nil {
		if d := r.replay.takeDiverged(); d != nil {
			return out, &DivergenceError{Check: *d}
		}
	}
	return out, nil
}

// Finish ends the session and writes its trace: err nil is answered (with
// answer), a cancelled context cancelled, any other error failed. Only the
// first Finish or Close counts.
func (c *Console) Finish(answer string, err error) {
	c.end.Do(func() {
		r := c.r
		switch {
		case err == nil:
			r.finish(r.finished(Answered, answer, ""))
		case errors.Is(err, context.Canceled):
			r.finish(r.cancelled())
		default:
			r.finish(r.finished(Failed, answer, err.Error()))
		}
	})
}

// Close ends the console session and writes its trace.
func (c *Console) Close() { c.Finish("", nil) }
