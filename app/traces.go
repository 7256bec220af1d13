package app

import (
	"fmt"
	"image"
	_ "image/jpeg" // trace frames may be JPEG
	_ "image/png"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"deskpilot/agent"
	"deskpilot/agent/script"
	"deskpilot/agent/trace"
)

// tracesView is the Runs tab: past traces, and one opened to step through.
type tracesView struct {
	u       *UI
	content fyne.CanvasObject

	list     *widget.List
	items    []trace.Summary
	listNote *widget.Label

	detail   fyne.CanvasObject
	none     fyne.CanvasObject
	title    *widget.Label
	meta     *widget.Label
	answer   *widget.Label
	report   *widget.Button
	prev     *widget.Button
	next     *widget.Button
	stepInfo *widget.Label
	after    *widget.Check
	frame    *canvas.Image
	noFrame  *widget.Label
	card     *stepCard

	tr    *trace.Trace
	steps []trace.Step // tr's steps without step 0 (what happened before the first)
	step  int          // index into steps
}

func newTracesView(u *UI) *tracesView {
	v := &tracesView{u: u}
	v.list = widget.NewList(func() int { return len(v.items) }, v.newRow, v.updateRow)
	v.list.OnSelected = func(id widget.ListItemID) { v.open(v.items[id].Dir) }
	v.listNote = widget.NewLabel("")
	v.listNote.Wrapping = fyne.TextWrapWord
	v.listNote.Importance = widget.LowImportance
	refresh := widget.NewButtonWithIcon("", theme.ViewRefreshIcon(), v.reload)
	refresh.Importance = widget.LowImportance
	left := container.NewBorder(container.NewBorder(nil, nil, nil, refresh, heading("Past runs")),
		v.listNote, nil, nil, v.list)

	v.title = heading("")
	v.title.Wrapping = fyne.TextWrapWord
	v.meta = widget.NewLabel("")
	v.meta.Importance = widget.LowImportance
	v.meta.Wrapping = fyne.TextWrapWord
	v.answer = widget.NewLabel("")
	v.answer.Wrapping = fyne.TextWrapWord
	v.answer.Selectable = true
	v.report = widget.NewButtonWithIcon("Open report", theme.DocumentIcon(), func() {
		if v.tr != nil {
			u.openReport(v.tr.Dir)
		}
	})
	v.prev = widget.NewButtonWithIcon("", theme.NavigateBackIcon(), func() { v.show(v.step - 1) })
	v.next = widget.NewButtonWithIcon("", theme.NavigateNextIcon(), func() { v.show(v.step + 1) })
	v.stepInfo = widget.NewLabelWithStyle("", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	v.after = widget.NewCheck("Screen after the step", func(bool) { v.show(v.step) })
	v.frame = canvas.NewImageFromImage(nil)
	v.frame.FillMode = canvas.ImageFillContain
	v.frame.ScaleMode = canvas.ImageScaleSmooth
	v.frame.SetMinSize(fyne.NewSize(320, 200))
	v.noFrame = widget.NewLabel("No frame recorded for this step.")
	v.noFrame.Importance = widget.LowImportance
	var cardScroll *container.Scroll
	v.card = newStepCard(u, func() { growTo(cardScroll) })
	cardScroll = container.NewVScroll(v.card.content)

	head := container.NewVBox(container.NewBorder(nil, nil, nil, v.report, v.title), v.meta, v.answer,
		container.NewHBox(v.prev, v.stepInfo, v.next, layout.NewSpacer(), v.after))
	screen := container.NewStack(panelBackground(), container.NewCenter(v.noFrame), v.frame)
	body := container.NewHSplit(screen, cardScroll)
	body.Offset = 0.55
	v.detail = container.NewBorder(head, nil, nil, nil, body)
	msg := widget.NewLabel("Pick a run on the left to step through it: the screen the model saw with its actions marked, its thought, code and observation.")
	msg.Wrapping = fyne.TextWrapWord
	msg.Importance = widget.LowImportance
	v.none = container.NewCenter(container.NewGridWrap(fyne.NewSize(380, 90), msg))
	v.detail.Hide()
	split := container.NewHSplit(container.NewPadded(left), container.NewPadded(container.NewStack(v.none, v.detail)))
	split.Offset = 0.3
	v.content = split
	return v
}

func (v *tracesView) newRow() fyne.CanvasObject {
	task := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	task.Truncation = fyne.TextTruncateEllipsis
	info := widget.NewLabel("")
	info.Truncation = fyne.TextTruncateEllipsis
	info.Importance = widget.LowImportance
	icon := widget.NewIcon(theme.ConfirmIcon())
	return container.NewBorder(nil, nil, icon, nil, container.NewVBox(task, info))
}

func (v *tracesView) updateRow(id widget.ListItemID, o fyne.CanvasObject) {
	s := v.items[id]
	c := o.(*fyne.Container)
	texts := c.Objects[0].(*fyne.Container).Objects
	texts[0].(*widget.Label).SetText(oneLine(s.Task))
	texts[1].(*widget.Label).SetText(summaryLine(s))
	c.Objects[1].(*widget.Icon).SetResource(outcomeIcon(s.Outcome))
}

// summaryLine is "Mar 3 14:05 · answered · 7 steps · model · run 3fa2c1".
func summaryLine(s trace.Summary) string {
	out := s.Outcome
	if out == "" {
		out = "unfinished"
	}
	parts := []string{s.Started.Local().Format("Jan 2 15:04"), strings.ReplaceAll(out, "_", " "),
		plural(s.Steps, "step")}
	if s.Model != "" {
		parts = append(parts, s.Model)
	}
	if s.ID != "" {
		parts = append(parts, "run "+s.ID)
	}
	return strings.Join(parts, "  ·  ")
}

func outcomeIcon(o string) fyne.Resource {
	switch agent.Outcome(o) {
	case agent.Answered:
		return theme.NewSuccessThemedResource(theme.ConfirmIcon())
	case agent.Failed:
		return theme.NewErrorThemedResource(theme.ErrorIcon())
	case agent.Cancelled:
		return theme.MediaStopIcon()
	}
	return theme.NewWarningThemedResource(theme.WarningIcon())
}

// root is the trace folder listed.
func (v *tracesView) root() string {
	if v.u.deps.TraceRoot != "" {
		return v.u.deps.TraceRoot
	}
	return v.u.resolvedOrDefaults().TraceDir
}

// reload lists the traces in the background.
func (v *tracesView) reload() {
	root := v.root()
	v.listNote.SetText("Loading…")
	go func() {
		items, err := trace.List(root)
		v.u.do(func() { v.loaded(root, items, err) })
	}()
}

// consoleModel is the model name console sessions record (agent.NewConsole):
// they are code typed by hand, not runs, and stay out of the list.
const consoleModel = "console"

func (v *tracesView) loaded(root string, items []trace.Summary, err error) {
	runs := items[:0:0]
	for _, s := range items {
		if s.Model != consoleModel {
			runs = append(runs, s)
		}
	}
	v.items = runs
	v.list.UnselectAll()
	v.list.Refresh()
	hidden := ""
	if n := len(items) - len(runs); n > 0 {
		hidden = fmt.Sprintf(" (%s not listed)", plural(n, "console session"))
	}
	switch {
	case err != nil:
		v.listNote.SetText(fmt.Sprintf("Could not list %s: %v", root, err))
		v.listNote.Importance = widget.DangerImportance
	case len(runs) == 0:
		v.listNote.SetText("No runs yet. Traces are kept in " + root + hidden)
		v.listNote.Importance = widget.LowImportance
	default:
		v.listNote.SetText(fmt.Sprintf("%s in %s%s", plural(len(runs), "run"), root, hidden))
		v.listNote.Importance = widget.LowImportance
	}
	v.listNote.Refresh()
}

// open reads the trace in dir and shows its first step.
func (v *tracesView) open(dir string) {
	t, err := trace.Read(dir)
	if err != nil {
		v.u.showError(err)
		return
	}
	t.FillTraits(script.Traits())
	v.tr = t
	v.steps = nil
	for _, s := range t.Steps {
		if s.Number > 0 {
			v.steps = append(v.steps, s)
		}
	}
	v.title.SetText(oneLine(t.Start.Task))
	out := "unfinished"
	if t.End != nil {
		out = strings.ReplaceAll(t.End.Outcome, "_", " ")
	}
	us := t.Usage()
	v.meta.SetText(fmt.Sprintf("%s  ·  %s  ·  %s in %s  ·  %s in / %s out  ·  %s",
		t.Start.T.Local().Format("Mon Jan 2 2006 15:04"), out, plural(t.StepCount(), "step"), clock(t.Elapsed()),
		tokens(us.In), tokens(us.Out), t.Start.Model))
	a := t.Answer()
	if t.End != nil && t.End.Error != "" {
		a = "Error: " + t.End.Error
	}
	v.answer.SetText(a)
	showIf(v.answer, a != "")
	_, statErr := os.Stat(filepath.Join(dir, "report.html"))
	showIf(v.report, statErr == nil)
	v.none.Hide()
	v.detail.Show()
	v.show(0)
}

// show displays step i of the open trace.
func (v *tracesView) show(i int) {
	steps := v.steps
	if v.tr == nil || len(steps) == 0 {
		v.stepInfo.SetText("no steps")
		v.prev.Disable()
		v.next.Disable()
		return
	}
	i = max(0, min(i, len(steps)-1))
	v.step = i
	s := steps[i]
	v.stepInfo.SetText(fmt.Sprintf("Step %d of %d", s.Number, steps[len(steps)-1].Number))
	enable(v.prev, i > 0)
	enable(v.next, i < len(steps)-1)
	v.card.update(traceStep(s))
	img := v.frameOf(s)
	v.frame.Image = img
	v.frame.Refresh()
	showIf(v.frame, img != nil)
	showIf(v.noFrame, img == nil)
}

// frameOf loads the frame of step s: the screen the model saw with the step's
// actions marked, or with the check on, the screen after the step.
func (v *tracesView) frameOf(s trace.Step) image.Image {
	after := func() image.Image {
		if o := s.Observation; o != nil {
			return loadFrame(v.tr.Dir, firstOf(o.ModelFrame, o.Frame))
		}
		return nil
	}
	if v.after.Checked {
		return after()
	}
	if s.Frame != "" {
		if img := loadFrame(v.tr.Dir, s.Frame); img != nil {
			return withMarks(img, s.Actions, v.tr.Start.Screen)
		}
	}
	if img := loadFrame(v.tr.Dir, s.ModelFrame); img != nil {
		return img
	}
	return after() // no frame before the step was recorded
}

// loadFrame decodes dir/rel; nil when rel is empty, not inside dir, or unreadable.
func loadFrame(dir, rel string) image.Image {
	local := filepath.FromSlash(rel)
	if rel == "" || !filepath.IsLocal(local) {
		return nil
	}
	f, err := os.Open(filepath.Join(dir, local))
	if err != nil {
		return nil
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		return nil
	}
	return img
}

// traceStep converts a recorded step for the step card.
func traceStep(s trace.Step) *stepState {
	st := &stepState{N: s.Number, Reply: s.Reply, Replied: true, Code: s.Code, CodeSet: true,
		Usage: agent.Usage{Input: s.Usage.In, Output: s.Usage.Out}, ModelTime: ms(s.ModelMS), Observed: true}
	st.Actions = append(st.Actions, s.Actions...)
	if o := s.Observation; o != nil {
		st.Obs, st.Err, st.Changed = o.Text, o.Error, o.Changed
		if d := s.Finish.Sub(s.Begin) - st.ModelTime; d > 0 {
			st.ExecTime = d
		}
	}
	if s.Answer != "" && st.Obs == "" {
		st.Obs = "final answer: " + s.Answer
	}
	return st
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func enable(b *widget.Button, on bool) {
	if on {
		b.Enable()
	} else {
		b.Disable()
	}
}
