package dataset

import (
	"crypto/sha256"
	"fmt"
	"image"
	"strings"

	"deskpilot/actions"
	"deskpilot/agent/trace"
)

// Label is a fact deskpilot measured about a step (never guessed by a model).
type Label string

// The step labels.
const (
	// Changed: the effect check saw the screen change during the step.
	Changed Label = "changed"
	// NoChange: the effect check saw no change.
	NoChange Label = "no_change"
	// Repeated: the step ran the same code as the step before it.
	Repeated Label = "repeated"
	// Refused: the guard or the policy refused one of the step's actions.
	Refused Label = "refused"
	// Error: the code or one of its actions failed.
	Error Label = "error"
	// Scripted: a replay ran the step's recorded code; no model wrote it
	// in this run (the trace's step source "script").
	Scripted Label = "scripted"
	// Takeover: the model wrote the step in a replay, where the screen did
	// not look as recorded (step source "model").
	Takeover Label = "takeover"
)

// Labels are every label, in the order a step lists them.
var Labels = []Label{Changed, NoChange, Repeated, Refused, Error, Scripted, Takeover}

// ParseLabels reads a comma-separated list of labels (--drop).
func ParseLabels(s string) ([]Label, error) {
	var out []Label
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		l := Label(f)
		if !isLabel(l) {
			return nil, fmt.Errorf("dataset: unknown label %q (labels: changed, no_change, repeated, refused, error, scripted, takeover)", f)
		}
		out = append(out, l)
	}
	return out, nil
}

func isLabel(l Label) bool {
	for _, k := range Labels {
		if k == l {
			return true
		}
	}
	return false
}

// Trajectory is one run as a dataset holds it: its task, its outcome and
// its steps. It holds one run's images at a time.
type Trajectory struct {
	ID        string   // unique in the dataset: the trace folder's name, made safe as a file name
	TaskID    string   // the eval task's id; "" for a run outside an evaluation
	Task      string   // the instruction
	Domain    string   // the eval task's domain; "" when unknown
	Suite     string   // the eval suite; "" outside an evaluation
	Licence   string   // the licence of the task; "" when unknown
	Score     *float64 // the evaluator's score in [0, 1]; nil outside an evaluation
	Completed bool     // the run passed (score 1), or, outside an evaluation, answered
	Model     string   // the model
	Dialect   string   // the reply format ("code" when the trace does not say)
	CoordMode string   // how the model wrote points
	Outcome   string   // how the run ended ("" when it did not)
	Answer    string   // the final answer
	Screen    trace.Rect
	Steps     []Step
	RunSteps  int // steps in the run, before any was dropped
}

// Step is one step of a Trajectory.
type Step struct {
	Number      int    // the step in the run, 1-based
	PNG         []byte // the image the model looked at, PNG
	Width       int    // of the image, pixels
	Height      int
	ImageSource string            // "model" | "screen"
	Redacted    []image.Rectangle // flattened regions, image pixels
	Thought     string
	Code        string
	Observation string
	Error       string
	Answer      string
	Actions     []Action
	Changed     bool
	Labels      []Label

	hash     uint64   // perceptual hash of the image (dedup)
	codeHash [32]byte // of Code (dedup)
}

// Has reports whether the step carries label l.
func (s Step) Has(l Label) bool {
	for _, k := range s.Labels {
		if k == l {
			return true
		}
	}
	return false
}

// Effect is "changed" or "no_change".
func (s Step) Effect() string {
	if s.Changed {
		return string(Changed)
	}
	return string(NoChange)
}

// Action is one primitive of a step, its points in the step's image
// normalised to 0–1.
type Action struct {
	Name   string      `json:"name"`
	Args   string      `json:"args"`
	Model  *[2]float64 `json:"model"`  // as the model wrote it (coord_mode)
	Screen *[2]int     `json:"screen"` // root pixels
	Point  *[2]float64 `json:"point"`  // the same point, 0–1 of the image
	To     *[2]float64 `json:"to"`     // a drag's end, 0–1 of the image
	Result string      `json:"result"`
	Error  string      `json:"error"`

	gesture actions.Gesture
	types   actions.Typing
}

// build reads one run into a Trajectory; the steps without an image are
// noted in skipped. Every text passes red.
func build(src Source, t *trace.Trace, o *Options, red textRedactor, skipped *[]string) (*Trajectory, error) {
	name := trace.SafeName(red.name(baseName(t.Dir)))
	tr := &Trajectory{
		ID: name, TaskID: red.str(src.TaskID), Task: red.str(t.Start.Task), Domain: red.str(src.Domain),
		Suite: red.str(src.Suite), Licence: src.Licence, Score: src.Score,
		Model: red.str(t.Start.Model), Dialect: dialectOf(t), CoordMode: t.Start.CoordMode,
		RunSteps: t.StepCount(),
	}
	if t.Start.Screen != nil {
		tr.Screen = *t.Start.Screen
	}
	if t.End != nil {
		tr.Outcome, tr.Answer = t.End.Outcome, red.str(t.End.Answer)
	}
	if src.Score != nil {
		tr.Completed = *src.Score >= 1
	} else {
		tr.Completed = tr.Outcome == trace.OutcomeAnswered
	}
	if src.Instruction != "" && tr.Task == "" {
		tr.Task = red.str(src.Instruction)
	}
	imgs := trace.NewImageRedactor(t, o.Redact)
	prevCode := ""
	for _, s := range t.Steps {
		if s.Number < 1 {
			continue
		}
		st, err := buildStep(imgs, s, red)
		if err != nil {
			*skipped = append(*skipped, fmt.Sprintf("%s step %d: %v", name, s.Number, err))
			continue
		}
		st.Labels = labels(s, st, prevCode)
		prevCode = s.Code
		tr.Steps = append(tr.Steps, st)
	}
	return tr, nil
}

// buildStep reads one step and its image.
func buildStep(imgs *trace.ImageRedactor, s trace.Step, red textRedactor) (Step, error) {
	im, err := imgs.Step(s)
	if err != nil {
		return Step{}, err
	}
	size := im.Image.Bounds().Size()
	st := Step{
		Number: s.Number, PNG: im.PNG, Width: size.X, Height: size.Y, ImageSource: im.Source,
		Redacted: im.Redacted, Thought: red.str(s.Thought), Code: red.str(s.Code), Answer: red.str(s.Answer),
		hash: dHash(im.Image),
	}
	st.codeHash = sha256.Sum256([]byte(st.Code))
	if ob := s.Observation; ob != nil {
		st.Observation, st.Error, st.Changed = red.str(ob.Text), red.str(ob.Error), ob.Changed
	}
	for _, a := range s.Actions {
		d := Action{Name: a.Name, Args: red.str(a.Args), Model: a.Model, Screen: a.Screen,
			Result: red.str(a.Result), Error: red.str(a.Error), gesture: a.Gesture, types: a.Types}
		if a.Screen != nil {
			if x, y, ok := imgs.ScreenToImage(*a.Screen, size); ok {
				d.Point = &[2]float64{unit(x / float64(size.X)), unit(y / float64(size.Y))}
			}
		}
		if a.To != nil {
			if x, y, ok := imgs.ScreenToImage(*a.To, size); ok {
				d.To = &[2]float64{unit(x / float64(size.X)), unit(y / float64(size.Y))}
			}
		}
		st.Actions = append(st.Actions, d)
	}
	return st, nil
}

// unit clamps v into [0, 1] and rounds it to 4 decimals (AgentNet's precision).
func unit(v float64) float64 {
	v = min(max(v, 0), 1)
	return float64(int64(v*10000+0.5)) / 10000
}

// labels measures a step's labels; prev is the code of the step before.
func labels(s trace.Step, st Step, prev string) []Label {
	var out []Label
	if st.Changed {
		out = append(out, Changed)
	} else {
		out = append(out, NoChange)
	}
	if s.Code != "" && s.Code == prev {
		out = append(out, Repeated)
	}
	failed := st.Error != ""
	refused := strings.HasPrefix(st.Error, "refused")
	for _, a := range s.Actions {
		failed = failed || a.Error != ""
		refused = refused || a.Result == "refused" || strings.HasPrefix(a.Error, "refused")
	}
	if refused {
		out = append(out, Refused)
	}
	if failed {
		out = append(out, Error)
	}
	switch s.Source {
	case trace.SourceScript:
		out = append(out, Scripted)
	case trace.SourceModel:
		out = append(out, Takeover)
	}
	return out
}

// dialectOf is the reply format the run's model wrote in: the trace's
// run_start dialect, "code" (deskpilot's own) for traces that predate it.
func dialectOf(t *trace.Trace) string {
	if t.Start.Dialect != "" {
		return t.Start.Dialect
	}
	return "code"
}
