// Package dialect owns the reply formats deskpilot speaks: for each model family,
// the system prompt (its trained action space and output grammar), the size of the
// image it is sent, the coordinate space its points are in, the parser of its
// replies and the help it gets when a reply does not parse.
//
// Every dialect compiles a reply into a Starlark program over the agent's builtins
// (click, type_text, press, final_answer, ...). The program, not the reply, is what
// runs, so the guard, takeover, the confirmation policy, traces and replay work the
// same for every dialect. The "code" dialect's program is the model's own code.
//
// The package is pure: no I/O, no X, no model calls. docs/architecture.md says how
// to add a dialect.
package dialect

import (
	"fmt"
	"image"
	"sort"
	"strings"

	"deskpilot/agent/convo"
	"deskpilot/agent/dialect/registry"
	"deskpilot/vision"
)

// Dialect is one model family's reply format and coordinate space.
// Implementations are values without mutable state: safe for concurrent use.
type Dialect interface {
	// Name is the dialect's name as given to --dialect ("code", "uitars-1.5", ...).
	Name() string
	// Space is the image the model is sent for a display of the given size and
	// how the model writes points on it. maxSide is the configured longest side
	// (0 = the dialect's own choice); families trained on a fixed resize rule
	// (smart_resize) ignore it.
	Space(display image.Point, maxSide int) Space
	// SystemPrompt renders the system prompt for a run.
	SystemPrompt(p Prompt) (string, error)
	// Parse reads one reply. A reply that cannot be read is a *FormatError whose
	// Help is what the model is told (the dialect's own format help).
	Parse(reply string) (Reply, error)
	// Stop is the request's stop sequences (nil = none).
	Stop() []string
}

// Space is the image a model is sent and the coordinates it answers in. The
// agent's vision.Mapper is built from it, so a point outside the space is an
// error for the model, never clamped.
type Space struct {
	Image image.Point      // size of the image sent, in pixels
	Mode  vision.CoordMode // how the model writes points on it
}

// Prompt is what a system prompt may show.
type Prompt struct {
	Task        string      // the person's task
	Tools       string      // Python-style stubs of the builtins (the code dialect lists them)
	Coordinates string      // the coordinate contract (vision.Mapper.Contract)
	Screen      image.Point // the target display's size in pixels
	Image       image.Point // the size of the screenshots the model sees
	DisplayNote string      // which monitor of several, or ""
	Date        string      // today, e.g. "Monday, 30 November 2026"
}

// Reply is a parsed reply.
type Reply struct {
	// Thought is what the model said besides its actions (shown and traced).
	Thought string
	// Code is the Starlark program that carries the reply's actions out over the
	// builtins; "" when the reply has no action (a *FormatError is returned then
	// unless the dialect allows an empty turn).
	Code string
	// Turn is the reply as kept in the conversation history (e.g. a code block the
	// reply was cut off in, closed). "" means the reply as it came.
	Turn string

	// Calls are the reply's tool calls (a Caller's): the history keeps them
	// in the assistant turn, and the next user turn answers each one, also
	// when the reply could not be read.
	Calls []convo.ToolCall
	// Checks are the vendor's safety checks on the calls: the person
	// approves them before Code runs, and approved ones are acknowledged in
	// the results.
	Checks []convo.SafetyCheck
	// Refused is why the vendor refused the actions itself (Gemini's
	// "blocked"): Code is "" and the results say so.
	Refused string
}

// FormatError is a reply the dialect cannot read. Help goes back to the model.
type FormatError struct {
	Dialect string
	Reason  string // what was wrong, for logs and traces
	Help    string // the observation the model gets: its own format, with an example
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s reply: %s", e.Dialect, e.Reason)
}

// all lists every dialect, the default first.
func all() []Dialect {
	return allWith(Options{})
}

// allWith lists every dialect with the given options.
func allWith(o Options) []Dialect {
	return []Dialect{Code{}, uitars15(), uitars10(), doubao(), qwen25(), qwen3(), PyAutoGUI{Coords: o.PyAutoGUICoords},
		OpenAIComputer{Model: o.Model}, AnthropicComputer{Model: o.Model}, GeminiComputer{}, Holo3{}, newOpenCUA(o.OpenCUA), Fara{}}
}

// Options are per-run dialect settings beyond the name. The zero value is
// every dialect's default.
type Options struct {
	// PyAutoGUICoords is the pyautogui dialect's coordinate space (config
	// pyautogui_coords): "pixels" (default; OSWorld's baselines: pixels of
	// the screenshot), "smart" (OpenCUA-7B/32B: pixels of the smart-resized
	// screenshot) or "unit" (Aguvis, OpenCUA-Qwen2: fractions 0..1).
	PyAutoGUICoords string
	// Model is the model's name: the vendor tools pick their tool version
	// and image limits by it (computer_20251124 and 2576 px for Claude Opus
	// 4.7, computer_use_preview for computer-use-preview).
	Model string
	// OpenCUA is the opencua dialect's coordinate space, as
	// PyAutoGUICoords ("" = "unit", 0..1; "smart" for OpenCUA-7B/32B).
	OpenCUA string
}

// OpenCUACoords is the opencua dialect's coordinate space, defaulted.
func (o Options) OpenCUACoords() string {
	if o.OpenCUA == "" {
		return PyAutoGUIUnit
	}
	return o.OpenCUA
}

// New returns the named dialect ("" = Default) with the given options. An
// unknown name, or an option the dialect does not know, is an error listing
// the valid ones.
func New(name string, o Options) (Dialect, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if name == "" {
		name = Default
	}
	key := strings.ToLower(strings.TrimSpace(name))
	for _, d := range allWith(o) {
		if d.Name() == key {
			return d, nil
		}
	}
	return nil, fmt.Errorf("unknown dialect %q; dialects: %s", name, strings.Join(Names(), ", "))
}

// Default is the dialect of a run that names none.
const Default = registry.Default

// Names lists the dialects' names, the default first, the rest sorted.
func Names() []string {
	var rest []string
	for _, d := range all() {
		if d.Name() != Default {
			rest = append(rest, d.Name())
		}
	}
	sort.Strings(rest)
	return append([]string{Default}, rest...)
}

// ByName returns the named dialect ("" = Default) with default options. An
// unknown name is an error listing the known ones.
func ByName(name string) (Dialect, error) {
	return New(name, Options{})
}
