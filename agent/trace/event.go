package trace

import (
	"deskpilot/actions"

	"image"
	"time"
)

// Version is the trace format version this package writes and reads.
const Version = 1

// Type names the kind of an Event; it is the "type" field of a trace line.
type Type string

// The event types of format v1. Readers keep events of other types (a newer writer's)
// in their step without interpreting them.
const (
	TypeRunStart    Type = "run_start"    // first line: task, model, screen geometry
	TypeStepStart   Type = "step_start"   // a step begins
	TypeModelOutput Type = "model_output" // the model's whole reply, usage, timing
	TypeCode        Type = "code"         // the code block parsed from the reply
	TypeAction      Type = "action"       // one primitive the code executed
	TypeObservation Type = "observation"  // what the model is told after the step
	TypePaused      Type = "paused"       // the agent stopped acting (takeover, pause)
	TypeResumed     Type = "resumed"      // the agent acts again
	TypeFinalAnswer Type = "final_answer" // final_answer(...) was called
	TypeRunEnd      Type = "run_end"      // last line: outcome and totals
)

// The sources of a step (Event.Source, Step.Source).
const (
	SourceScript = "script" // the recorded code, replayed
	SourceModel  = "model"  // the model's, where the screen did not look as recorded
)

// The outcomes a run_end event carries (the same words as agent.Outcome).
const (
	OutcomeAnswered  = "answered"  // final_answer was called
	OutcomeFailed    = "failed"    // a fatal error stopped the run
	OutcomeMaxSteps  = "max_steps" // the step limit was reached
	OutcomeCancelled = "cancelled" // the person stopped it
)

// Event is one line of trace.jsonl. Type says which of the other fields are set; the
// fields of each type are listed on the field and in docs/trace-format.md. Empty fields
// are left out of the JSON. Event is a plain value: copy it freely.
type Event struct {
	// V is the format version; set (to Version) on run_start only.
	V int `json:"v,omitempty"`
	// Type is the event type.
	Type Type `json:"type"`
	// T is when the event happened, written as RFC 3339 with nanoseconds in UTC. The
	// Writer stamps it from its clock when zero.
	T time.Time `json:"t"`
	// Step is the 1-based step the event belongs to; 0 before the first step (run_start,
	// the initial observation). On run_end it is the last step number.
	Step int `json:"step"`

	// run_start fields.

	Task       string `json:"task,omitempty"`        // the task as the person typed it
	Model      string `json:"model,omitempty"`       // model name
	BaseURL    string `json:"base_url,omitempty"`    // endpoint; the Writer drops credentials and the query
	CoordMode  string `json:"coord_mode,omitempty"`  // "pixels" | "norm1000"
	Dialect    string `json:"dialect,omitempty"`     // the reply format the model writes ("code", "uitars-1.5", ...); absent in older traces
	Screen     *Rect  `json:"screen,omitempty"`      // target display, root pixels
	Image      *Size  `json:"image,omitempty"`       // size of the images the model sees, pixels
	MaxSteps   int    `json:"max_steps,omitempty"`   // step limit
	AppVersion string `json:"app_version,omitempty"` // deskpilot version
	HostOS     string `json:"host_os,omitempty"`     // e.g. "linux/amd64"
	// Continues is the trace folder of the run this one follows up (a
	// follow-up turn: the earlier run's task and steps are its history).
	Continues string `json:"continues,omitempty"`
	// ContinuesSig signs Continues (HMAC-SHA256 under a key of the user's,
	// in hex): a follow-up chain passes only through links its own runs
	// signed (agent.SignContinues).
	ContinuesSig string `json:"continues_sig,omitempty"`

	// Shared fields: Text on model_output (the reply) and observation (the observation
	// text); Error on observation and run_end; Usage on model_output (one call) and
	// run_end (whole run); DurationMS on model_output (the call, milliseconds).

	Text       string `json:"text,omitempty"`
	Error      string `json:"error,omitempty"`
	Usage      *Usage `json:"usage,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`

	// Attempts is the number of HTTP attempts the model call took (model_output).
	Attempts int `json:"attempts,omitempty"`

	// Code is the code block taken from the reply (code).
	Code string `json:"code,omitempty"`

	// Action is the executed primitive (action).
	Action *actions.Record `json:"action,omitempty"`

	// observation fields.

	Changed     bool     `json:"changed,omitempty"`     // the screen changed during the step (absent: false)
	Frame       string   `json:"frame,omitempty"`       // full-resolution frame, path relative to the trace folder
	ModelFrame  string   `json:"model_frame,omitempty"` // downscaled, annotated image the model saw, relative path
	Attachments []string `json:"attachments,omitempty"` // extra images (zoom, screenshot), relative paths
	SettleMS    int64    `json:"settle_ms,omitempty"`   // time spent waiting for the screen to settle, ms

	// Source says where a step of a replay or a played script came from
	// (step_start): SourceScript (the recorded code) or SourceModel (the
	// model took over where the screen did not look as recorded). Absent
	// in runs, and in traces written before replays marked their steps.
	Source string `json:"source,omitempty"`

	// Reason says why the agent paused or resumed (paused, resumed).
	Reason string `json:"reason,omitempty"`

	// Answer is the final answer (final_answer, run_end).
	Answer string `json:"answer,omitempty"`

	// run_end fields.

	Outcome string `json:"outcome,omitempty"` // one of the Outcome* constants
	Steps   int    `json:"steps,omitempty"`   // number of steps run
	// ModelCalls counts the run's calls to its model (run_end); absent
	// when 0, and in traces written before it was recorded (count the
	// model_output events then).
	ModelCalls int   `json:"model_calls,omitempty"`
	ElapsedMS  int64 `json:"elapsed_ms,omitempty"` // wall time of the whole run, ms
}

// Usage counts tokens of one model call or of a whole run.
type Usage struct {
	In  int `json:"in"`  // prompt tokens
	Out int `json:"out"` // completion tokens
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage { return Usage{In: u.In + v.In, Out: u.Out + v.Out} }

// Rect is a rectangle in pixels: origin X, Y and size W, H.
type Rect struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

// RectOf converts an image.Rectangle.
func RectOf(r image.Rectangle) *Rect {
	return &Rect{X: r.Min.X, Y: r.Min.Y, W: r.Dx(), H: r.Dy()}
}

// Rectangle converts r back to an image.Rectangle.
func (r Rect) Rectangle() image.Rectangle { return image.Rect(r.X, r.Y, r.X+r.W, r.Y+r.H) }

// Size is a width and height in pixels.
type Size struct {
	W int `json:"w"`
	H int `json:"h"`
}

// SizeOf converts an image.Point holding a size.
func SizeOf(p image.Point) *Size { return &Size{W: p.X, H: p.Y} }
