package agent

import (
	"context"
	"strings"
	"sync"

	"go.starlark.net/starlark"

	"deskpilot/agent/dialect"
)

// Console runs code typed by a person on the desktop, without a model: the same
// executor, builtins, observation and trace as a run (`deskpilot console`, the app's
// Console view, `deskpilot replay`). The person types deskpilot's own Starlark, so a
// console speaks the code dialect in the configured coordinate mode, whatever dialect
// the model is set to, with the pyautogui modules besides (a recorded pyautogui run
// replays); with a grounder configured, click("the Save button") works there too.
// Globals persist between Exec calls. Exec calls must not overlap.
type Console struct {
	r     *runState
	mu    sync.Mutex
	hooks Hooks
}

// NewConsole opens a console session; its trace is named after task.
func (a *Agent) NewConsole(ctx context.Context, task string) (*Console, error) {
	if strings.TrimSpace(task) == "" {
		task = "console"
	}
	s := &Session{cancel: func() {}, gate: newGate(), done: make(chan struct{})}
	c := &Console{}
	cfg := a.Config
	cfg.Dialect = consoleDialect{}
	r, err := a.newRunWith(ctx, cfg, task, Hooks{Event: c.deliver, Ask: c.ask, Confirm: c.confirm}, s)
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
	if v, err := r.observe(first); err == nil {
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
	return true, nil // the person typed the code themselves
}

// Exec runs one block of code and emits CodeParsed, ActionDone and Observed events
// (the observation text holds output, actions and errors) through h.
func (c *Console) Exec(ctx context.Context, code string, h Hooks) error {
	c.mu.Lock()
	c.hooks = h
	c.mu.Unlock()
	r := c.r
	r.step++
	r.curStep.Store(int32(r.step))
	start := r.a.now()
	r.disp.emit(StepStarted{Step: r.step, Time: start})
	r.disp.emit(CodeParsed{Step: r.step, Code: code})
	res := r.execBlock(ctx, code)
	for _, x := range res.Actions {
		r.disp.emit(ActionDone{Step: r.step, Action: x})
	}
	if _, err := r.observeStep(ctx, res, nil, nil, start); err != nil {
		return err
	}
	if res.Final != nil {
		r.disp.emit(ModelReplied{Step: r.step, Text: "final_answer: " + res.Final.Value})
	}
	r.disp.flush()
	return nil
}

// Close ends the console session and writes its trace.
func (c *Console) Close() {
	c.r.finish(c.r.finished(Answered, "", ""))
}
