package actions

import (
	"encoding/json"
	"time"
)

// Record is one primitive as it ran: what the script logged, what the agent
// reports to the app, and what the trace stores — one type from end to end. Its
// JSON form is the trace's "action" object (docs/trace-format.md): the duration
// is written as whole milliseconds, "duration_ms", and the Traits as
// "target", "gesture" and "types".
type Record struct {
	Name     string        `json:"name"`             // builtin name, e.g. "click"
	Args     string        `json:"args,omitempty"`   // arguments as the model wrote them; secrets never appear
	Model    *[2]float64   `json:"model,omitempty"`  // the (first) point as the model wrote it, in its coordinate space
	Screen   *[2]int       `json:"screen,omitempty"` // the same point in screen pixels (root coordinates)
	To       *[2]int       `json:"to,omitempty"`     // a second screen point (drag, zoom)
	Start    time.Time     `json:"start,omitzero"`   // when it began
	Duration time.Duration `json:"-"`                // how long it took, waits and guard pauses included
	Result   string        `json:"result,omitempty"` // short result text, e.g. "clicked" or "refused"
	Error    string        `json:"error,omitempty"`  // non-empty when it failed
	// Traits are the builtin's, from the catalogue, stamped when the action
	// is logged; Target is the call's own (a click given a description
	// instead of x, y was aimed by the grounder).
	Traits
}

// recordJSON is Record as the trace writes it: the same fields in the same
// order, the duration in milliseconds.
type recordJSON struct {
	Name       string      `json:"name"`
	Args       string      `json:"args,omitempty"`
	Model      *[2]float64 `json:"model,omitempty"`
	Screen     *[2]int     `json:"screen,omitempty"`
	To         *[2]int     `json:"to,omitempty"`
	Start      time.Time   `json:"start,omitzero"`
	DurationMS int64       `json:"duration_ms,omitempty"`
	Result     string      `json:"result,omitempty"`
	Error      string      `json:"error,omitempty"`
	Target     Target      `json:"target,omitempty"`
	Gesture    Gesture     `json:"gesture,omitempty"`
	Types      Typing      `json:"types,omitempty"`
}

// MarshalJSON writes the duration as "duration_ms".
func (r Record) MarshalJSON() ([]byte, error) {
	return json.Marshal(recordJSON{r.Name, r.Args, r.Model, r.Screen, r.To, r.Start,
		r.Duration.Milliseconds(), r.Result, r.Error, r.Target, r.Gesture, r.Types})
}

// UnmarshalJSON reads "duration_ms" into Duration.
func (r *Record) UnmarshalJSON(b []byte) error {
	var j recordJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Record{j.Name, j.Args, j.Model, j.Screen, j.To, j.Start,
		time.Duration(j.DurationMS) * time.Millisecond, j.Result, j.Error, Traits{j.Target, j.Gesture, j.Types}}
	return nil
}
