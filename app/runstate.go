package app

import (
	"fmt"
	"image"
	"strings"
	"time"

	"deskpilot/actions"
	"deskpilot/agent"
	"deskpilot/agent/dialect"
	"deskpilot/internal/config"
)

// stepState is what the timeline knows about one step. It is plain data, fed by
// events and read by the widgets; it never touches a widget itself.
type stepState struct {
	N         int
	Started   time.Time
	Reply     string // model reply so far (streamed), then the whole reply
	Replied   bool   // ModelReplied arrived
	Code      string // parsed code block
	CodeSet   bool   // CodeParsed arrived
	Actions   []actions.Record
	Obs       string // observation text sent to the model
	Err       string // code error of the step
	Changed   bool
	Observed  bool // Observed arrived
	Frame     *image.RGBA
	Ended     string // set when the run ended before the step did: "stopped", "failed", …
	Usage     agent.Usage
	ModelTime time.Duration
	ExecTime  time.Duration
}

// Thought is the reply without its code blocks (dialect.SplitReply, also while the
// reply streams).
func (s *stepState) Thought() string {
	th, _ := dialect.SplitReply(s.Reply)
	return th
}

// ShownCode is the parsed code, or while streaming the code typed so far.
func (s *stepState) ShownCode() string {
	if s.CodeSet {
		return s.Code
	}
	_, code := dialect.SplitReply(s.Reply)
	return code
}

// Failed reports whether the step had an error or a failed action.
func (s *stepState) Failed() bool {
	if s.Err != "" {
		return true
	}
	for _, a := range s.Actions {
		if a.Error != "" {
			return true
		}
	}
	return false
}

// runPhase says what a run is doing now.
type runPhase int

const (
	phaseIdle runPhase = iota
	phaseStarting
	phaseThinking
	phaseActing
	phasePaused
	phaseWaiting
	phaseDone
)

// runModel is the state of the current run, fed by agent events in order. It is
// not safe for concurrent use: the UI applies events on the Fyne goroutine.
type runModel struct {
	Task, Model, CoordMode, TraceDir string
	MaxSteps                         int
	Started                          time.Time
	Steps                            []*stepState
	Usage                            agent.Usage
	Paused                           bool
	PauseReason                      string
	PauseAsked                       bool // the person pressed Pause; the next Paused is theirs
	TookOver                         bool // paused because the person used the desktop
	Waiting                          int  // questions and approvals open in the UI
	Stopping                         bool // Stop was pressed; Finished has not come yet
	Vanished                         bool // the run ended without a Finished event
	Done                             bool
	Result                           agent.Finished
	Frame                            *image.RGBA // newest frame the model saw
	FrameStep                        int         // step of Frame
	Screen                           *image.RGBA // the full-resolution screen after FrameStep; may be nil
	Display                          image.Rectangle
}

// step returns step n, creating it (and any gap before it) when needed.
func (m *runModel) step(n int) *stepState {
	if n < 1 {
		n = 1
	}
	for len(m.Steps) < n {
		m.Steps = append(m.Steps, &stepState{N: len(m.Steps) + 1})
	}
	return m.Steps[n-1]
}

// apply folds one event into the model. It returns the step the event touched, or
// nil for run-level events.
func (m *runModel) apply(e agent.Event) *stepState {
	switch e := e.(type) {
	case agent.RunStarted:
		*m = runModel{Task: e.Task, Model: e.Model, CoordMode: e.CoordMode, TraceDir: e.TraceDir,
			MaxSteps: e.MaxSteps, Started: e.Time, Display: e.Screen, Waiting: m.Waiting}
	case agent.StepStarted:
		s := m.step(e.Step)
		s.Started = e.Time
		if e.Max > 0 {
			m.MaxSteps = e.Max
		}
		return s
	case agent.TextDelta:
		s := m.step(e.Step)
		if e.Reset {
			s.Reply = ""
		}
		s.Reply += e.Text
		return s
	case agent.ModelReplied:
		s := m.step(e.Step)
		s.Reply, s.Replied, s.Usage, s.ModelTime = e.Text, true, e.Usage, e.Duration
		m.Usage.Input += e.Usage.Input
		m.Usage.Output += e.Usage.Output
		return s
	case agent.CodeParsed:
		s := m.step(e.Step)
		s.Code, s.CodeSet = e.Code, true
		return s
	case agent.ActionDone:
		s := m.step(e.Step)
		s.Actions = append(s.Actions, e.Action)
		return s
	case agent.Observed:
		if e.Step < 1 { // the screen when the run started: no step of its own
			if e.Frame != nil {
				m.Frame, m.FrameStep, m.Screen = e.Frame, 0, e.Screen
			}
			return nil
		}
		s := m.step(e.Step)
		s.Obs, s.Err, s.Changed, s.ExecTime, s.Observed = e.Text, e.Error, e.Changed, e.Duration, true
		if e.Frame != nil {
			s.Frame, m.Frame, m.FrameStep, m.Screen = e.Frame, e.Frame, e.Step, e.Screen
		}
		return s
	case agent.Paused:
		m.Paused, m.PauseReason, m.TookOver, m.PauseAsked = true, e.Reason, !m.PauseAsked, false
	case agent.Resumed:
		m.Paused, m.PauseReason, m.TookOver = false, "", false
	case agent.Finished:
		m.Done, m.Paused, m.Stopping, m.Result = true, false, false, e
		if n := len(m.Steps); n > 0 && (!m.Steps[n-1].Replied || !m.Steps[n-1].Observed) {
			m.Steps[n-1].Ended = endedText(e.Outcome)
		}
		if e.Usage != (agent.Usage{}) {
			m.Usage = e.Usage
		}
		if e.TraceDir != "" {
			m.TraceDir = e.TraceDir
		}
	}
	return nil
}

// modelFailed reports whether the run failed before the model answered once.
func (m *runModel) modelFailed() bool {
	if !m.Done || m.Vanished || m.Result.Outcome != agent.Failed || m.Result.Error == "" {
		return false
	}
	for _, s := range m.Steps {
		if s.Replied || s.Reply != "" {
			return false
		}
	}
	return true
}

// phase is what the run is doing now.
func (m *runModel) phase() runPhase {
	switch {
	case m.Done:
		return phaseDone
	case m.Waiting > 0:
		return phaseWaiting
	case m.Paused:
		return phasePaused
	case len(m.Steps) == 0:
		return phaseStarting
	}
	last := m.Steps[len(m.Steps)-1]
	if last.Replied && !last.Observed {
		return phaseActing
	}
	return phaseThinking
}

// elapsed is the run time so far, or the whole run time once finished.
func (m *runModel) elapsed(now time.Time) time.Duration {
	if m.Done && m.Result.Elapsed > 0 {
		return m.Result.Elapsed
	}
	if m.Started.IsZero() || now.Before(m.Started) {
		return 0
	}
	return now.Sub(m.Started)
}

// stateText is the one-word state shown first in the status bar.
func (m *runModel) stateText() string {
	if m.Stopping && !m.Done {
		return "Stopping…"
	}
	switch m.phase() {
	case phaseStarting:
		return "Starting"
	case phaseThinking:
		return "Thinking"
	case phaseActing:
		return "Acting"
	case phasePaused:
		return "Paused"
	case phaseWaiting:
		return "Waiting for you"
	case phaseDone:
		return outcomeText(m.Result.Outcome)
	}
	return "Ready"
}

// endedText is what a step card says about a step the run's end cut short.
func endedText(o agent.Outcome) string {
	switch o {
	case agent.Cancelled:
		return "stopped"
	case agent.Failed:
		return "failed"
	case agent.MaxSteps:
		return "step limit reached"
	}
	return "ended"
}

func outcomeText(o agent.Outcome) string {
	switch o {
	case agent.Answered:
		return "Answered"
	case agent.Failed:
		return "Failed"
	case agent.MaxSteps:
		return "Step limit reached"
	case agent.Cancelled:
		return "Stopped"
	}
	return "Finished"
}

// statusLine is "Step 3 / 30 · 0:42 · 12.3k in · 456 out · $0.04"; the cost part
// appears only when p has prices.
func (m *runModel) statusLine(now time.Time, p *config.Preset) string {
	n := len(m.Steps)
	if m.Done && m.Result.Steps > 0 {
		n = m.Result.Steps
	}
	parts := []string{fmt.Sprintf("Step %d / %d", n, m.MaxSteps), clock(m.elapsed(now)),
		tokens(m.Usage.Input) + " in", tokens(m.Usage.Output) + " out"}
	if c, ok := cost(m.Usage, p); ok {
		parts = append(parts, c)
	}
	return strings.Join(parts, "  ·  ")
}

// cost estimates the price of usage with p's prices (USD per 1M tokens).
func cost(u agent.Usage, p *config.Preset) (string, bool) {
	if p == nil || (p.PriceIn <= 0 && p.PriceOut <= 0) {
		return "", false
	}
	usd := float64(u.Input)*p.PriceIn/1e6 + float64(u.Output)*p.PriceOut/1e6
	if usd < 0.01 {
		return fmt.Sprintf("$%.4f", usd), true
	}
	return fmt.Sprintf("$%.2f", usd), true
}

// clock formats d as m:ss or h:mm:ss.
func clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	s = max(s, 0)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// tokens formats a token count compactly: 950, 12.3k, 1.2M.
func tokens(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// seconds formats a duration for a step card: 850 ms, 3.2 s, 1m05s.
func seconds(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// actionText is one line of the action list: "click(540, 320) → (1080, 640) · 12 ms".
func actionText(a actions.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(%s)", a.Name, a.Args)
	if a.Screen != nil {
		fmt.Fprintf(&b, " → screen (%d, %d)", a.Screen[0], a.Screen[1])
		if a.To != nil {
			fmt.Fprintf(&b, "–(%d, %d)", a.To[0], a.To[1])
		}
	}
	if a.Duration > 0 {
		b.WriteString(" · " + seconds(a.Duration))
	}
	switch {
	case a.Error != "":
		b.WriteString(" — " + a.Error)
	case a.Result != "":
		b.WriteString(" — " + a.Result)
	}
	return b.String()
}

// plural is "1 step", "2 steps": n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// ms converts milliseconds to a Duration.
func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
