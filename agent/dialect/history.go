package dialect

import "strings"

// History is how a family's conversation is laid out, as its own tools lay it
// out: where the system prompt goes, how screenshots sit in the turns and how
// many stay. The zero value is the code dialect's layout: the prompt as the
// system message, the first screenshot in the first user turn after its
// text, the run's keep_images setting, older screenshots replaced by a note.
type History struct {
	// PromptInUser sends the system prompt (which holds the task) as the text
	// of the first user turn, as UI-TARS was trained; System is then the
	// system message ("" = none).
	PromptInUser bool
	System       string
	// SeparateImage sends each screenshot as a user turn of its own, after
	// the turn holding the text (UI-TARS), instead of in the same turn.
	SeparateImage bool
	// ImageFirst puts the screenshot before the text within a user turn
	// (Qwen's and OpenCUA's agents), instead of after it.
	ImageFirst bool
	// KeepImages is how many screenshots the family's agents keep in a
	// request; 0 = the run's setting. A run that sets keep_images explicitly
	// overrides it.
	KeepImages int
	// DropOldImages drops screenshots older than KeepImages (and a user turn
	// left empty) instead of replacing them with a note.
	DropOldImages bool
}

// Outcome is what one step did, for the text of the next user turn.
type Outcome struct {
	// Task is the person's task (OpenCUA repeats it every turn).
	Task string
	// Text is the observation the code dialect gets: actions, output,
	// errors, whether the screen changed. Families trained on prose use it.
	Text string
	// Output is what the step's program printed (e.g. the person's answer
	// to call_user).
	Output string
	// Problems are what the model must know to correct itself: the format
	// help of a reply that did not parse, a runtime error, a refused action.
	Problems []string
}

// Historian is implemented by dialects whose conversation differs from the
// code dialect's. The loop calls HistorianOf to get one for any dialect.
type Historian interface {
	// History is the conversation's layout.
	History() History
	// FirstTurn is the text of the first user turn, sent with the first
	// screenshot; "" sends the screenshot alone.
	FirstTurn(task string) string
	// Observation is the text of the user turn after a step, sent with its
	// screenshot; "" sends the screenshot alone.
	Observation(o Outcome) string
}

// HistorianOf returns d's Historian, or the code dialect's conversation for
// a dialect that has none.
func HistorianOf(d Dialect) Historian {
	if h, ok := d.(Historian); ok {
		return h
	}
	return codeHistory{}
}

// codeHistory is the code dialect's conversation: the loop's own phrasing.
type codeHistory struct{}

func (codeHistory) History() History { return History{} }

func (codeHistory) FirstTurn(task string) string {
	return "New task:\n" + task + "\n\nThis is the screen now:"
}

func (codeHistory) Observation(o Outcome) string { return o.Text }

// terseObservation is the user text for families trained on screenshot-only
// turns: nothing when all went well, else the problems and the output.
func terseObservation(o Outcome) string {
	var parts []string
	parts = append(parts, o.Problems...)
	if out := strings.TrimSpace(o.Output); out != "" {
		parts = append(parts, out)
	}
	return strings.Join(parts, "\n\n")
}
