// Package agent owns the loop (docs/architecture.md, "one step"): it shows a vision model the screen,
// runs the Starlark program the model answers with, observes the effect, and repeats
// until the model calls final_answer, the step limit is reached, or the run is
// stopped. It emits typed Events for the UI and records the run as a trace; it never
// touches widgets and never imports the app.
package agent

import (
	"deskpilot/actions"
	"sync/atomic"

	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"strings"
	"sync"
	"time"

	"deskpilot/agent/llm"
	"deskpilot/agent/script"
	"deskpilot/agent/secret"
	"deskpilot/vision"
)

// Model is the model client the loop calls (agent/llm.Client in production).
type Model interface {
	Complete(ctx context.Context, r llm.Request, onDelta func(string)) (llm.Response, error)
}

// Agent runs tasks on one display. Fill the fields, then call Start or Run. An Agent
// may run several tasks one after another, not at the same time.
type Agent struct {
	Config Config          // settings; zero fields take their defaults
	Model  Model           // the model endpoint
	Screen vision.Capturer // full-resolution frames of the target display
	// Cursor reads the pointer in root coordinates (drawn on screenshots, takeover).
	Cursor func() (image.Point, error)
	// Idle reads how long ago the X server last saw any input; nil turns off the
	// keyboard half of takeover detection.
	Idle    func() (time.Duration, error)
	Input   actions.Input   // mouse and keyboard on the target display
	Display image.Rectangle // the target display in root coordinates
	// DisplayCount is the number of monitors, to tell the model which one it sees.
	DisplayCount int
	// Tools are extra builtins (browser, files, apps), registered after the desktop ones.
	Tools []script.Tool
	// Grounder, when set, finds the elements the model describes instead of
	// pointing at (click("the Save button"), locate); nil = coordinates only.
	Grounder *Grounder
	// Secrets are the values type_secret may type, by name. They never reach the
	// model, a log or the trace.
	Secrets map[string]string
	// Redact are more values the trace never shows (the API key).
	Redact []string
	// Redactor is the filter every text leaving the agent passes (the model,
	// the trace, events, tool results); Secrets and Redact are added to it.
	// nil = one of the agent's own (SecretFilter). The wiring shares one with
	// the model clients and the browser, which refuses requests carrying a
	// secret.
	Redactor *secret.Redactor
	// Text reads the text on the screen (OCR) for find_text, click_text, the
	// "ocr" observation and the marks of apps without accessibility; nil = not
	// available (those builtins say so).
	Text script.TextReader
	// Elements reads the accessibility tree of the target display for
	// find_elements, click_element, the "a11y" observation and the marks; nil =
	// not available (those builtins say so and suggest find_text).
	Elements script.ElementFinder
	// Launch starts a program on the target desktop, detached, and returns its
	// process id (launch, open_url); nil = programs cannot be started.
	Launch func(name string, args ...string) (int, error)
	// OwnWindows returns deskpilot's own windows in root coordinates; they are masked
	// out of screenshots and clicks into them are refused. nil = none.
	OwnWindows func() []image.Rectangle
	// OwnInput reports when the person last gave input to deskpilot's own
	// windows (the strip's buttons, Allow/Deny, an answer): input after the
	// agent's last action that went there is not a takeover, nor is the
	// pointer's way there and back. Zero time = never; nil = not known.
	OwnInput func() time.Time
	// Log receives operational logs; nil discards them.
	Log *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// NoTrace turns trace recording off (tests of the loop alone).
	NoTrace bool
	// NoTakeover turns off pausing when a person uses the mouse or keyboard, for
	// runs nobody can resume (headless, no terminal).
	NoTakeover bool
	// Version is recorded in the trace.
	Version string
	// TraceKey signs the link a follow-up's trace makes to the run it
	// continues, and ReadPriors follows only links it signed (agent/chain.go);
	// the wiring keeps one per user. nil = links are neither signed nor
	// followed beyond the trace named.
	TraceKey []byte
	// KeepCode keeps, after an answered run, the child process its code ran
	// in (with the variables and functions the code defined) in the Session,
	// for a follow-up turn in this process (ContinueSession). The Session holds
	// it until a follow-up takes it or Release frees it.
	KeepCode bool

	current atomic.Pointer[runState] // the run going on, for CheckSend and NoteRead

	redMu  sync.Mutex       // guards ownRed
	ownRed *secret.Redactor // SecretFilter's when Redactor is nil
}

// Session is one started run. Pause, Resume and Stop are safe from any goroutine.
type Session struct {
	kept    *script.Sandbox // the code's child, kept for a follow-up (Agent.KeepCode)
	cancel  context.CancelFunc
	gate    *gate
	done    chan struct{}
	mu      sync.Mutex // guards result, paused, resumed and kept
	result  Finished
	paused  func(reason string)
	resumed func()
}

// setControl installs what Pause and Resume do once the run is set up.
func (s *Session) setControl(paused func(string), resumed func()) {
	s.mu.Lock()
	s.paused, s.resumed = paused, resumed
	s.mu.Unlock()
}

func (s *Session) control() (func(string), func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paused, s.resumed
}

// Pause asks the agent to stop acting after the current primitive.
func (s *Session) Pause() {
	if paused, _ := s.control(); paused != nil {
		paused("paused by the person")
	}
}

// Resume lets the agent act again; note (may be empty) is passed on to the model.
func (s *Session) Resume(note string) {
	if _, resumed := s.control(); s.gate.resume(note) && resumed != nil {
		resumed()
	}
}

// Secret is the value of the secret name, matched without regard to case
// (DESKPILOT_SECRET_GITHUB is type_secret("GITHUB") and type_secret("github")); an
// exact match wins over one in another case.
func (a *Agent) Secret(name string) (string, bool) {
	if v, ok := a.Secrets[name]; ok {
		return v, true
	}
	for k, v := range a.Secrets {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// Stop cancels the run: the model stream, the script and any wait end at once, and
// held keys and buttons are released. The trace stays complete.
func (s *Session) Stop() { s.cancel() }

// Done is closed when the run has ended and its trace is written.
func (s *Session) Done() <-chan struct{} { return s.done }

// Result is how the run ended; valid once Done is closed.
func (s *Session) Result() Finished {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.result
}

// Start begins a run in its own goroutine.
func (a *Agent) Start(ctx context.Context, task string, h Hooks) *Session {
	return a.start(ctx, task, h, nil)
}

// start begins a run, a follow-up when f is not nil.
func (a *Agent) start(ctx context.Context, task string, h Hooks, f *followUp) *Session {
	ctx, cancel := context.WithCancel(ctx)
	s := &Session{cancel: cancel, gate: newGate(), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		defer cancel()
		res := a.run(ctx, task, h, s, f)
		s.mu.Lock()
		s.result = res
		s.mu.Unlock()
	}()
	return s
}

// Run runs a task to its end and returns how it ended.
func (a *Agent) Run(ctx context.Context, task string, h Hooks) Finished {
	s := a.Start(ctx, task, h)
	<-s.Done()
	return s.Result()
}

func (a *Agent) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

func (a *Agent) log() *slog.Logger {
	if a.Log != nil {
		return a.Log
	}
	return slog.New(slog.DiscardHandler)
}

// run is the whole of one run: set-up, steps, and the end.
func (a *Agent) run(ctx context.Context, task string, h Hooks, s *Session, f *followUp) Finished {
	r, err := a.newRun(ctx, task, h, s, nil, f)
	if err != nil {
		if f != nil && f.code != nil {
			_ = f.code.Close()
		}
		fin := Finished{Outcome: Failed, Error: err.Error()}
		if errors.Is(err, context.Canceled) {
			fin.Outcome, fin.Error = Cancelled, ""
		}
		if h.Event != nil {
			h.Event(fin)
		}
		return fin
	}
	fin := r.loop(ctx)
	r.finish(fin)
	return fin
}

// StepLimitAnswer is the error text of a run that hit its step limit.
const StepLimitAnswer = "reached the step limit"

// errStop is what a finished step returns to end the loop.
var errStop = errors.New("stop")

// observation is what one step produced for the model.
type observation struct {
	text     string     // "" = the screenshot alone
	attached []llm.Part // images tools attached during the step
	shot     llm.Part   // the screenshot after the step
}

// describeActions renders the action log for the observation.
func describeActions(acts []actions.Record) string {
	if len(acts) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Actions performed:\n")
	for _, x := range acts {
		fmt.Fprintf(&b, "- %s(%s)", x.Name, x.Args)
		if x.Screen != nil {
			fmt.Fprintf(&b, " at screen (%d, %d)", x.Screen[0], x.Screen[1])
		}
		switch {
		case x.Error != "":
			fmt.Fprintf(&b, ": failed: %s", x.Error)
		case x.Result != "":
			fmt.Fprintf(&b, ": %s", x.Result)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
