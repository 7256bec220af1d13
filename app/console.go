package app

import (
	"context"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"deskpilot/agent"
)

// consoleView runs code actions on the desktop without a model.
type consoleView struct {
	u       *UI
	content fyne.CanvasObject

	code     *taskEntry
	runBtn   *widget.Button
	stopBtn  *widget.Button
	activity *widget.Activity
	history  *fyne.Container
	scroll   *container.Scroll
	frame    *canvas.Image
	frameMsg fyne.CanvasObject
	caption  *widget.Label

	cancel context.CancelFunc // of the running Exec; nil when idle
	cur    *consoleEntry
}

// consoleEntry is one executed block in the console history.
type consoleEntry struct {
	content *box
	actions *fyne.Container
	output  *widget.Label
	errText *widget.Label
}

func newConsoleView(u *UI) *consoleView {
	v := &consoleView{u: u}
	v.code = newTaskEntry(v.exec)
	v.code.TextStyle = fyne.TextStyle{Monospace: true}
	v.code.Wrapping = fyne.TextWrapOff
	v.code.SetMinRowsVisible(5)
	v.code.SetPlaceHolder("click(640, 400)\ntype_text(\"hello\")\nprint(screen_size())      # Ctrl+Enter runs")
	v.runBtn = widget.NewButtonWithIcon("Run", theme.MediaPlayIcon(), v.exec)
	v.runBtn.Importance = widget.HighImportance
	v.stopBtn = widget.NewButtonWithIcon("Stop", theme.MediaStopIcon(), v.stop)
	v.stopBtn.Importance = widget.DangerImportance
	v.stopBtn.Disable()
	v.activity = widget.NewActivity()
	v.activity.Hide()
	v.history = container.NewVBox()
	v.scroll = container.NewVScroll(v.history)

	v.frame = canvas.NewImageFromImage(nil)
	v.frame.FillMode = canvas.ImageFillContain
	v.frame.ScaleMode = canvas.ImageScaleSmooth
	v.frame.SetMinSize(fyne.NewSize(320, 200))
	v.frame.Hide()
	msg := widget.NewLabel("Run code to see the screen afterwards.")
	msg.Importance = widget.LowImportance
	v.frameMsg = container.NewCenter(msg)
	v.caption = widget.NewLabel("")
	v.caption.Importance = widget.LowImportance

	intro := widget.NewLabel("Type code actions and run them on the desktop — the same executor as `deskpilot console`. No model is involved; variables persist between runs.")
	intro.Wrapping = fyne.TextWrapWord
	intro.Importance = widget.LowImportance
	if u.deps.Console == nil {
		intro.SetText("The console is not available in this build.")
		v.runBtn.Disable()
	}
	buttons := container.NewHBox(container.NewStack(v.activity), layout.NewSpacer(), v.stopBtn, v.runBtn)
	left := container.NewBorder(container.NewVBox(heading("Console"), intro, v.code, buttons), nil, nil, nil, v.scroll)
	right := container.NewBorder(container.NewHBox(heading("Screen after the last run"), layout.NewSpacer(), v.caption),
		nil, nil, nil, container.NewStack(panelBackground(), v.frameMsg, v.frame))
	split := container.NewHSplit(container.NewPadded(left), container.NewPadded(right))
	split.Offset = 0.45
	v.content = split
	return v
}

// exec runs the code in the entry.
func (v *consoleView) exec() {
	u := v.u
	code := strings.TrimSpace(v.code.Text)
	if code == "" || v.cancel != nil || u.deps.Console == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	v.cancel = cancel
	v.cur = v.addEntry(code)
	v.runBtn.Disable()
	v.stopBtn.Enable()
	v.activity.Show()
	v.activity.Start()
	cur := v.cur
	hooks := agent.Hooks{
		Event: func(e agent.Event) { u.do(func() { v.onEvent(cur, e) }) },
		Ask:   u.ask,
		// The person typed the code, so actions the policy marks are theirs to run.
		Confirm: func(context.Context, string) (bool, error) { return true, nil },
	}
	con := u.deps.Console
	go func() {
		err := con.Exec(ctx, code, hooks)
		cancel()
		u.do(func() { v.done(cur, err) })
	}()
}

func (v *consoleView) stop() {
	if v.cancel != nil {
		v.cancel()
	}
}

func (v *consoleView) addEntry(code string) *consoleEntry {
	e := &consoleEntry{actions: container.NewVBox()}
	cv := newCodeView(func() { v.u.do(func() { growTo(v.scroll) }) })
	cv.setCode(code)
	e.output = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	e.output.Wrapping = fyne.TextWrapBreak
	e.output.Selectable = true
	e.output.Hide()
	e.errText = widget.NewLabel("")
	e.errText.Wrapping = fyne.TextWrapWord
	e.errText.Importance = widget.DangerImportance
	e.errText.Hide()
	body := container.NewVBox(cv.content, tight(e.actions), e.output, e.errText)
	e.content = newBox(theme.ColorNameSeparator, 0, true, container.NewPadded(body))
	v.history.Add(e.content)
	v.scroll.ScrollToBottom()
	return e
}

func (v *consoleView) onEvent(e *consoleEntry, ev agent.Event) {
	switch ev := ev.(type) {
	case agent.ActionDone:
		e.actions.Add(actionLabel(ev.Action))
	case agent.Observed:
		// What the code printed and its error, as a person reads them: the
		// observation's other lines (the screen changed, what to try next)
		// are the model's.
		e.output.SetText(strings.TrimRight(ev.Output, "\n"))
		showIf(e.output, e.output.Text != "")
		e.errText.SetText(ev.Error)
		showIf(e.errText, ev.Error != "")
		if ev.Error != "" {
			e.content.setFill(theme.ColorNameError, 22, true)
		}
		if ev.Frame != nil {
			v.frame.Image = ev.Frame
			v.frame.Show()
			v.frameMsg.Hide()
			v.frame.Refresh()
			v.caption.SetText(fmt.Sprintf("%d×%d px", ev.Frame.Bounds().Dx(), ev.Frame.Bounds().Dy()))
		}
	}
	v.scroll.ScrollToBottom()
}

// done ends an Exec; err means the executor itself failed (not the code).
func (v *consoleView) done(e *consoleEntry, err error) {
	v.cancel = nil
	v.runBtn.Enable()
	v.stopBtn.Disable()
	v.activity.Stop()
	v.activity.Hide()
	if err != nil {
		e.errText.SetText(err.Error())
		e.errText.Show()
		e.content.setFill(theme.ColorNameError, 22, true)
	}
	v.scroll.ScrollToBottom()
}
