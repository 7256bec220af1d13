package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// errNoAnswer is returned to ask_user when the person closes the question.
var errNoAnswer = errors.New("ask_user: the person dismissed the question without answering")

// prompt is a question (ask_user) or an approval (the safety policy) waiting
// for the person. While the window is the strip it shows inside the strip, so
// the window stays compact and out of the agent's way; on the full window it
// is a dialog. Touched only on the Fyne goroutine.
type prompt struct {
	question bool   // ask_user; else an approval
	text     string // the question, or the action to approve
	reply    func(text string, ok bool)

	entry *widget.Entry // the answer (questions)
	dlg   dialog.Dialog // the dialog showing it on the full window; nil in the strip
	done  bool
}

// ask is the Ask hook: it shows the agent's question with an entry and blocks the
// calling goroutine until the person answers, dismisses it, or ctx ends.
func (u *UI) ask(ctx context.Context, question string) (string, error) {
	type reply struct {
		text string
		ok   bool
	}
	got := make(chan reply, 1)
	var p *prompt // touched only on the Fyne goroutine
	u.do(func() {
		p = u.addPrompt(&prompt{question: true, text: question,
			reply: func(text string, ok bool) { got <- reply{text, ok} }})
	})
	select {
	case r := <-got:
		if !r.ok {
			return "", errNoAnswer
		}
		return r.text, nil
	case <-ctx.Done():
		u.do(func() { u.dropPrompt(p) })
		return "", fmt.Errorf("ask_user: %w", ctx.Err())
	}
}

// confirm is the Confirm hook: it asks the person to allow an action the safety
// policy marks, blocking until they decide or ctx ends. Closing the dialog denies.
func (u *UI) confirm(ctx context.Context, action string) (bool, error) {
	got := make(chan bool, 1)
	var p *prompt
	u.do(func() {
		p = u.addPrompt(&prompt{text: action, reply: func(_ string, ok bool) { got <- ok }})
	})
	select {
	case ok := <-got:
		return ok, nil
	case <-ctx.Done():
		u.do(func() { u.dropPrompt(p) })
		return false, fmt.Errorf("confirm: %w", ctx.Err())
	}
}

// addPrompt queues p and shows it when nothing else waits before it.
func (u *UI) addPrompt(p *prompt) *prompt {
	u.prompts = append(u.prompts, p)
	u.model.Waiting++
	if len(u.prompts) == 1 {
		u.showPrompt()
	}
	u.refreshState()
	return p
}

// answer gives p's answer to whoever waits for it, once.
func (u *UI) answer(p *prompt, ok bool) {
	if p == nil || p.done {
		return
	}
	text := ""
	if p.entry != nil {
		text = p.entry.Text
	}
	p.reply(text, ok)
	u.dropPrompt(p)
}

// dropPrompt takes p off the screen and the queue (answered, or its caller
// stopped waiting) and shows the next one.
func (u *UI) dropPrompt(p *prompt) {
	if p == nil || p.done {
		return
	}
	p.done = true
	first := len(u.prompts) > 0 && u.prompts[0] == p
	u.prompts = slices.DeleteFunc(u.prompts, func(x *prompt) bool { return x == p })
	u.model.Waiting = max(u.model.Waiting-1, 0)
	if first {
		u.hidePrompt(p)
		u.showPrompt()
	}
	u.refreshState()
}

// showPrompt shows the first waiting prompt where the window is: in the strip
// or as a dialog.
func (u *UI) showPrompt() {
	if len(u.prompts) == 0 {
		u.st.setPrompt(nil)
		u.fitStrip()
		return
	}
	p := u.prompts[0]
	if u.compact {
		u.st.setPrompt(p)
		u.fitStrip()
		return
	}
	u.st.setPrompt(nil)
	p.dlg = u.promptDialog(p)
}

// hidePrompt takes p off the screen without answering it.
func (u *UI) hidePrompt(p *prompt) {
	if d := p.dlg; d != nil {
		p.dlg = nil // the dialog's callback then ignores the Hide
		d.Hide()
	}
	u.st.setPrompt(nil)
	u.fitStrip()
}

// promptDialog shows p as a dialog on the full window.
func (u *UI) promptDialog(p *prompt) dialog.Dialog {
	var d *dialog.ConfirmDialog
	decide := func(ok bool) {
		if p.dlg == d && d != nil {
			u.answer(p, ok)
		}
	}
	content, title, yes, no, size := u.promptContent(p)
	d = dialog.NewCustomConfirm(title, yes, no, content, decide, u.win)
	d.Resize(size)
	d.Show()
	if p.entry != nil {
		u.win.Canvas().Focus(p.entry)
	}
	return d
}

// promptContent builds what a dialog shows for p: content, title, buttons, size.
func (u *UI) promptContent(p *prompt) (fyne.CanvasObject, string, string, string, fyne.Size) {
	if p.question {
		q := widget.NewLabel(p.text)
		q.Wrapping = fyne.TextWrapWord
		q.Selectable = true
		p.entry = u.answerEntry(p)
		return container.NewBorder(container.NewVBox(q, widget.NewSeparator()), nil, nil, nil, p.entry),
			"The agent asks", "Answer", "Dismiss", fyne.NewSize(520, 300)
	}
	msg := widget.NewLabel("The agent wants to run an action that needs your approval:")
	msg.Wrapping = fyne.TextWrapWord
	act := widget.NewLabelWithStyle(p.text, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	act.Wrapping = fyne.TextWrapBreak
	return container.NewVBox(msg, act), "Allow this action?", "Allow", "Deny", fyne.NewSize(480, 220)
}

// answerEntry returns p's answer entry, made on first use; the text typed so
// far moves with the prompt between the strip and a dialog. Enter answers.
func (u *UI) answerEntry(p *prompt) *widget.Entry {
	if p.entry != nil {
		return p.entry
	}
	e := widget.NewEntry()
	e.SetPlaceHolder("Your answer — Enter sends it")
	e.OnSubmitted = func(string) { u.answer(p, true) }
	return e
}

// stripPrompt builds p's panel for the strip: the question or the action and
// its buttons, compact.
func (u *UI) stripPrompt(p *prompt) fyne.CanvasObject {
	if p.question {
		q := widget.NewLabelWithStyle(wrapText("The agent asks: "+p.text, stripChars, 4), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		p.entry = u.answerEntry(p)
		ans := widget.NewButtonWithIcon("Answer", theme.ConfirmIcon(), func() { u.answer(p, true) })
		ans.Importance = widget.HighImportance
		dismiss := widget.NewButton("Dismiss", func() { u.answer(p, false) })
		return container.NewVBox(q, container.NewBorder(nil, nil, nil, container.NewHBox(dismiss, ans), p.entry))
	}
	title := widget.NewLabelWithStyle("Allow this action?", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	act := widget.NewLabelWithStyle(wrapText(p.text, stripChars-20, 4), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	allow := widget.NewButtonWithIcon("Allow", theme.ConfirmIcon(), func() { u.answer(p, true) })
	allow.Importance = widget.HighImportance
	deny := widget.NewButtonWithIcon("Deny", theme.CancelIcon(), func() { u.answer(p, false) })
	return container.NewBorder(nil, nil, nil, container.NewCenter(container.NewHBox(deny, allow)),
		container.NewVBox(title, act))
}

// stripChars is about how many characters fit on a line of the strip.
const stripChars = 88

// wrapText breaks s into lines of at most width characters at spaces (a
// longer word is cut), keeping at most maxLines; what is left out becomes "…".
// The strip shows text this way so its height is known before it is laid out.
func wrapText(s string, width, maxLines int) string {
	width, maxLines = max(width, 3), max(maxLines, 1)
	var lines []string
	for _, para := range strings.Split(strings.TrimSpace(s), "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			for utf8.RuneCountInString(w) > width {
				r := []rune(w)
				if line != "" {
					lines, line = append(lines, line), ""
				}
				lines, w = append(lines, string(r[:width])), string(r[width:])
			}
			switch {
			case line == "":
				line = w
			case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
				line += " " + w
			default:
				lines, line = append(lines, line), w
			}
		}
		lines = append(lines, line)
	}
	if len(lines) > maxLines {
		lines = lines[:maxLines]
		last := []rune(lines[maxLines-1])
		if len(last) > width-2 {
			last = last[:width-2]
		}
		lines[maxLines-1] = string(last) + " …"
	}
	return strings.Join(lines, "\n")
}
