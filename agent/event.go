package agent

import (
	"deskpilot/actions"

	"image"
	"time"
)

// Event is something the loop reports while a run goes on. The loop emits events from its
// own goroutine through Hooks.Event and never waits on a slow consumer; the UI and the
// trace writer consume them. The concrete types below are the complete set.
type Event interface{ isEvent() }

// Usage counts tokens of one model call or of a whole run.
type Usage struct {
	Input  int // prompt tokens
	Output int // completion tokens
}

// Outcome says how a run ended.
type Outcome string

// The outcomes of a run; they map to the CLI exit codes (README: exit codes).
const (
	Answered  Outcome = "answered"  // final_answer was called (exit 0)
	Failed    Outcome = "failed"    // a fatal error stopped the run (exit 1)
	MaxSteps  Outcome = "max_steps" // the step limit was reached (exit 3)
	Cancelled Outcome = "cancelled" // the person stopped it (exit 130)
)

// RunStarted opens a run.
type RunStarted struct {
	Task      string
	Model     string
	MaxSteps  int
	Screen    image.Rectangle // target display, root coordinates
	ImageSize image.Point     // size of the images the model sees
	CoordMode string
	TraceDir  string // empty when no trace is written
	Time      time.Time
}

// StepStarted begins step n (1-based) of at most Max.
type StepStarted struct {
	Step, Max int
	Time      time.Time
	// Source says where a replay's step comes from: SourceScript (the
	// recorded code) or SourceModel (the model took over where the screen
	// did not look as recorded); "" in runs and consoles.
	Source string
}

// The sources of a replay's steps (StepStarted.Source, the trace's
// step_start source).
const (
	SourceScript = "script"
	SourceModel  = "model"
)

// TextDelta is a piece of the model's reply as it streams in. Reset means the
// text streamed so far for this step is void (a cut stream is being retried from
// the start): clear it before appending Text.
type TextDelta struct {
	Step  int
	Text  string
	Reset bool
}

// ModelReplied carries the whole reply of one model call.
type ModelReplied struct {
	Step     int
	Text     string
	Usage    Usage
	Duration time.Duration
}

// CodeParsed is the reply split as the agent reads it (SplitReply): the code that
// runs (empty when there was none) and the thought around it.
type CodeParsed struct {
	Step    int
	Code    string
	Thought string
}

// ActionDone reports one executed primitive.
type ActionDone struct {
	Step   int
	Action actions.Record
}

// Observed is what the model will be told after a step: printed output, errors and the
// new screenshot as the model sees it (downscaled, cursor and last actions drawn).
type Observed struct {
	Step    int
	Text    string      // the observation text sent to the model
	Output  string      // what the step's code printed (also inside Text), for people
	Error   string      // the code error, if any (also inside Text)
	Changed bool        // whether the screen changed during the step
	Frame   *image.RGBA // the model's view of the screen after the step; may be nil
	// FrameData is Frame encoded as the model was sent it, in FrameFormat ("png" or
	// "jpeg"); the trace stores these bytes instead of encoding Frame again.
	FrameData   []byte
	FrameFormat string
	Screen      *image.RGBA // the full-resolution frame (for the trace and zoom); may be nil
	Duration    time.Duration
	Settle      time.Duration // time spent waiting for the screen to settle after the step
	// Attachments are the extra images the model was sent with this
	// observation (zoom, screenshot), encoded as sent.
	Attachments []Attachment
}

// Attachment is an extra image the model was sent: its label, the encoded
// bytes and their format ("png", "jpeg" or "webp").
type Attachment struct {
	Label  string
	Data   []byte
	Format string
}

// Paused reports that the agent stopped acting: the person took over, or asked for a pause.
type Paused struct {
	Step   int
	Reason string
}

// Resumed reports that the agent acts again.
type Resumed struct{ Step int }

// Finished closes a run.
type Finished struct {
	Outcome Outcome
	Answer  string // the final answer; "" when final_answer was not called (max steps included)
	// Summary is, after max steps, the model's closing summary of what it found (asked
	// for without tools). It is not an answer: the task did not end with one.
	Summary string
	Error   string // why it failed, when Outcome is Failed
	Steps   int
	Usage   Usage // whole run
	// ModelCalls counts the calls to the run's model (planning and the
	// closing summary included, the grounder's aside): in a replay, those of
	// the model's takeovers; 0 when every checkpoint held.
	ModelCalls int
	Elapsed    time.Duration
	TraceDir   string
}

func (RunStarted) isEvent()   {}
func (StepStarted) isEvent()  {}
func (TextDelta) isEvent()    {}
func (ModelReplied) isEvent() {}
func (CodeParsed) isEvent()   {}
func (ActionDone) isEvent()   {}
func (Observed) isEvent()     {}
func (Paused) isEvent()       {}
func (Resumed) isEvent()      {}
func (Finished) isEvent()     {}
