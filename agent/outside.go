package agent

import (
	"context"
	"fmt"

	"deskpilot/vision"
)

// What a driver outside the loop needs: an MCP host drives a Console one tool
// call at a time, and builtins that call out (an MCP server's tools) ask for
// approval through the run going on.

// RedactText hides the agent's secrets (type_secret values, values read
// back from their fields, API keys) in s with the agent's one redactor
// (SecretFilter), exactly as the observations the model reads and the trace
// are redacted. Every text that leaves deskpilot another way (an MCP reply)
// goes through it.
func (a *Agent) RedactText(s string) string { return a.SecretFilter().Text(s) }

// Approve asks the person, through the Confirm hook of the run or console
// going on, to approve action; it returns nil when they did and an error the
// model reads when they did not or nobody can (no run, no hook). Builtins
// that call outside deskpilot (an MCP server's tools whose risk is confirm)
// call it. Safe from any goroutine.
func (a *Agent) Approve(ctx context.Context, action string) error {
	r := a.current.Load()
	if r == nil {
		return fmt.Errorf("refused: %s needs the person's approval and no run is going on", action)
	}
	return r.confirm(ctx, action)
}

// Mapper is the console's coordinate mapping: the space its screenshots are
// in and its points are read in.
func (c *Console) Mapper() vision.Mapper { return c.r.mapper }

// TraceDir is the folder of the console's trace; "" when none is written.
func (c *Console) TraceDir() string { return c.r.traceDir() }

// CancelBlock stops the block running now, if any, as a cancelled context
// would, while the console goes on observing the screen for it. Safe from any
// goroutine.
func (c *Console) CancelBlock() {
	if x, ok := c.r.exec.(interface{ Cancel() }); ok {
		x.Cancel()
	}
}

// Pause pauses the console as takeover does; Resume lets it act again.
func (c *Console) Pause() { c.r.session.Pause() }

// ReleaseInput releases every key and button the agent's input holds down
// (after a cancelled block).
func (a *Agent) ReleaseInput() error {
	if a.Input == nil {
		return nil
	}
	return a.Input.ReleaseAll()
}

// Record writes one step into the console's trace for work done outside
// its code (an MCP host's run_task, which has a trace of its own): call as
// the step's code, result as its observation, both redacted. Calls must not
// overlap Exec, Run or Step.
func (c *Console) Record(call, result string) {
	r := c.r
	r.step++
	r.curStep.Store(int32(r.step))
	r.disp.emit(StepStarted{Step: r.step, Time: r.a.now()})
	r.disp.emit(CodeParsed{Step: r.step, Code: r.redact(call)})
	r.disp.emit(Observed{Step: r.step, Text: r.redact(result)})
	r.disp.flush()
}

// Fresh starts takeover detection afresh: only the person's input from now
// on pauses the console. An MCP host calls one tool at a time, and between
// its calls the desktop is the person's.
func (c *Console) Fresh() { c.r.input.settle() }
