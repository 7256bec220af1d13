package agent

import (
	"slices"

	"fmt"
	"runtime"

	"deskpilot/agent/trace"
)

// recorder writes a run's events to its trace (docs/trace-format.md). It runs on the
// dispatcher goroutine, so frame encoding and disk writes never hold up the loop.
// A failed write is logged once and recording stops; the run goes on.
type recorder struct {
	w    *trace.Writer
	r    *runState
	dead bool
}

func (r *runState) openRecorder() error {
	if r.a.NoTrace {
		return nil
	}
	start := trace.Event{
		Type: trace.TypeRunStart, T: r.started, Task: r.task, Model: r.cfg.Model, BaseURL: r.cfg.BaseURL,
		CoordMode: string(r.mapper.Mode), Screen: trace.RectOf(r.a.Display), Image: trace.SizeOf(r.mapper.Image),
		MaxSteps: r.cfg.MaxSteps, AppVersion: r.a.Version, HostOS: runtime.GOOS + "/" + runtime.GOARCH,
	}
	secrets := slices.Clone(r.a.Redact)
	for _, v := range r.a.Secrets {
		secrets = append(secrets, v)
	}
	opts := []trace.Option{trace.WithSecrets(secrets...)}
	if r.a.Now != nil {
		opts = append(opts, trace.WithClock(r.a.Now))
	}
	w, err := trace.Create(r.cfg.TraceDir, start, opts...)
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	r.rec = &recorder{w: w, r: r}
	return nil
}

func (r *runState) traceDir() string {
	if r.rec == nil {
		return ""
	}
	return r.rec.w.Dir()
}

func (rc *recorder) write(e trace.Event) {
	if rc.dead {
		return
	}
	if err := rc.w.Write(e); err != nil {
		rc.dead = true
		rc.r.a.log().Error("trace write failed; recording stops", "dir", rc.w.Dir(), "err", err)
	}
}

// record maps one agent event to trace events.
func (rc *recorder) record(e Event) {
	switch e := e.(type) {
	case StepStarted:
		rc.write(trace.Event{Type: trace.TypeStepStart, T: e.Time, Step: e.Step})
	case ModelReplied:
		rc.write(trace.Event{Type: trace.TypeModelOutput, Step: e.Step, Text: e.Text,
			Usage: &trace.Usage{In: e.Usage.Input, Out: e.Usage.Output}, DurationMS: e.Duration.Milliseconds()})
	case CodeParsed:
		rc.write(trace.Event{Type: trace.TypeCode, Step: e.Step, Code: e.Code, Text: e.Thought})
	case ActionDone:
		x := e.Action
		rc.write(trace.Event{Type: trace.TypeAction, Step: e.Step, Action: &x})
	case Observed:
		ev := trace.Event{Type: trace.TypeObservation, Step: e.Step, Text: e.Text, Error: e.Error, Changed: e.Changed}
		if e.Screen != nil && !rc.dead {
			if p, err := rc.w.Frame(e.Step, e.Screen); err == nil {
				ev.Frame = p
			} else {
				rc.r.a.log().Warn("trace frame", "step", e.Step, "err", err)
			}
		}
		if e.FrameData != nil && !rc.dead {
			if p, err := rc.w.FrameData(e.Step, e.FrameData, e.FrameFormat); err == nil {
				ev.ModelFrame = p
			} else {
				rc.r.a.log().Warn("trace model frame", "step", e.Step, "err", err)
			}
		}
		rc.write(ev)
	case Paused:
		rc.write(trace.Event{Type: trace.TypePaused, Step: e.Step, Reason: e.Reason})
	case Resumed:
		rc.write(trace.Event{Type: trace.TypeResumed, Step: e.Step})
	case Finished:
		if e.Outcome == Answered {
			rc.write(trace.Event{Type: trace.TypeFinalAnswer, Step: e.Steps, Answer: e.Answer})
		}
		rc.write(trace.Event{Type: trace.TypeRunEnd, Step: e.Steps, Outcome: string(e.Outcome), Answer: e.Answer,
			Error: e.Error, Steps: e.Steps, Usage: &trace.Usage{In: e.Usage.Input, Out: e.Usage.Output},
			ElapsedMS: e.Elapsed.Milliseconds()})
	}
}

func (rc *recorder) close() {
	if err := rc.w.Close(); err != nil {
		rc.r.a.log().Warn("trace close", "err", err)
	}
}
