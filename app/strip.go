package app

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// stripWidth is the width of the compact strip in Fyne units.
const stripWidth = 720

// strip is the compact window content while a run is active: state, the latest
// thing the agent did, Expand, Pause/Resume and Stop. Fyne cannot move windows, so
// the window only shrinks; the window manager keeps its place.
type strip struct {
	u        *UI
	content  fyne.CanvasObject
	activity *widget.Activity
	state    *widget.Label
	status   *widget.Label
	line     *widget.Label
	pause    *widget.Button
	stop     *widget.Button
	bg       *box
}

func newStrip(u *UI) *strip {
	s := &strip{u: u}
	s.activity = widget.NewActivity()
	s.state = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	s.status = widget.NewLabel("")
	s.status.Truncation = fyne.TextTruncateEllipsis
	s.line = widget.NewLabel("")
	s.line.Truncation = fyne.TextTruncateEllipsis
	s.line.Importance = widget.LowImportance
	expand := widget.NewButtonWithIcon("", theme.ViewFullScreenIcon(), func() { u.setCompact(false) })
	s.pause = widget.NewButtonWithIcon("Pause", theme.MediaPauseIcon(), u.togglePause)
	s.stop = widget.NewButtonWithIcon("Stop", theme.MediaStopIcon(), u.stopRun)
	s.stop.Importance = widget.DangerImportance
	buttons := container.NewHBox(expand, s.pause, s.stop)
	top := container.NewBorder(nil, nil, container.NewHBox(s.activity, s.state), nil, s.status)
	body := container.NewBorder(nil, nil, nil, container.NewCenter(buttons), container.NewVBox(top, s.line))
	s.bg = newBox(theme.ColorNameBackground, 0, false, container.NewPadded(body))
	s.content = s.bg
	return s
}

// refresh shows the run model in the strip.
func (s *strip) refresh() {
	m := &s.u.model
	s.state.SetText(m.stateText())
	s.status.SetText(m.statusLine(s.u.now(), s.u.preset()))
	s.line.SetText(stripLine(m))
	switch {
	case m.Paused:
		s.activity.Stop()
		s.activity.Hide() // a stopped indicator still draws a dot
		s.pause.SetText("Resume")
		s.pause.SetIcon(theme.MediaPlayIcon())
		s.pause.Importance = widget.HighImportance
		s.line.Importance = widget.WarningImportance
		s.bg.setFill(theme.ColorNameWarning, 40, true)
	default:
		if s.u.run != nil || s.u.pending != 0 {
			s.activity.Show()
			s.activity.Start()
		} else {
			s.activity.Stop()
			s.activity.Hide()
		}
		s.pause.SetText("Pause")
		s.pause.SetIcon(theme.MediaPauseIcon())
		s.pause.Importance = widget.MediumImportance
		s.line.Importance = widget.LowImportance
		s.bg.setFill(theme.ColorNameBackground, 0, false)
	}
	s.pause.Refresh()
	s.line.Refresh()
}

// stripLine is the latest thing the agent did, in one line.
func stripLine(m *runModel) string {
	if m.Paused {
		return "You took over — the agent is paused. Resume when you are done."
	}
	if len(m.Steps) == 0 {
		return "Task: " + oneLine(m.Task)
	}
	s := m.Steps[len(m.Steps)-1]
	if n := len(s.Actions); n > 0 && !s.Observed {
		return fmt.Sprintf("%d: %s", s.N, actionText(s.Actions[n-1]))
	}
	if th := s.Thought(); th != "" {
		return fmt.Sprintf("%d: %s", s.N, lastLine(th))
	}
	return "Task: " + oneLine(m.Task)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return oneLine(lines[len(lines)-1])
}

// setCompact switches between the full window and the strip; on X11 the strip
// goes to the bottom-right corner and stays above other windows (see placer).
func (u *UI) setCompact(on bool) { u.compactThen(on, nil) }

// compactThen is setCompact that calls then, on the Fyne goroutine, once the strip
// is in place: at once when there is nothing to wait for, later when the window
// manager moves the window.
func (u *UI) compactThen(on bool, then func()) {
	if then == nil {
		then = func() {}
	}
	if on == u.compact {
		then()
		return
	}
	u.compact = on
	if on {
		u.bigSize = u.win.Canvas().Size()
		u.st.refresh()
		u.win.SetContent(u.st.content)
		min := u.st.content.MinSize()
		size := fyne.NewSize(max(stripWidth, min.Width), min.Height)
		u.win.Resize(size)
		if !u.place.toStrip(u.win, size, func() { u.do(then) }) {
			then()
		}
		return
	}
	defer then()
	size := u.bigSize
	if size.Width < 400 || size.Height < 300 {
		size = fyne.NewSize(fullWidth, fullHeight)
	}
	// Resize first: setting the bigger content first makes the driver queue a grow
	// to the content's minimum size, which would land after (and undo) the resize.
	u.win.Resize(size)
	u.win.SetContent(u.tabs)
	u.place.toFull(u.win)
	if u.tabs.Selected() == u.runTab {
		u.win.Canvas().Focus(u.rv.task) // ready for the next task
	}
	u.rv.scrollToEnd()
}
