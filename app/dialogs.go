package app

import (
	"context"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// ask is the Ask hook: it shows the agent's question with an entry and blocks the
// calling goroutine until the person answers, dismisses it, or ctx ends.
func (u *UI) ask(ctx context.Context, question string) (string, error) {
	type reply struct {
		text string
		ok   bool
	}
	got := make(chan reply, 1)
	var d dialog.Dialog // touched only on the Fyne goroutine
	u.do(func() {
		d = u.showAsk(question, func(text string, ok bool) { got <- reply{text, ok} })
	})
	select {
	case r := <-got:
		if !r.ok {
			return "", errNoAnswer
		}
		return r.text, nil
	case <-ctx.Done():
		u.do(func() { u.closeDialog(d) })
		return "", fmt.Errorf("ask_user: %w", ctx.Err())
	}
}

// showAsk builds and shows the question dialog; answer gets the result once.
func (u *UI) showAsk(question string, answer func(text string, ok bool)) dialog.Dialog {
	u.setCompact(false)
	q := widget.NewLabel(question)
	q.Wrapping = fyne.TextWrapWord
	q.Selectable = true
	e := widget.NewMultiLineEntry()
	e.Wrapping = fyne.TextWrapWord
	e.SetMinRowsVisible(3)
	e.SetPlaceHolder("Your answer")
	u.askEntry = e
	content := container.NewBorder(container.NewVBox(q, widget.NewSeparator()), nil, nil, nil, e)
	d := dialog.NewCustomConfirm("The agent asks", "Answer", "Dismiss", content, func(ok bool) {
		u.askEntry = nil
		answer(e.Text, ok)
		u.afterDialog()
	}, u.win)
	d.Resize(fyne.NewSize(520, 300))
	d.Show()
	u.win.Canvas().Focus(e)
	return d
}

// confirm is the Confirm hook: it asks the person to allow an action the safety
// policy marks, blocking until they decide or ctx ends. Closing the dialog denies.
func (u *UI) confirm(ctx context.Context, action string) (bool, error) {
	got := make(chan bool, 1)
	var d dialog.Dialog
	u.do(func() {
		d = u.showConfirm(action, func(ok bool) { got <- ok })
	})
	select {
	case ok := <-got:
		return ok, nil
	case <-ctx.Done():
		u.do(func() { u.closeDialog(d) })
		return false, fmt.Errorf("confirm: %w", ctx.Err())
	}
}

func (u *UI) showConfirm(action string, decide func(bool)) dialog.Dialog {
	u.setCompact(false)
	msg := widget.NewLabel("The agent wants to run an action that needs your approval:")
	msg.Wrapping = fyne.TextWrapWord
	act := widget.NewLabelWithStyle(action, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	act.Wrapping = fyne.TextWrapBreak
	d := dialog.NewCustomConfirm("Allow this action?", "Allow", "Deny", container.NewVBox(msg, act),
		func(ok bool) {
			decide(ok)
			u.afterDialog()
		}, u.win)
	d.Resize(fyne.NewSize(480, 220))
	d.Show()
	return d
}

// closeDialog hides d when its caller gave up waiting; d's callback then runs with
// a refusal that nobody reads (the reply channels are buffered).
func (u *UI) closeDialog(d dialog.Dialog) {
	if d != nil {
		d.Hide()
	}
}

// afterDialog shrinks back to the strip when a run is still going.
func (u *UI) afterDialog() {
	if u.run != nil && u.autoStrip && !u.model.Paused {
		u.setCompact(true)
	}
}
