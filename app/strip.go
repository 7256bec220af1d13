package app

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// stripWidth is the width of the compact strip in Fyne units.
const stripWidth = 720

// noteTime is how long the strip shows a note (it moved out of the way).
const noteTime = 4 * time.Second

// strip is the compact window content while a run is active: the state, what
// the agent thinks and does now (as the peers' mini panels), Expand,
// Pause/Resume and Stop, a note when it moved out of the agent's way, and the
// question or approval the agent waits for.
type strip struct {
	u        *UI
	content  fyne.CanvasObject
	activity *widget.Activity
	state    *widget.Label
	status   *widget.Label
	thought  *widget.Label
	action   *widget.Label
	expand   *widget.Button
	pause    *widget.Button
	stop     *widget.Button
	note     *widget.Label
	noteBox  *box
	prompt   *fyne.Container
	promptBg *box
	bg       *box
	noteGen  int // tells a note's timer from a newer note's
}

func newStrip(u *UI) *strip {
	s := &strip{u: u}
	s.activity = widget.NewActivity()
	s.state = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.status = widget.NewLabel("")
	s.status.Truncation = fyne.TextTruncateEllipsis
	s.thought = widget.NewLabel("")
	s.thought.Truncation = fyne.TextTruncateEllipsis
	s.action = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	s.action.Truncation = fyne.TextTruncateEllipsis
	s.action.Importance = widget.LowImportance
	s.expand = widget.NewButtonWithIcon("", theme.ViewFullScreenIcon(), func() { u.setCompact(false) })
	s.pause = widget.NewButtonWithIcon("Pause", theme.MediaPauseIcon(), u.togglePause)
	s.stop = widget.NewButtonWithIcon("Stop", theme.MediaStopIcon(), u.stopRun)
	s.stop.Importance = widget.DangerImportance
	s.note = widget.NewLabel("")
	s.noteBox = newBox(theme.ColorNamePrimary, 40, false, tight(s.note))
	s.noteBox.Hide()
	s.prompt = container.NewStack()
	s.promptBg = tinted(theme.ColorNameWarning, container.NewPadded(s.prompt))
	s.promptBg.Hide()

	buttons := container.NewHBox(s.expand, s.pause, s.stop)
	top := container.NewBorder(nil, nil, container.NewHBox(s.activity, s.state), buttons, s.status)
	lines := tight(container.NewVBox(s.thought, s.action))
	body := container.NewVBox(top, lines, s.noteBox, s.promptBg)
	s.bg = newBox(theme.ColorNameBackground, 0, false, container.NewPadded(body))
	s.content = s.bg
	return s
}

// refresh shows the run model in the strip.
func (s *strip) refresh() {
	m := &s.u.model
	s.state.SetText(m.stateText())
	s.status.SetText(m.statusLine(s.u.now(), s.u.preset()))
	th, act := stripLines(m)
	s.thought.SetText(th)
	s.action.SetText(act) // shown even when empty: the strip keeps its height
	s.stop.Enable()
	if m.Stopping {
		s.stop.Disable()
	}
	switch {
	case m.Paused:
		s.activity.Stop()
		s.activity.Hide() // a stopped indicator still draws a dot
		s.pause.SetText("Resume")
		s.pause.SetIcon(theme.MediaPlayIcon())
		s.pause.Importance = widget.HighImportance
		s.thought.Importance = widget.WarningImportance
		s.bg.setFill(theme.ColorNameWarning, 40, true)
	default:
		if (s.u.run != nil || s.u.pending != 0) && m.Waiting == 0 && !m.Stopping {
			s.activity.Show()
			s.activity.Start()
		} else {
			s.activity.Stop()
			s.activity.Hide()
		}
		s.pause.SetText("Pause")
		s.pause.SetIcon(theme.MediaPauseIcon())
		s.pause.Importance = widget.MediumImportance
		s.thought.Importance = widget.MediumImportance
		s.bg.setFill(theme.ColorNameBackground, 0, false)
	}
	s.pause.Refresh()
	s.thought.Refresh()
}

// stripLines are the strip's two lines: what the agent thinks (or the state
// of the run) and the action it ran last in the current step ("" for none).
func stripLines(m *runModel) (thought, action string) {
	switch {
	case m.Paused && m.TookOver:
		return "You took over — the agent is paused. Resume when you are done.", ""
	case m.Paused:
		return "Paused — the agent waits until you resume.", ""
	case len(m.Steps) == 0:
		return "Task: " + oneLine(m.Task), ""
	}
	st := m.Steps[len(m.Steps)-1]
	thought = fmt.Sprintf("Step %d: ", st.N)
	switch th := st.Thought(); {
	case th != "":
		thought += lastLine(th)
	case !st.Replied:
		thought += "thinking…"
	default:
		thought += "(no thought given)"
	}
	switch code := st.ShownCode(); {
	case len(st.Actions) > 0:
		action = actionText(st.Actions[len(st.Actions)-1])
	case code != "" && !st.Replied:
		action = lastLine(code) // being written
	case code != "":
		action = firstLine(code) // about to run
	}
	return thought, action
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return oneLine(line)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return oneLine(lines[len(lines)-1])
}

// setPrompt shows p's panel in the strip; nil removes it.
func (s *strip) setPrompt(p *prompt) {
	if p == nil {
		s.prompt.Objects = nil
		s.promptBg.Hide()
		return
	}
	s.prompt.Objects = []fyne.CanvasObject{s.u.stripPrompt(p)}
	s.prompt.Refresh()
	s.promptBg.Show()
	if p.entry != nil {
		s.u.win.Canvas().Focus(p.entry)
	}
}

// showNote shows text under the strip's lines for a few seconds.
func (s *strip) showNote(text string) {
	s.noteGen++
	gen := s.noteGen
	s.note.SetText(text)
	s.noteBox.Show()
	s.u.fitStrip()
	time.AfterFunc(noteTime, func() {
		s.u.do(func() {
			if s.noteGen == gen {
				s.noteBox.Hide()
				s.u.fitStrip()
			}
		})
	})
}
