package trace

import (
	"deskpilot/actions"
	"errors"

	_ "embed"
	"fmt"
	"html/template"
	_ "image/jpeg" // frame sizes of JPEG frames (a model sent JPEG)
	_ "image/png"  // frame sizes of PNG frames
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "golang.org/x/image/webp" // frame sizes of WebP frames (a model sent WebP)
)

//go:embed report.tmpl
var reportTemplate string

// ReportOption configures Report.
type ReportOption func(*reportConfig)

type reportConfig struct {
	inline bool
}

// InlineFrames embeds every frame in the report as a base64 data URL, so the one file
// shows everything without its folder (it gets large: ~0.3–1 MB per frame). By default
// frames are relative links to frames/NNNN.png.
func InlineFrames() ReportOption {
	return func(c *reportConfig) { c.inline = true }
}

// Report writes a self-contained HTML page for t: a header (task, model, outcome,
// answer, steps, tokens, elapsed) and one card per step with the frame the model saw,
// the step's actions drawn over it, the thought, code, actions, observation, timings
// and tokens. It uses no script and no external resource; everything from the trace is
// escaped, since model output and screen text are untrusted. Frames are read from
// t.Dir for their size (and content, with InlineFrames); missing frames are tolerated.
func Report(t *Trace, w io.Writer, opts ...ReportOption) error {
	var c reportConfig
	for _, o := range opts {
		o(&c)
	}
	tmpl, err := template.New("report").Funcs(template.FuncMap{
		"add": func(a, b int) int { return a + b },
	}).Parse(reportTemplate)
	if err != nil {
		return fmt.Errorf("trace: report: %w", err)
	}
	b := reportBuilder{t: t, cfg: c}
	if err := tmpl.Execute(w, b.view()); err != nil {
		return fmt.Errorf("trace: report: %w", err)
	}
	return nil
}

// reportView is what the template renders.
type reportView struct {
	Task, Model, BaseURL, CoordMode, AppVersion, HostOS string
	ID                                                  string // RunID of the trace folder
	Started, Elapsed, Tokens, Screen, ImageSize         string
	Outcome, OutcomeClass, Answer, Error                string
	Steps, Skipped                                      int
	Unfinished, Truncated                               bool
	Cards                                               []cardView
	Final                                               *frameView // the last observation's frame
}

// cardView is one step card.
type cardView struct {
	Number             int
	Source             string // "from the script", "from the model" (a replay's steps), or ""
	Class              string // "", "err" or "done"
	Offset             string // time since the run started
	Frame              *frameView
	Thought, Code      string
	Actions            []actionView
	Observation        string
	ObsError           string
	Changed            string
	Attachments        []*frameView
	Answer             string
	Timing, Tokens     string
	Notes              []string
	NoReply, NoObserve bool
}

// actionView is one row of a card's action table.
type actionView struct {
	N                                   int
	Name, Args, Where, Duration, Result string
	Error                               string
}

// frameView is an image with its SVG overlay.
type frameView struct {
	Src     any    // string (relative path) or template.URL (data URL)
	Href    string // link to the full image; "" when inlined
	Missing bool
	Caption string
	W, H    int // overlay viewBox: the image's pixel size
	Marks   []markView
}

// framePath converts a frame path from a trace into a local path inside the trace
// folder. It refuses absolute paths, "..", backslashes and colons (URL schemes), so a
// hostile trace cannot make a report or an export read or link anything else.
func framePath(rel string) (string, bool) {
	if rel == "" || strings.ContainsAny(rel, `:\`) {
		return "", false
	}
	local := filepath.FromSlash(rel)
	return local, filepath.IsLocal(local)
}

// reportBuilder turns a Trace into a reportView.
type reportBuilder struct {
	t   *Trace
	cfg reportConfig
}

func (b *reportBuilder) view() reportView {
	t := b.t
	s := t.Start
	u := t.Usage()
	v := reportView{
		Task: s.Task, Model: s.Model, BaseURL: s.BaseURL, CoordMode: s.CoordMode, ID: RunID(t.Dir),
		Started: s.T.UTC().Format("2006-01-02 15:04:05 UTC"), AppVersion: s.AppVersion,
		HostOS: s.HostOS, Steps: t.StepCount(), Answer: t.Answer(),
		Elapsed:   formatDuration(t.Elapsed()),
		Tokens:    fmt.Sprintf("%s in · %s out", thousands(u.In), thousands(u.Out)),
		Truncated: t.Truncated, Skipped: t.Skipped, Unfinished: t.End == nil,
		Outcome: "unfinished", OutcomeClass: "unfinished",
	}
	if s.Screen != nil {
		v.Screen = fmt.Sprintf("%d×%d at (%d, %d)", s.Screen.W, s.Screen.H, s.Screen.X, s.Screen.Y)
	}
	if s.Image != nil {
		v.ImageSize = fmt.Sprintf("%d×%d", s.Image.W, s.Image.H)
	}
	if t.End != nil {
		v.Outcome, v.OutcomeClass, v.Error = t.End.Outcome, t.End.Outcome, t.End.Error
		if !knownOutcome(v.Outcome) {
			v.OutcomeClass = "unfinished"
		}
	}
	for _, st := range t.Steps {
		if st.Number == 0 && onlyObservations(st) {
			continue // the initial screenshot: shown as step 1's frame
		}
		v.Cards = append(v.Cards, b.card(st))
	}
	if n := len(t.Steps); n > 0 {
		if o := t.Steps[n-1].Observation; o != nil && o.Frame != "" {
			v.Final = b.frame(o.Frame, nil)
		}
	}
	return v
}

func knownOutcome(o string) bool {
	switch o {
	case OutcomeAnswered, OutcomeFailed, OutcomeMaxSteps, OutcomeCancelled:
		return true
	}
	return false
}

func onlyObservations(s Step) bool {
	for _, e := range s.Events {
		if e.Type != TypeObservation {
			return false
		}
	}
	return true
}

// card builds the card of one step.
func (b *reportBuilder) card(s Step) cardView {
	c := cardView{
		Number: s.Number, Thought: s.Thought, Code: s.Code, Answer: s.Answer,
		Offset:  "+" + formatDuration(s.Begin.Sub(b.t.Start.T)),
		NoReply: s.Reply == "" && s.Number > 0 && s.Source != SourceScript, NoObserve: s.Observation == nil && s.Number > 0,
	}
	switch s.Source {
	case SourceScript:
		c.Source = "from the script"
	case SourceModel:
		c.Source = "from the model"
	}
	if c.Thought == "" && c.Code == "" {
		c.Thought = s.Reply
	}
	if s.Frame != "" {
		if c.Frame = b.frame(s.Frame, s.Actions); c.Frame != nil {
			c.Frame.Caption = "the screen the model saw"
			if n := len(c.Frame.Marks); n > 0 {
				c.Frame.Caption += fmt.Sprintf(" · %d action(s) marked", n)
			}
		}
	}
	var actMS, settle int64
	for i, a := range s.Actions {
		c.Actions = append(c.Actions, actionRow(i+1, a))
		actMS += a.Duration.Milliseconds()
		if a.Error != "" {
			c.Class = "err"
		}
	}
	if o := s.Observation; o != nil {
		c.Observation, c.ObsError, settle = o.Text, o.Error, o.SettleMS
		c.Changed = "screen unchanged"
		if o.Changed {
			c.Changed = "screen changed"
		}
		for _, a := range o.Attachments {
			if f := b.frame(a, nil); f != nil {
				f.Caption = "attached: " + a
				c.Attachments = append(c.Attachments, f)
			}
		}
		if o.Error != "" {
			c.Class = "err"
		}
	}
	if c.Answer != "" && c.Class == "" {
		c.Class = "done"
	}
	c.Notes = notes(s, b.t.Start.T)
	c.Timing = timing(s, actMS, settle)
	if s.Usage != (Usage{}) {
		c.Tokens = fmt.Sprintf("%s in · %s out", thousands(s.Usage.In), thousands(s.Usage.Out))
	}
	return c
}

// actionRow formats one action for the table.
func actionRow(n int, a actions.Record) actionView {
	r := actionView{N: n, Name: a.Name, Args: a.Args, Result: a.Result, Error: a.Error}
	switch {
	case a.Model != nil && a.Screen != nil:
		r.Where = fmt.Sprintf("(%s, %s) → (%d, %d)", num(a.Model[0]), num(a.Model[1]), a.Screen[0], a.Screen[1])
	case a.Screen != nil:
		r.Where = fmt.Sprintf("(%d, %d)", a.Screen[0], a.Screen[1])
	}
	if a.To != nil {
		r.Where += fmt.Sprintf(" ⇢ (%d, %d)", a.To[0], a.To[1])
	}
	if a.Duration >= time.Millisecond {
		r.Duration = formatDuration(a.Duration.Truncate(time.Millisecond))
	}
	return r
}

// notes lists the step's pauses, resumes and events of unknown types.
func notes(s Step, start time.Time) []string {
	var out []string
	for _, e := range s.Events {
		at := "+" + formatDuration(e.T.Sub(start))
		switch e.Type {
		case TypePaused:
			out = append(out, fmt.Sprintf("Paused at %s: %s", at, orDash(e.Reason)))
		case TypeResumed:
			out = append(out, fmt.Sprintf("Resumed at %s: %s", at, orDash(e.Reason)))
		case TypeStepStart, TypeModelOutput, TypeCode, TypeAction, TypeObservation, TypeFinalAnswer:
		default:
			out = append(out, fmt.Sprintf("Event %q at %s", e.Type, at))
		}
	}
	return out
}

// timing summarizes where the step's time went.
func timing(s Step, actMS, settleMS int64) string {
	var parts []string
	add := func(label string, ms int64) {
		if ms > 0 {
			parts = append(parts, label+" "+formatDuration(time.Duration(ms)*time.Millisecond))
		}
	}
	add("model", s.ModelMS)
	add("actions", actMS)
	add("settle", settleMS)
	if d := s.Finish.Sub(s.Begin); d > 0 {
		parts = append(parts, "step "+formatDuration(d))
	}
	return strings.Join(parts, " · ")
}

// frame builds the view of one frame with the actions drawn on it; nil when the path
// is not a plain path inside the trace folder (a hostile trace cannot point outside).
func (b *reportBuilder) frame(rel string, acts []actions.Record) *frameView {
	local, ok := framePath(rel)
	if !ok {
		return nil
	}
	f := &frameView{Src: rel, Href: rel}
	if b.t.Dir != "" {
		// Through the trace folder only: a link in it never reads a file outside.
		if w, h, err := FrameSize(b.t.Dir, rel); err == nil {
			f.W, f.H = w, h
		} else if errors.Is(err, os.ErrNotExist) || errors.Is(err, ErrUnsafeFrame) {
			f.Missing = true
		}
		if b.cfg.inline && !f.Missing {
			if data, err := ReadFrame(b.t.Dir, rel); err == nil {
				f.Src, f.Href = template.URL(dataURL(local, data)), ""
			}
		}
	}
	scr := b.t.Start.Screen
	if f.W == 0 && scr != nil {
		f.W, f.H = scr.W, scr.H
	}
	if f.W > 0 && f.H > 0 {
		f.marks(acts, scr)
	}
	return f
}
