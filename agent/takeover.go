package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Takeover is the part of a replay the model does where a checkpoint
// diverged (`deskpilot play --model`, `replay --model`): the replay ran the
// recorded code without a model while the screen looked as recorded, and
// now the model, in the run's dialect, does what the diverged step's code
// was meant to do. After each of its steps the recorded steps in Next are
// checked against the screen; the first that looks as recorded ends the
// takeover and the replay goes on from it.
type Takeover struct {
	// Task is the recorded run's task.
	Task string
	// Script is the recording as code (the played script, or the recorded
	// steps' code), as the model reads it; clipped to maxTakeoverScript.
	Script string
	// Diverged is the check that stopped the replay; Code the diverged
	// step's code (the script's block from its checkpoint).
	Diverged Check
	Code     string
	// Next are the recorded steps after the diverged one that a replay can
	// go on from, in order.
	Next []int
	// MaxSteps bounds the model's steps; 0 means DefaultTakeoverSteps.
	MaxSteps int
}

// DefaultTakeoverSteps is how many steps the model may take over one
// divergence before the replay fails: a moved dialog takes one, a dialog
// that appeared two or three.
const DefaultTakeoverSteps = 5

// maxTakeoverScript bounds the recording the model is sent, bytes.
const maxTakeoverScript = 24 << 10

// TakeoverResult is what the model's steps did.
type TakeoverResult struct {
	// Resume is the recorded step of Next that looks as recorded now: the
	// replay goes on from it; 0 when the model answered.
	Resume int
	// Answered reports that the model called final_answer, with Answer.
	Answered bool
	Answer   string
	// Steps are the model's steps in order: the code that ran (in the
	// run's dialect and coordinate space) and the error it stopped with.
	Steps []TakeoverStep
	// Calls counts the model calls made.
	Calls int
	// SameSpace reports that the model's points are in the replay's
	// coordinate space (its code runs in a played script as it is).
	SameSpace bool
}

// TakeoverStep is one step the model took.
type TakeoverStep struct {
	Step  int    // the step number in the replay's trace
	Code  string // "" when the reply had no code
	Error string // the code's error, "" when it ran
}

// TakeoverLimitError is a takeover that used its steps and never brought
// the screen back to a recorded step.
type TakeoverLimitError struct {
	Step, Steps int   // the diverged recorded step; the model's steps
	Next        []int // the recorded steps that were looked for
}

func (e *TakeoverLimitError) Error() string {
	after := "no recorded step follows it and the model did not call final_answer"
	if len(e.Next) > 0 {
		after = fmt.Sprintf("the screen never looked as recorded at step %s", joinSteps(e.Next))
	}
	return fmt.Sprintf("step %d does not look as recorded; the model took %d steps and %s (--model-steps allows more)", e.Step, e.Steps, after)
}

// joinSteps lists step numbers: "3", "3 or 4", "3, 4 or 5"; long lists cut.
func joinSteps(ns []int) string {
	var parts []string
	for i, n := range ns {
		if i == 6 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprint(n))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// TakeOver lets the model do the part of the replay where t.Diverged
// stopped it, in the agent's configured dialect and model, as steps of this
// console's trace (StepStarted.Source SourceModel). It returns when a step
// of t.Next looks as recorded, when the model answers, with a
// *TakeoverLimitError after t.MaxSteps steps, or with ctx's error when the
// run is stopped. Other errors are infrastructure's (a failed model call,
// the screen). Like Step, it must not overlap other calls.
func (c *Console) TakeOver(ctx context.Context, t Takeover, h Hooks) (res TakeoverResult, err error) {
	p := c.r
	if p.replay == nil {
		return TakeoverResult{}, errors.New("takeover: not a replay console")
	}
	max := t.MaxSteps
	if max <= 0 {
		max = DefaultTakeoverSteps
	}
	c.mu.Lock()
	c.hooks = h
	c.mu.Unlock()
	paused, resumed := p.session.control()
	restore := func() {
		p.session.setControl(paused, resumed)
		p.a.current.Store(p)
		p.disp.flush() // the model's steps are in the trace and the hooks have seen them, as after a block
	}
	sub, steps, err := c.takeoverRun(ctx, max)
	if err != nil {
		restore()
		return TakeoverResult{}, err
	}
	defer restore()
	defer sub.release()
	res.SameSpace = sub.mapper.Mode == p.mapper.Mode && sub.mapper.Image == p.mapper.Image
	defer func() {
		res.Calls = sub.calls
		p.calls += sub.calls
		p.usage = p.usage.add(sub.usage).add(sub.locator.grounded.load())
	}()
	if err := sub.startTakeover(ctx, t, max); err != nil {
		return res, err
	}
	for i := 0; i < max; i++ {
		sub.step = p.step + 1
		if err := sub.holdForPerson(ctx); err != nil {
			return res, err
		}
		fin, err := sub.doStep(ctx)
		sub.disp.flush()
		p.step = sub.step
		res.Steps = steps.take(res.Steps)
		switch {
		case errors.Is(err, errStop):
			res.Answered, res.Answer = true, fin.Answer
			return res, nil
		case ctx.Err() != nil:
			return res, ctx.Err()
		case err != nil:
			return res, err
		}
		now, err := p.checker.screen.Capture(ctx)
		if err != nil {
			return res, fmt.Errorf("takeover: screenshot: %w", err)
		}
		for _, n := range t.Next {
			if ck, _ := p.checker.checkFrame(n, now); ck.Note == "" && !ck.Diverged {
				res.Resume = n
				return res, nil
			}
		}
	}
	return res, &TakeoverLimitError{Step: t.Diverged.Step, Steps: max, Next: t.Next}
}

// takeoverRun sets up the run whose steps are the model's: the agent's
// config (its dialect and model) in this console's session, recording
// into this console's trace. steps collects what each step ran.
func (c *Console) takeoverRun(ctx context.Context, max int) (*runState, *takeoverLog, error) {
	p := c.r
	cfg := p.a.Config
	cfg.MaxSteps = max
	log := &takeoverLog{}
	forward := func(e Event) {
		log.note(e)
		if _, ok := e.(TextDelta); ok {
			return // the console's trace and hooks show whole replies
		}
		p.disp.emit(e)
	}
	sub, err := p.a.buildRun(ctx, cfg, p.task, Hooks{Event: forward, Ask: c.ask, Confirm: c.confirm}, p.session, nil, nil, false)
	if err != nil {
		return nil, nil, err
	}
	sub.source = SourceModel
	// The fields the script typed secrets into stay painted over.
	p.fields.mu.Lock()
	sub.fields.fields = append([]field(nil), p.fields.fields...)
	sub.fields.ocr = append([]string(nil), p.fields.ocr...)
	p.fields.mu.Unlock()
	return sub, log, nil
}

// startTakeover begins the model's conversation: the system prompt of the
// recorded task, then what the replay did and where it stopped, with the
// screen now.
func (r *runState) startTakeover(ctx context.Context, t Takeover, max int) error {
	first, err := r.capture(ctx)
	if err != nil {
		return fmt.Errorf("takeover: screenshot: %w", err)
	}
	view, err := r.observe(ctx, first)
	if err != nil {
		return err
	}
	sys, err := r.a.systemPrompt(r.dialect, r.task, r.mapper, r.exec.Stubs(), r.a.now())
	if err != nil {
		return err
	}
	brief := r.redact(takeoverBrief(t, max))
	r.conv.start(sys, withLayers(r.hist.FirstTurn(r.task+"\n\n"+brief), r.redact(view.notes)), view.part())
	r.input.settle()
	return nil
}

// takeoverBrief tells the model what the replay did and what is left to it.
func takeoverBrief(t Takeover, max int) string {
	var b strings.Builder
	b.WriteString("deskpilot was replaying a recording of this task without you, and the screen no longer looks as recorded: take over for that part.\n\n")
	b.WriteString("The recording, as code (checkpoint(n) compares the screen with what recorded step n saw):\n```python\n")
	b.WriteString(strings.TrimRight(clip(t.Script, maxTakeoverScript), "\n"))
	b.WriteString("\n```\n\n")
	fmt.Fprintf(&b, "Step %d did not look as recorded: %s.\nIts recorded code did not run:\n```python\n%s\n```\n\n",
		t.Diverged.Step, t.Diverged, strings.TrimRight(clip(t.Code, maxTakeoverScript), "\n"))
	b.WriteString("Do what that code was meant to do, on the screen as it is now, in as few steps as you can. ")
	if len(t.Next) > 0 {
		fmt.Fprintf(&b, "After each of your steps deskpilot compares the screen with recorded step %s; as soon as one looks as recorded, the replay goes on from there without you.", joinSteps(t.Next))
	} else {
		b.WriteString("No recorded step follows: finish the task and call final_answer.")
	}
	fmt.Fprintf(&b, " You have at most %d steps.", max)
	return b.String()
}

// release ends a takeover's run: its code's process, its input and its
// events (all delivered to the console's by then).
func (r *runState) release() {
	r.disp.flush()
	r.disp.close()
	if err := r.input.ReleaseAll(); err != nil {
		r.a.log().Warn("release input", "err", err)
	}
	if err := r.exec.Close(); err != nil {
		r.a.log().Warn("close the code's process", "err", err)
	}
}

// takeoverLog collects what the model's steps ran from their events (on
// the takeover's dispatcher goroutine).
type takeoverLog struct {
	mu    sync.Mutex
	steps []TakeoverStep
}

func (l *takeoverLog) note(e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch e := e.(type) {
	case CodeParsed:
		l.steps = append(l.steps, TakeoverStep{Step: e.Step, Code: e.Code})
	case Observed:
		if n := len(l.steps); n > 0 && l.steps[n-1].Step == e.Step {
			l.steps[n-1].Error = e.Error
		}
	}
}

// take appends the steps logged since have's to have.
func (l *takeoverLog) take(have []TakeoverStep) []TakeoverStep {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.steps) > len(have) {
		return append(have, l.steps[len(have):]...)
	}
	return have
}
