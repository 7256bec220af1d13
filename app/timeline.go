package app

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"deskpilot/agent"
)

// maxObsLines is how many lines of an observation a card shows; the trace and the
// Runs view keep the whole text.
const maxObsLines = 14

// maxAnswerLines is how many lines of the final answer the result panel shows;
// Copy copies all of it.
const maxAnswerLines = 8

// stepCard renders one stepState in the timeline.
type stepCard struct {
	content  *box
	title    *widget.Label
	meta     *widget.Label
	thought  *widget.Label
	code     *codeView
	actions  *fyne.Container
	obs      *widget.Label
	errLabel *widget.Label

	thoughtPart, codePart, actionsPart, obsPart, errPart fyne.CanvasObject

	relayout func() // lays the card's parents out again; set by the owner
	queued   bool   // a deferred relayout is pending
}

// newStepCard makes an empty card; relayout lays out its parents again after the
// card changed size (see settle).
func newStepCard(u *UI, relayout func()) *stepCard {
	c := &stepCard{relayout: relayout}
	later := func() {
		if c.queued {
			return
		}
		c.queued = true
		u.do(func() {
			c.queued = false
			c.relayout()
		})
	}
	c.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	c.meta = widget.NewLabel("")
	c.meta.Importance = widget.LowImportance
	c.thought = widget.NewLabel("")
	c.thought.Wrapping = fyne.TextWrapWord
	c.thought.Selectable = true
	c.code = newCodeView(later)
	c.actions = container.NewVBox()
	c.obs = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	c.obs.Wrapping = fyne.TextWrapWord
	c.obs.Selectable = true
	c.errLabel = widget.NewLabel("")
	c.errLabel.Wrapping = fyne.TextWrapWord
	c.errLabel.Importance = widget.DangerImportance
	c.errLabel.TextStyle.Bold = true

	c.thoughtPart = container.NewVBox(caption("THOUGHT"), c.thought)
	c.codePart = container.NewVBox(caption("CODE"), c.code.content)
	c.actionsPart = container.NewVBox(caption("ACTIONS"), tight(c.actions))
	c.obsPart = container.NewVBox(caption("OBSERVATION"), c.obs)
	c.errPart = container.NewBorder(nil, nil, widget.NewIcon(theme.ErrorIcon()), nil, c.errLabel)
	for _, p := range []fyne.CanvasObject{c.thoughtPart, c.codePart, c.actionsPart, c.obsPart, c.errPart} {
		p.Hide()
	}
	head := container.NewHBox(c.title, layout.NewSpacer(), c.meta)
	body := container.NewVBox(head, c.thoughtPart, c.codePart, c.actionsPart, c.obsPart, c.errPart)
	c.content = newBox(theme.ColorNameSeparator, 0, true, container.NewPadded(body))
	return c
}

// update renders s into the card.
func (c *stepCard) update(s *stepState) {
	c.title.SetText(fmt.Sprintf("Step %d", s.N))
	c.meta.SetText(stepMeta(s))
	th := s.Thought()
	if th == "" && !s.Replied && s.Ended == "" {
		th = "…" // being written
	}
	c.thought.SetText(th)
	showIf(c.thoughtPart, th != "")
	code := s.ShownCode()
	c.code.setCode(code)
	showIf(c.codePart, code != "")

	c.actions.RemoveAll()
	for _, a := range s.Actions {
		c.actions.Add(actionLabel(a))
	}
	showIf(c.actionsPart, len(s.Actions) > 0)

	obs := shownObservation(s.Obs)
	c.obs.SetText(clipLines(obs, maxObsLines))
	showIf(c.obsPart, obs != "")
	c.errLabel.SetText(s.Err)
	showIf(c.errPart, s.Err != "")
	if s.Failed() {
		c.content.setFill(theme.ColorNameError, 22, true)
	} else {
		c.content.setFill(theme.ColorNameSeparator, 0, true)
	}
	c.relayout()
}

// screenNow ends every observation the agent sends: the screenshot follows it. The
// card shows the screen in the live view instead, so the line is dropped there.
const screenNow = "This is the screen now:"

// shownObservation is the observation text as a card shows it.
func shownObservation(obs string) string {
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(obs), screenNow))
}

// stepMeta is "thinking…" while the model writes, then "model 3.2 s · run 1.1 s · 1.2k in / 56 out".
func stepMeta(s *stepState) string {
	var parts []string
	switch {
	case s.Ended != "" && !s.Replied:
		parts = append(parts, s.Ended)
	case s.Ended != "":
		parts = append(parts, "model "+seconds(s.ModelTime), s.Ended)
	case !s.Replied:
		parts = append(parts, "thinking…")
	case !s.Observed:
		parts = append(parts, "model "+seconds(s.ModelTime), "running…")
	default:
		parts = append(parts, "model "+seconds(s.ModelTime), "run "+seconds(s.ExecTime))
	}
	if s.Usage != (agent.Usage{}) {
		parts = append(parts, fmt.Sprintf("%s in / %s out", tokens(s.Usage.Input), tokens(s.Usage.Output)))
	}
	return strings.Join(parts, "  ·  ")
}

// clipLines keeps the first n lines of s and says how many were left out.
func clipLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… %d more lines (see Runs for the whole text)", len(lines)-n)
}

func showIf(o fyne.CanvasObject, show bool) {
	if show {
		o.Show()
	} else {
		o.Hide()
	}
}

// resultPanel shows how a run ended; the final answer is large and can be copied.
type resultPanel struct {
	u       *UI
	content *box
	icon    *widget.Icon
	title   *widget.Label
	answer  *widget.Label
	detail  *widget.Label
	copyBtn *widget.Button
	full    string // the whole answer

	// When the model never answered: what to do about the endpoint.
	fix      *fyne.Container
	testBtn  *widget.Button
	testNote *widget.Label
}

func newResultPanel(u *UI) *resultPanel {
	r := &resultPanel{u: u}
	r.icon = widget.NewIcon(theme.ConfirmIcon())
	r.title = heading("")
	r.answer = widget.NewLabel("")
	r.answer.Wrapping = fyne.TextWrapWord
	r.answer.SizeName = theme.SizeNameSubHeadingText
	r.answer.Selectable = true
	r.detail = widget.NewLabel("")
	r.detail.Wrapping = fyne.TextWrapWord
	r.copyBtn = widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), r.copy)
	head := container.NewBorder(nil, nil, r.icon, r.copyBtn, r.title)
	r.testBtn = widget.NewButtonWithIcon("Test connection", theme.MediaPlayIcon(), r.test)
	settings := widget.NewButtonWithIcon("Settings", theme.SettingsIcon(), func() { u.tabs.Select(u.settingsTab) })
	r.testNote = widget.NewLabel("")
	r.testNote.Wrapping = fyne.TextWrapWord
	r.testNote.Hide()
	r.fix = container.NewVBox(container.NewHBox(r.testBtn, settings), r.testNote)
	r.fix.Hide()
	r.content = tinted(theme.ColorNameSuccess, container.NewPadded(container.NewVBox(head, r.answer, r.detail, r.fix)))
	r.content.Hide()
	return r
}

func (r *resultPanel) hide() { r.content.Hide() }

// show renders the end of a run; noModel says the run failed before the
// model answered at all: the endpoint is the likely problem, and the panel
// offers to test it and to open the settings.
func (r *resultPanel) show(f agent.Finished, noModel bool) {
	text := f.Answer
	if f.Outcome == agent.MaxSteps {
		text = f.Summary // not an answer: the title says so
	}
	r.full = text
	r.copyBtn.SetText("Copy")
	r.title.SetText(resultTitle(f.Outcome))
	r.answer.SetText(clipLines(text, maxAnswerLines))
	showIf(r.answer, text != "")
	showIf(r.copyBtn, text != "")
	detail := fmt.Sprintf("%s in %s  ·  %s in / %s out", plural(f.Steps, "step"), clock(f.Elapsed),
		tokens(f.Usage.Input), tokens(f.Usage.Output))
	switch {
	case noModel:
		r.title.SetText("The model did not answer")
		detail = modelProblem(f.Error)
	case f.Error != "":
		detail = f.Error + "\n" + detail
	}
	r.detail.SetText(detail)
	showIf(r.fix, noModel)
	r.testNote.Hide()
	switch f.Outcome {
	case agent.Answered:
		r.icon.SetResource(theme.ConfirmIcon())
		r.content.setFill(theme.ColorNameSuccess, 40, true)
		r.detail.Importance = widget.MediumImportance
	case agent.Failed:
		r.icon.SetResource(theme.ErrorIcon())
		r.content.setFill(theme.ColorNameError, 40, true)
		r.detail.Importance = widget.DangerImportance
	default:
		r.icon.SetResource(theme.WarningIcon())
		r.content.setFill(theme.ColorNameWarning, 40, true)
		r.detail.Importance = widget.MediumImportance
	}
	r.detail.Refresh()
	r.content.Show()
}

// modelProblem is the error of a run whose model never answered, as one
// line for the person: the prefixes the loop and the client wrap it in go,
// the client's message (which names the URL and the likely fix) stays.
func modelProblem(errText string) string {
	s := strings.TrimSpace(errText)
	for _, p := range []string{"model call: ", "planning: ", "llm: "} {
		s = strings.TrimPrefix(s, p)
	}
	return oneLine(s)
}

// test checks the configured endpoint again from the failure panel.
func (r *resultPanel) test() {
	r.testBtn.Disable()
	r.testNote.Importance = widget.MediumImportance
	r.testNote.SetText("Testing the connection…")
	r.testNote.Show()
	r.u.testSaved(func(msg string, ok bool) {
		r.testBtn.Enable()
		showOutcome(r.testNote, msg, !ok)
	})
}

func resultTitle(o agent.Outcome) string {
	switch o {
	case agent.Answered:
		return "Answer"
	case agent.Failed:
		return "The run failed"
	case agent.MaxSteps:
		return "Step limit reached — no answer; the model's summary"
	case agent.Cancelled:
		return "Stopped"
	}
	return "Finished"
}

func (r *resultPanel) copy() {
	r.u.app.Clipboard().SetContent(r.full)
	r.copyBtn.SetText("Copied")
}
