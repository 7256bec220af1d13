package agent

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strings"
	"sync"

	"go.starlark.net/starlark"

	"deskpilot/actions"
	"deskpilot/agent/script"
	"deskpilot/agent/trace"
	"deskpilot/vision"
)

// Recording is a recorded run that a replay checks the screen against: before
// a step's code runs (Console.Step), or where a played script calls
// checkpoint(step).
type Recording struct {
	// Trace is the recorded run; its frames are read from Trace.Dir.
	Trace *trace.Trace
	// Tolerance is the share of the screen, and of the neighbourhood of each
	// point a recorded pointer action aimed at, that may look different from
	// the recording; 0 means DefaultTolerance.
	Tolerance float64
	// Adapt moves a pointer action whose target is found elsewhere on the
	// screen now to where it is, and lets the rest of the screen differ
	// while every target is found.
	Adapt bool
	// Force reports a divergence and goes on.
	Force bool
}

// DefaultTolerance is the share of the screen (and of each target's
// neighbourhood) that may look different from the recording before a replay
// stops: a clock, a blinking caret or a tooltip pass; a moved dialog, another
// window or other content in a text field do not.
const DefaultTolerance = 0.02

// Matching a recorded target elsewhere on the screen.
const (
	targetSide  = 80   // side of the square neighbourhood compared (and searched first), pixels
	searchSide  = 320  // side of the largest neighbourhood searched for, pixels
	matchMin    = 0.9  // least correlation for a target to count as found
	matchMargin = 0.05 // how much better than any other place it must fit
)

// Check is how the screen compared with the frame a recorded step saw.
type Check struct {
	Step int
	// Screen is the share of the screen that looks as recorded, 0..1, and
	// Need the least share that passes (1 - tolerance).
	Screen, Need float64
	// Differs is where the screen looks different, root coordinates; empty
	// when nowhere.
	Differs image.Rectangle
	// Targets are the points the step's pointer actions aimed at.
	Targets []TargetCheck
	// Note says why the screen could not be compared, when it could not.
	Note string
	// Hover is the control under the pointer, root coordinates, when it is
	// lit by the pointer and otherwise as recorded: it is not compared.
	Hover image.Rectangle
	// Diverged reports that the step must not run as recorded; Adapted that
	// moved targets will be acted on where they are now; Relaxed that the
	// screen looks too different but --adapt goes on (see Recording.Adapt).
	Diverged, Adapted, Relaxed bool
}

// TargetCheck is how the neighbourhood of one recorded target looked.
type TargetCheck struct {
	Action string      // the builtin that aimed at it, e.g. "click"
	At     image.Point // the point, root coordinates
	Score  float64     // share of its neighbourhood that looks as recorded
	// Found is where the recorded neighbourhood is now, when it is not in
	// place and was found elsewhere; Match is the correlation there.
	Found *image.Point
	Match float64
	// Why says why it was not found elsewhere, when it was not.
	Why string
}

// String describes the check in one line: figures, places and what follows.
func (c Check) String() string {
	var b strings.Builder
	if c.Note != "" {
		b.WriteString(c.Note)
	} else {
		fmt.Fprintf(&b, "the screen looks %s as recorded (%s needed)", pct(c.Screen), pct(c.Need))
		if !c.Differs.Empty() && c.Screen < 1 {
			fmt.Fprintf(&b, ", different in (%d, %d)-(%d, %d)", c.Differs.Min.X, c.Differs.Min.Y, c.Differs.Max.X, c.Differs.Max.Y)
		}
		if c.Relaxed {
			b.WriteString(" (the layout moved: --adapt goes by the targets)")
		}
		if !c.Hover.Empty() {
			fmt.Fprintf(&b, ", the pointer's highlight in (%d, %d)-(%d, %d) aside", c.Hover.Min.X, c.Hover.Min.Y, c.Hover.Max.X, c.Hover.Max.Y)
		}
	}
	for _, t := range c.Targets {
		fmt.Fprintf(&b, "; %s target (%d, %d) looks %s as recorded", t.Action, t.At.X, t.At.Y, pct(t.Score))
		switch {
		case t.Found != nil && c.Adapted:
			fmt.Fprintf(&b, ", found at (%d, %d) (match %.2f): acting there", t.Found.X, t.Found.Y, t.Match)
		case t.Found != nil:
			fmt.Fprintf(&b, ", found at (%d, %d) (match %.2f): --adapt acts there", t.Found.X, t.Found.Y, t.Match)
		case t.Why != "":
			b.WriteString(", " + t.Why)
		}
	}
	return b.String()
}

func pct(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }

// DivergenceError stops a replay: the screen does not look as it did when
// the step was recorded, so acting would hit something else.
type DivergenceError struct{ Check Check }

func (e *DivergenceError) Error() string {
	return fmt.Sprintf("step %d does not look as recorded: %s (--force goes on anyway; --tolerance allows more difference)", e.Check.Step, e.Check)
}

// replayer is a console's recording and what its checks decided.
type replayer struct {
	rec Recording

	mu       sync.Mutex // the checks run on the script's goroutine
	moves    map[vision.ScreenPoint]vision.ScreenPoint
	diverged *Check
	adapted  bool // a check has moved targets: the layout is no longer the recorded one
}

func (p *replayer) tolerance() float64 {
	if t := p.rec.Tolerance; t > 0 && t < 1 {
		return t
	}
	return DefaultTolerance
}

// reset forgets the moves and the divergence of the previous block.
func (p *replayer) reset() {
	p.mu.Lock()
	p.moves, p.diverged = nil, nil
	p.mu.Unlock()
}

// takeDiverged returns and clears the divergence a check of this block found.
func (p *replayer) takeDiverged() *Check {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.diverged
	p.diverged = nil
	return d
}

// retarget moves a point a check found elsewhere (script.DesktopDeps.Retarget).
func (p *replayer) retarget(sp vision.ScreenPoint) (vision.ScreenPoint, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q, ok := p.moves[sp]
	return q, ok
}

// checkpoint checks the screen against recorded step and returns the action
// record to log and whether the step diverged (and must not run). With
// Force a divergence is recorded in the action and the step goes on.
func (r *replayCheck) checkpoint(ctx context.Context, step int) (actions.Record, bool, error) {
	start := r.a.now()
	c, moves, err := r.check(ctx, step)
	act := actions.Record{Name: script.Checkpoint, Args: fmt.Sprint(step), Start: start, Duration: r.a.now().Sub(start)}
	if err != nil {
		act.Result, act.Error = "failed", err.Error()
		return act, false, err
	}
	p := r.replay
	stop := c.Diverged && !p.rec.Force
	if !stop && p.rec.Adapt && len(moves) > 0 {
		c.Adapted = true
		p.mu.Lock()
		p.moves, p.adapted = moves, true
		p.mu.Unlock()
	}
	switch {
	case stop:
		p.mu.Lock()
		p.diverged = &c
		p.mu.Unlock()
		act.Result, act.Error = "stopped", (&DivergenceError{Check: c}).Error()
	case c.Diverged:
		act.Result = "does not look as recorded, going on (--force): " + c.String()
	default:
		act.Result = c.String()
	}
	return act, stop, nil
}

// checkpointTool is the checkpoint(step) builtin of played scripts.
func (r *runState) checkpointTool(c *script.Call, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
	a, err := c.Bind()
	if err != nil {
		return nil, err
	}
	step := a.Int("step")
	if err := a.Err(); err != nil {
		return nil, err
	}
	defer c.Untimed()() // comparing frames is the replay's work, not the code's
	act, stop, err := r.checker.checkpoint(c.Ctx, step)
	act.Args = c.ArgsText()
	c.Log(act)
	if err != nil {
		return nil, err
	}
	if stop {
		return nil, errors.New(act.Error)
	}
	return starlark.None, nil
}
