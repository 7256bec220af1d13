package app

import (
	"errors"
	"fmt"
	"os/exec"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// showOpenFailed tells the person that path could not be opened, why, and
// where it is, with a button that copies the path.
func (u *UI) showOpenFailed(path string, err error) {
	why := fmt.Sprintf("It could not be opened: %v.", err)
	if errors.Is(err, exec.ErrNotFound) {
		why = "No program to open it was found: install xdg-utils (it provides xdg-open) and a web browser."
	}
	msg := widget.NewLabel(why + " Open it in a browser yourself; it is here:")
	msg.Wrapping = fyne.TextWrapWord
	where := widget.NewLabelWithStyle(path, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	where.Wrapping = fyne.TextWrapBreak
	where.Selectable = true
	copyBtn := widget.NewButtonWithIcon("Copy path", theme.ContentCopyIcon(), nil)
	copyBtn.OnTapped = func() {
		u.app.Clipboard().SetContent(path)
		copyBtn.SetText("Copied")
	}
	d := dialog.NewCustom("The report did not open", "Close",
		container.NewVBox(msg, where, container.NewHBox(copyBtn)), u.win)
	d.Resize(fyne.NewSize(560, 220))
	d.Show()
	u.openFailed = where
}
