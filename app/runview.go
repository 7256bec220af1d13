package app

import (
	"deskpilot/internal/config"
	"fmt"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// customPreset is the picker entry for a model set up by hand in the settings.
// It stands for the preset named "custom" too, which the picker does not list
// again.
const customPreset = "Custom…"

// pickerNames are the model picker's entries: the presets, then Custom….
func pickerNames() []string {
	var names []string
	for _, p := range config.Presets() {
		if p.Name != "custom" {
			names = append(names, p.Name)
		}
	}
	return append(names, customPreset)
}

// pickerName is the picker entry of preset name ("" or "custom": Custom…).
func pickerName(name string) string {
	if p, ok := config.PresetByName(name); ok && p.Name != "custom" {
		return p.Name
	}
	return customPreset
}

// taskEntry is the multi-line task entry; Ctrl+Enter submits it.
type taskEntry struct {
	widget.Entry
	onRun func()
}

func newTaskEntry(onRun func()) *taskEntry {
	e := &taskEntry{onRun: onRun}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapWord
	e.SetMinRowsVisible(3)
	e.SetPlaceHolder("What should deskpilot do? e.g. \"Open the text editor and write a haiku about Go\"  —  Ctrl+Enter runs")
	e.ExtendBaseWidget(e)
	return e
}

// TypedShortcut runs the task on Ctrl+Enter and leaves other shortcuts to the entry.
func (e *taskEntry) TypedShortcut(s fyne.Shortcut) {
	if isCtrlEnter(s) {
		if e.onRun != nil {
			e.onRun()
		}
		return
	}
	e.Entry.TypedShortcut(s)
}

func isCtrlEnter(s fyne.Shortcut) bool {
	c, ok := s.(*desktop.CustomShortcut)
	return ok && c.Modifier == fyne.KeyModifierControl &&
		(c.KeyName == fyne.KeyReturn || c.KeyName == fyne.KeyEnter)
}

// runView is the Run tab: task entry and controls, live view, timeline, status.
type runView struct {
	u       *UI
	content fyne.CanvasObject

	task                      *taskEntry
	runBtn, pauseBtn, stopBtn *widget.Button
	picker                    *widget.Select
	modelInfo                 *widget.Label
	hint                      *widget.Label
	follow                    *widget.Check // the next task follows up the last answer

	banner       fyne.CanvasObject
	bannerTitle  *widget.Label
	bannerReason *widget.Label
	note         *widget.Entry

	live        *frameView
	liveEmpty   fyne.CanvasObject
	liveCaption *widget.Label
	liveActions *fyne.Container
	zoom        fyne.Window // the enlarged frame; nil when closed

	result   *resultPanel
	cards    []*stepCard
	timeline *fyne.Container
	scroll   *container.Scroll
	empty    fyne.CanvasObject

	scrollQueued bool

	activity  *widget.Activity
	state     *widget.Label
	status    *widget.Label
	reportBtn *widget.Button
	stripBtn  *widget.Button
}

func newRunView(u *UI) *runView {
	v := &runView{u: u}
	v.task = newTaskEntry(u.startRun)
	v.task.SetMinRowsVisible(2)
	v.runBtn = widget.NewButtonWithIcon("Run", theme.MediaPlayIcon(), u.startRun)
	v.runBtn.Importance = widget.HighImportance
	v.pauseBtn = widget.NewButtonWithIcon("Pause", theme.MediaPauseIcon(), u.togglePause)
	v.stopBtn = widget.NewButtonWithIcon("Stop", theme.MediaStopIcon(), u.stopRun)
	v.stopBtn.Importance = widget.DangerImportance
	v.pauseBtn.Disable()
	v.stopBtn.Disable()
	v.picker = widget.NewSelect(nil, v.pickPreset)
	v.modelInfo = widget.NewLabel("")
	v.modelInfo.Truncation = fyne.TextTruncateEllipsis
	v.modelInfo.Importance = widget.LowImportance
	v.hint = widget.NewLabel("")
	v.hint.Importance = widget.WarningImportance
	v.hint.Hide()
	v.follow = widget.NewCheck("Follow up on this answer (the model keeps the run's history)", nil)
	v.follow.Hide()
	v.refreshPicker()

	buttons := container.NewHBox(v.pauseBtn, v.stopBtn, v.runBtn)
	picker := container.NewGridWrap(fyne.NewSize(260, v.picker.MinSize().Height), v.picker)
	model := container.NewBorder(nil, nil, container.NewHBox(widget.NewLabel("Model"), picker), buttons, v.modelInfo)
	top := container.NewBorder(nil, container.NewVBox(model, v.follow, v.hint), nil, nil, v.task)

	v.buildBanner()
	v.buildLive()
	v.buildTimeline()
	v.buildStatus()

	split := container.NewHSplit(v.livePanel(), v.timelinePanel())
	split.Offset = 0.6
	header := container.NewVBox(container.NewPadded(top), v.banner)
	status := container.NewVBox(widget.NewSeparator(), v.statusBar())
	v.content = container.NewBorder(header, status, nil, nil, split)
	return v
}

func (v *runView) buildBanner() {
	title := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Importance = widget.WarningImportance
	v.bannerTitle = title
	v.bannerReason = widget.NewLabel("")
	v.bannerReason.Wrapping = fyne.TextWrapWord
	v.note = widget.NewEntry()
	v.note.SetPlaceHolder("Optional: tell the agent what you did")
	resume := widget.NewButtonWithIcon("Resume", theme.MediaPlayIcon(), func() { v.u.resumeRun() })
	resume.Importance = widget.HighImportance
	body := container.NewVBox(
		container.NewBorder(nil, nil, widget.NewIcon(theme.WarningIcon()), nil, title),
		v.bannerReason,
		container.NewBorder(nil, nil, nil, resume, v.note))
	v.banner = tinted(theme.ColorNameWarning, container.NewPadded(body))
	v.banner.Hide()
}

func (v *runView) buildLive() {
	v.live = newFrameView(v.enlarge)
	v.live.Hide()
	empty := widget.NewLabel("The screen as the model sees it appears here, with its last actions drawn on it.")
	empty.Wrapping = fyne.TextWrapWord
	empty.Alignment = fyne.TextAlignCenter
	empty.Importance = widget.LowImportance
	v.liveEmpty = container.NewCenter(container.NewGridWrap(fyne.NewSize(300, 80), empty))
	v.liveCaption = widget.NewLabel("")
	v.liveCaption.Importance = widget.LowImportance
	v.liveActions = container.NewVBox()
}

// livePanel is the screen the model saw, as large as the panel allows (the
// split between it and the timeline, and between it and the actions, can be
// dragged), over the actions of the last step.
func (v *runView) livePanel() fyne.CanvasObject {
	head := container.NewHBox(heading("What the model sees"), layout.NewSpacer(), v.liveCaption)
	screen := container.NewStack(panelBackground(), v.liveEmpty, v.live)
	acts := container.NewVScroll(tight(v.liveActions))
	acts.SetMinSize(fyne.NewSize(0, 60))
	bottom := container.NewBorder(caption("ACTIONS OF THE LAST STEP"), nil, nil, nil, acts)
	split := container.NewVSplit(screen, bottom)
	split.Offset = 0.82
	return container.NewPadded(container.NewBorder(head, nil, nil, nil, split))
}

func (v *runView) buildTimeline() {
	v.result = newResultPanel(v.u)
	v.timeline = container.NewVBox()
	msg := widget.NewLabel("Steps appear here as the agent works: what it thought, the code it ran, what happened.")
	msg.Wrapping = fyne.TextWrapWord
	msg.Importance = widget.LowImportance
	v.empty = msg
	v.timeline.Add(v.empty)
	v.scroll = container.NewVScroll(v.timeline)
}

func (v *runView) timelinePanel() fyne.CanvasObject {
	head := container.NewVBox(heading("Timeline"), v.result.content)
	return container.NewPadded(container.NewBorder(head, nil, nil, nil, v.scroll))
}

func (v *runView) buildStatus() {
	v.activity = widget.NewActivity()
	v.activity.Hide()
	v.state = widget.NewLabelWithStyle("Ready", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.status = widget.NewLabel("")
	v.reportBtn = widget.NewButtonWithIcon("Report", theme.DocumentIcon(), v.openReport)
	v.reportBtn.Importance = widget.LowImportance
	v.reportBtn.Hide()
	v.stripBtn = widget.NewButtonWithIcon("Compact (Esc)", theme.ViewRestoreIcon(), func() { v.u.setCompact(true) })
	v.stripBtn.Importance = widget.LowImportance
	v.stripBtn.Hide()
}

func (v *runView) statusBar() fyne.CanvasObject {
	left := container.NewHBox(container.NewStack(v.activity), v.state, v.status)
	return container.NewBorder(nil, nil, left, container.NewHBox(v.reportBtn, v.stripBtn))
}

// refreshPicker shows the active preset in the model picker.
func (v *runView) refreshPicker() {
	u := v.u
	names := pickerNames()
	v.picker.Options = names
	v.picker.OnChanged = nil
	v.picker.SetSelected(pickerName(u.cfg.Preset))
	v.picker.OnChanged = v.pickPreset
	switch {
	case !u.configured():
		v.modelInfo.SetText("no model configured — open Settings")
		v.modelInfo.Importance = widget.WarningImportance
	default:
		c := u.resolvedOrDefaults()
		info := fmt.Sprintf("%s at %s", c.Model, c.BaseURL)
		if c, err := u.resolved(); err == nil {
			info += " · dialect " + c.DialectNote()
			if c.HasGrounder() {
				info += " · grounder " + c.Grounder.Model
			}
		}
		v.modelInfo.SetText(info)
		v.modelInfo.Importance = widget.LowImportance
	}
	v.modelInfo.Refresh()
}

// pickPreset applies the chosen preset and saves it; Custom opens the settings.
func (v *runView) pickPreset(name string) {
	u := v.u
	if name == customPreset {
		if u.preset() != nil {
			c := u.fileCfg
			c.Preset = ""
			if err := u.saveConfig(c); err != nil {
				u.showError(err)
			}
		}
		u.sv.load()
		u.tabs.Select(u.settingsTab)
		return
	}
	for _, p := range config.Presets() {
		if p.Name == name {
			c, err := config.WithPreset(u.fileCfg, p.Name)
			if err == nil {
				err = u.saveConfig(c)
			}
			if err != nil {
				u.showError(err)
			}
			u.sv.load()
			return
		}
	}
}

// setHint shows a short warning under the task entry; "" hides it.
func (v *runView) setHint(s string) {
	v.hint.SetText(s)
	if s == "" {
		v.hint.Hide()
	} else {
		v.hint.Show()
	}
}

// reset clears the live view and timeline for a new run.
func (v *runView) reset() {
	v.cards = nil
	v.timeline.Objects = []fyne.CanvasObject{v.empty}
	v.timeline.Refresh()
	v.live.setImage(nil)
	v.live.Hide()
	v.liveEmpty.Show()
	v.liveCaption.SetText("")
	v.liveActions.RemoveAll()
	v.result.hide()
	v.reportBtn.Hide()
	v.banner.Hide()
}

// updateStep renders step s, adding its card when new.
func (v *runView) updateStep(s *stepState) {
	for len(v.cards) < s.N {
		c := newStepCard(v.u, func() { growTo(v.scroll) })
		if len(v.cards) == 0 {
			v.timeline.Objects = nil
		}
		v.cards = append(v.cards, c)
		v.timeline.Add(c.content)
	}
	v.cards[s.N-1].update(s)
	v.scrollToEnd()
	if s.N == len(v.u.model.Steps) {
		v.updateLiveActions(s)
	}
}

// scrollToEnd shows the newest step; it scrolls again once the new content has
// been laid out (wrapped text grows after its first layout).
func (v *runView) scrollToEnd() {
	v.scroll.ScrollToBottom()
	if !v.scrollQueued {
		v.scrollQueued = true
		v.u.do(func() {
			v.scrollQueued = false
			v.scroll.ScrollToBottom()
		})
	}
}

// updateLive shows the newest frame the model saw.
func (v *runView) updateLive() {
	m := &v.u.model
	if m.Frame == nil {
		return
	}
	v.live.setImage(m.Frame)
	v.live.Show()
	v.liveEmpty.Hide()
	v.liveCaption.SetText(fmt.Sprintf("after step %d  ·  %d×%d px  ·  click to enlarge", m.FrameStep, m.Frame.Bounds().Dx(), m.Frame.Bounds().Dy()))
	if v.zoom != nil {
		v.showZoom()
	}
}

func (v *runView) updateLiveActions(s *stepState) {
	v.liveActions.RemoveAll()
	if len(s.Actions) == 0 {
		msg := "no actions yet"
		if s.Observed || v.u.model.Done {
			msg = "no desktop actions"
		}
		l := widget.NewLabel(fmt.Sprintf("Step %d: %s", s.N, msg))
		l.Importance = widget.LowImportance
		v.liveActions.Add(l)
		return
	}
	for _, a := range s.Actions {
		v.liveActions.Add(actionLabel(a))
	}
}

// setRunning switches the controls between idle and running.
func (v *runView) setRunning(running bool) {
	if running {
		v.runBtn.Disable()
		v.pauseBtn.Enable()
		v.stopBtn.Enable()
		v.picker.Disable()
		v.activity.Show()
		v.activity.Start()
		v.stripBtn.Show()
		return
	}
	v.runBtn.Enable()
	v.pauseBtn.Disable()
	v.stopBtn.Disable()
	v.picker.Enable()
	v.activity.Stop()
	v.activity.Hide()
	v.stripBtn.Hide()
	v.setPaused(false, "")
}

// setPaused shows or hides the takeover banner and flips Pause to Resume.
func (v *runView) setPaused(paused bool, reason string) {
	if paused {
		v.bannerTitle.SetText("Paused — the agent waits for you")
		if v.u.model.TookOver {
			v.bannerTitle.SetText("You took over — the agent is paused")
		}
		v.bannerReason.SetText(pauseText(reason, v.u.model.TookOver))
		v.banner.Show()
		v.pauseBtn.SetText("Resume")
		v.pauseBtn.SetIcon(theme.MediaPlayIcon())
		v.activity.Stop()
		v.activity.Hide()
		return
	}
	v.banner.Hide()
	v.note.SetText("")
	v.pauseBtn.SetText("Pause")
	v.pauseBtn.SetIcon(theme.MediaPauseIcon())
	if v.u.run != nil {
		v.activity.Show()
		v.activity.Start()
	}
}

// pauseText is the banner's text: why the agent paused and how to go on.
func pauseText(reason string, tookOver bool) string {
	s := "Use the desktop as you like. When you are done, press Resume; the agent will be told that you acted."
	if tookOver && reason != "" {
		s = "Why: " + reason + ". " + s
	}
	return s
}

// refreshStatus updates the status bar from the run model.
func (v *runView) refreshStatus() {
	m := &v.u.model
	if m.Started.IsZero() && !m.Done {
		v.state.SetText("Ready")
		v.status.SetText("")
		return
	}
	v.state.SetText(m.stateText())
	v.status.SetText(m.statusLine(v.u.now(), v.u.preset()))
}

func (v *runView) showFinished() {
	m := &v.u.model
	v.result.show(m.Result, m.modelFailed())
	for _, s := range m.Steps {
		if s.Ended != "" {
			v.updateStep(s)
		}
	}
	if n := len(m.Steps); n > 0 {
		v.updateLiveActions(m.Steps[n-1])
	}
	if m.TraceDir != "" {
		v.reportBtn.Show()
	}
	v.scrollToEnd()
}

func (v *runView) openReport() {
	if dir := v.u.model.TraceDir; dir != "" {
		v.u.openReport(dir)
	}
}

// openReport opens dir/report.html in the browser; when that cannot be done,
// it says where the file is, with a button to copy its path.
func (u *UI) openReport(dir string) {
	p, err := filepath.Abs(filepath.Join(dir, "report.html"))
	if err != nil {
		u.showError(err)
		return
	}
	open := u.open
	go func() { // the opener may take a few seconds to fail
		err := open(p)
		u.do(func() {
			if err != nil {
				u.showOpenFailed(p, err)
			}
		})
	}()
}
