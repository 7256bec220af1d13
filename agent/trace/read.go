package trace

import (
	"deskpilot/actions"

	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Trace is a recorded run, grouped into steps.
type Trace struct {
	// Dir is the trace folder; frame paths are relative to it. Empty when parsed from a
	// stream.
	Dir string
	// Start is the run_start event.
	Start Event
	// Steps are the run's steps in ascending Number. Step 0, when present, holds what
	// happened before the first step (the initial observation).
	Steps []Step
	// End is the run_end event; nil when the run is still going or was killed.
	End *Event
	// Truncated reports that the last line was cut (the writer was killed mid-write)
	// and was left out.
	Truncated bool
	// Skipped counts other unreadable lines that were left out.
	Skipped int
}

// Step is one step of a run: the model's reply, its code, the actions the code ran and
// the observation that followed.
type Step struct {
	Number int
	// Source is where a replay's step came from: SourceScript or
	// SourceModel (its step_start's source); "" in runs and older traces.
	Source string
	// Events are all the step's events in file order, unknown types included.
	Events []Event
	// Reply is the model's whole reply (the last model_output of the step).
	Reply string
	// Thought is the reply without its code blocks, as the agent split it (the code
	// event's text).
	Thought string
	// Code is the code block that ran.
	Code string
	// Actions are the primitives the code executed, in order.
	Actions []actions.Record
	// Observation is the step's observation event; nil when the step did not finish.
	Observation *Event
	// Frame is the full-resolution screen the model looked at when it wrote this step's
	// reply (the previous observation's frame), relative to Dir; "" when not recorded.
	// Actions' screen coordinates map onto it after subtracting Start.Screen's origin.
	Frame string
	// ModelFrame is the downscaled image the model saw for this step, when recorded.
	ModelFrame string
	// Answer is the final answer when final_answer was called in this step.
	Answer string
	// Usage sums the step's model calls.
	Usage Usage
	// ModelMS is the time spent in model calls, milliseconds.
	ModelMS int64
	// Begin and Finish are the times of the step's first and last event.
	Begin, Finish time.Time
}

// Summary describes one trace for a listing.
type Summary struct {
	Dir     string    // trace folder
	ID      string    // RunID(Dir): the run's stable short id
	Task    string    // the task
	Model   string    // model name
	Started time.Time // run_start time
	Outcome string    // run_end outcome; "" when the run did not end (running or killed)
	Answer  string    // final answer, when there is one
	Steps   int       // steps run
}

// FormatError reports a file that is not a v1 trace.
type FormatError struct {
	Path   string // the trace.jsonl read, or "" for a stream
	Reason string // what is wrong
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("trace: %s: not a deskpilot v%d trace: %s", e.Path, Version, e.Reason)
}

// Read loads the trace in dir. It tolerates a cut last line (a killed writer), lines it
// cannot parse, and event types and fields it does not know. It fails with a
// *FormatError when the first line is not a v1 run_start.
func Read(dir string) (*Trace, error) {
	p := filepath.Join(dir, EventsFile)
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("trace: read: %w", err)
	}
	defer f.Close()
	t, err := Parse(f)
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			fe.Path = p
		}
		return nil, err
	}
	t.Dir = dir
	return t, nil
}

// Parse reads trace.jsonl content from r; see Read. The result's Dir is empty.
func Parse(r io.Reader) (*Trace, error) {
	br := bufio.NewReader(r)
	t := &Trace{}
	var events []Event
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("trace: read line %d: %w", n, err)
		}
		cut := err != nil // no newline: the last line, possibly cut short
		var e Event
		perr := json.Unmarshal(bytes.TrimSpace(line), &e)
		if n == 1 {
			if ferr := checkStart(e, perr); ferr != nil {
				return nil, ferr
			}
			t.Start = e
			continue
		}
		switch {
		case perr != nil || e.Type == "":
			if cut {
				t.Truncated = true
			} else if len(bytes.TrimSpace(line)) > 0 {
				t.Skipped++
			}
		default:
			events = append(events, e)
		}
	}
	if t.Start.Type == "" {
		return nil, &FormatError{Reason: "empty file"}
	}
	t.group(events)
	return t, nil
}

// checkStart validates the first line.
func checkStart(e Event, perr error) error {
	switch {
	case perr != nil:
		return &FormatError{Reason: "first line is not a JSON event: " + perr.Error()}
	case e.Type != TypeRunStart:
		return &FormatError{Reason: fmt.Sprintf("first event is %q, want %q", e.Type, TypeRunStart)}
	case e.V != Version:
		return &FormatError{Reason: fmt.Sprintf("format version %d, want %d", e.V, Version)}
	}
	return nil
}

// group sorts events into steps and derives each step's summary fields.
func (t *Trace) group(events []Event) {
	index := map[int]int{}
	for _, e := range events {
		if e.Type == TypeRunEnd {
			end := e
			t.End = &end
			continue
		}
		i, ok := index[e.Step]
		if !ok {
			i = len(t.Steps)
			index[e.Step] = i
			t.Steps = append(t.Steps, Step{Number: e.Step})
		}
		t.Steps[i].Events = append(t.Steps[i].Events, e)
	}
	slices.SortStableFunc(t.Steps, func(a, b Step) int { return a.Number - b.Number })
	var frame, modelFrame string
	for i := range t.Steps {
		s := &t.Steps[i]
		s.Frame, s.ModelFrame = frame, modelFrame
		s.derive()
		if o := s.Observation; o != nil && o.Frame != "" {
			frame, modelFrame = o.Frame, o.ModelFrame
		}
	}
}

// derive fills the summary fields of s from its events.
func (s *Step) derive() {
	for i := range s.Events {
		e := &s.Events[i]
		if s.Begin.IsZero() || e.T.Before(s.Begin) {
			s.Begin = e.T
		}
		if e.T.After(s.Finish) {
			s.Finish = e.T
		}
		switch e.Type {
		case TypeStepStart:
			s.Source = e.Source
		case TypeModelOutput:
			s.Reply = e.Text
			if e.Usage != nil {
				s.Usage = s.Usage.Add(*e.Usage)
			}
			s.ModelMS += e.DurationMS
		case TypeCode:
			s.Code, s.Thought = e.Code, e.Text
		case TypeAction:
			if e.Action != nil {
				s.Actions = append(s.Actions, *e.Action)
			}
		case TypeObservation:
			o := *e
			s.Observation = &o
		case TypeFinalAnswer:
			s.Answer = e.Answer
		}
	}
}

// FillTraits gives every action that carries no traits (one written before
// action records carried them) the traits known for its name, typically the
// builtin catalogue's (agent/script.Traits). Actions with traits keep theirs.
func (t *Trace) FillTraits(known map[string]actions.Traits) {
	fill := func(a *actions.Record) {
		if a != nil && a.Traits == (actions.Traits{}) {
			a.Traits = known[a.Name]
		}
	}
	for i := range t.Steps {
		s := &t.Steps[i]
		for j := range s.Actions {
			fill(&s.Actions[j])
		}
		for j := range s.Events {
			fill(s.Events[j].Action)
		}
	}
}

// Step returns step n (0 holds what came before the first step).
func (t *Trace) Step(n int) (Step, bool) {
	for _, s := range t.Steps {
		if s.Number == n {
			return s, true
		}
	}
	return Step{}, false
}

// Usage is the run's token total: run_end's when the run ended, else the sum of the
// recorded steps.
func (t *Trace) Usage() Usage {
	if t.End != nil && t.End.Usage != nil {
		return *t.End.Usage
	}
	var u Usage
	for _, s := range t.Steps {
		u = u.Add(s.Usage)
	}
	return u
}

// Elapsed is the run's wall time: run_end's elapsed_ms when the run ended, else the
// time from run_start to the last recorded event.
func (t *Trace) Elapsed() time.Duration {
	if t.End != nil && t.End.ElapsedMS > 0 {
		return time.Duration(t.End.ElapsedMS) * time.Millisecond
	}
	last := t.Start.T
	for _, s := range t.Steps {
		if s.Finish.After(last) {
			last = s.Finish
		}
	}
	return last.Sub(t.Start.T)
}

// StepCount is the number of steps run: run_end's count, else the highest step number.
func (t *Trace) StepCount() int {
	if t.End != nil && t.End.Steps > 0 {
		return t.End.Steps
	}
	if len(t.Steps) == 0 {
		return 0
	}
	return t.Steps[len(t.Steps)-1].Number
}

// Answer is the run's final answer: run_end's, else the last final_answer event's.
func (t *Trace) Answer() string {
	if t.End != nil && t.End.Answer != "" {
		return t.End.Answer
	}
	for i := len(t.Steps) - 1; i >= 0; i-- {
		if a := t.Steps[i].Answer; a != "" {
			return a
		}
	}
	return ""
}

// List summarizes the traces under root, newest first. Folders that are not readable
// traces are skipped; a missing root lists nothing.
func List(root string) ([]Summary, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trace: list: %w", err)
	}
	var out []Summary
	for _, d := range entries {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(root, d.Name())
		t, err := Read(dir)
		if err != nil {
			continue
		}
		s := Summary{
			Dir: dir, ID: RunID(dir), Task: t.Start.Task, Model: t.Start.Model, Started: t.Start.T,
			Answer: t.Answer(), Steps: t.StepCount(),
		}
		if t.End != nil {
			s.Outcome = t.End.Outcome
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Summary) int {
		if c := b.Started.Compare(a.Started); c != 0 {
			return c
		}
		return strings.Compare(b.Dir, a.Dir)
	})
	return out, nil
}
