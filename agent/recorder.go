package agent

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"image"
	"runtime"

	"deskpilot/agent/dialect"
	"deskpilot/agent/trace"
)

// recorder writes a run's events to its trace (docs/trace-format.md). It runs on the
// dispatcher goroutine, so frame encoding and disk writes never hold up the loop.
// A failed write is logged once and recording stops; the run goes on.
type recorder struct {
	w    *trace.Writer
	r    *runState
	dead bool
	// The last full frame stored: its path and a keyed hash of its pixels. An
	// unchanged screen is referenced, not encoded again (the full frame's
	// encoding is the recorder's largest cost). The hash is seeded per run, so
	// a screen's content cannot be crafted to collide with an earlier one.
	seed      maphash.Seed
	lastFrame string
	lastHash  uint64
}

func (r *runState) openRecorder() error {
	if r.a.NoTrace {
		return nil
	}
	start := trace.Event{
		Type: trace.TypeRunStart, T: r.started, Task: r.task, Model: r.cfg.Model, BaseURL: r.cfg.BaseURL,
		CoordMode: string(r.mapper.Mode), Dialect: dialectName(r.dialect), Screen: trace.RectOf(r.a.Display), Image: trace.SizeOf(r.mapper.Image),
		MaxSteps: r.cfg.MaxSteps, AppVersion: r.a.Version, HostOS: runtime.GOOS + "/" + runtime.GOARCH,
	}
	if n := len(r.priors); n > 0 {
		start.Continues = r.priors[n-1].Dir
		// Signed as the trace records it: redacted.
		start.ContinuesSig = SignContinues(r.a.TraceKey, start.T, r.red.Text(start.Continues))
	}
	opts := []trace.Option{trace.WithRedactor(r.red)}
	if r.a.Now != nil {
		opts = append(opts, trace.WithClock(r.a.Now))
	}
	w, err := trace.Create(r.cfg.TraceDir, start, opts...)
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	r.rec = &recorder{w: w, r: r, seed: maphash.MakeSeed()}
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
		rc.write(trace.Event{Type: trace.TypeStepStart, T: e.Time, Step: e.Step, Source: e.Source})
	case ModelReplied:
		rc.write(trace.Event{Type: trace.TypeModelOutput, Step: e.Step, Text: e.Text,
			Usage: &trace.Usage{In: e.Usage.Input, Out: e.Usage.Output}, DurationMS: e.Duration.Milliseconds()})
	case CodeParsed:
		rc.write(trace.Event{Type: trace.TypeCode, Step: e.Step, Code: e.Code, Text: e.Thought})
	case ActionDone:
		x := e.Action
		rc.write(trace.Event{Type: trace.TypeAction, Step: e.Step, Action: &x})
	case Observed:
		rc.write(rc.observation(e))
	case Paused:
		rc.write(trace.Event{Type: trace.TypePaused, Step: e.Step, Reason: e.Reason})
	case Resumed:
		rc.write(trace.Event{Type: trace.TypeResumed, Step: e.Step})
	case Finished:
		if e.Outcome == Answered {
			rc.write(trace.Event{Type: trace.TypeFinalAnswer, Step: e.Steps, Answer: e.Answer})
		}
		rc.write(trace.Event{Type: trace.TypeRunEnd, Step: e.Steps, Outcome: string(e.Outcome), Answer: e.Answer,
			Error: e.Error, Steps: e.Steps, Usage: &trace.Usage{In: e.Usage.Input, Out: e.Usage.Output}, ModelCalls: e.ModelCalls,
			ElapsedMS: e.Elapsed.Milliseconds()})
	}
}

// observation is the trace event of an observation, its images stored.
func (rc *recorder) observation(e Observed) trace.Event {
	ev := trace.Event{Type: trace.TypeObservation, Step: e.Step, Text: e.Text, Error: e.Error, Changed: e.Changed,
		SettleMS: e.Settle.Milliseconds()}
	if rc.dead {
		return ev
	}
	if e.Screen != nil {
		ev.Frame = rc.fullFrame(e.Step, e.Screen)
	}
	if e.FrameData != nil {
		if p, err := rc.w.FrameData(e.Step, e.FrameData, e.FrameFormat); err == nil {
			ev.ModelFrame = p
		} else {
			rc.r.a.log().Warn("trace model frame", "step", e.Step, "err", err)
		}
	}
	for _, at := range e.Attachments {
		if p, err := rc.w.FrameData(e.Step, at.Data, at.Format); err == nil {
			ev.Attachments = append(ev.Attachments, p)
		} else {
			rc.r.a.log().Warn("trace attachment", "step", e.Step, "label", at.Label, "err", err)
		}
	}
	return ev
}

// fullFrame stores the full-resolution frame, or returns the previous one's
// path when the pixels are the same; "" when it could not be stored.
func (rc *recorder) fullFrame(step int, img *image.RGBA) string {
	var h maphash.Hash
	h.SetSeed(rc.seed)
	var dims [16]byte
	binary.LittleEndian.PutUint32(dims[0:], uint32(img.Rect.Min.X))
	binary.LittleEndian.PutUint32(dims[4:], uint32(img.Rect.Min.Y))
	binary.LittleEndian.PutUint32(dims[8:], uint32(img.Rect.Dx()))
	binary.LittleEndian.PutUint32(dims[12:], uint32(img.Rect.Dy()))
	_, _ = h.Write(dims[:])
	for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
		i := img.PixOffset(img.Rect.Min.X, y)
		_, _ = h.Write(img.Pix[i : i+4*img.Rect.Dx()])
	}
	sum := h.Sum64()
	if rc.lastFrame != "" && sum == rc.lastHash {
		return rc.lastFrame
	}
	p, err := rc.w.Frame(step, img)
	if err != nil {
		rc.r.a.log().Warn("trace frame", "step", step, "err", err)
		return ""
	}
	rc.lastFrame, rc.lastHash = p, sum
	return p
}

func (rc *recorder) close() {
	if err := rc.w.Close(); err != nil {
		rc.r.a.log().Warn("trace close", "err", err)
	}
}

// dialectName is the name of the run's dialect, as run_start records it.
func dialectName(d dialect.Dialect) string {
	if d == nil {
		return dialect.Default
	}
	return d.Name()
}
