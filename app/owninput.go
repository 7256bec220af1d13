package app

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// inputSensor lies under the window's content and tells Deps.OwnInput when
// the pointer moves over the window, enters or leaves it, or a part of it
// that takes the pointer (a button): the person is using deskpilot, which a
// Wayland compositor tells no other program, so the agent must not take it
// for a takeover.
type inputSensor struct {
	widget.BaseWidget
	note func()
}

func newInputSensor(note func()) *inputSensor {
	s := &inputSensor{note: note}
	s.ExtendBaseWidget(s)
	return s
}

// CreateRenderer draws nothing.
func (s *inputSensor) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(canvas.NewRectangle(color.Transparent))
}

// MouseIn notes own input.
func (s *inputSensor) MouseIn(*desktop.MouseEvent) { s.note() }

// MouseMoved notes own input.
func (s *inputSensor) MouseMoved(*desktop.MouseEvent) { s.note() }

// MouseOut notes own input.
func (s *inputSensor) MouseOut() { s.note() }

// setContent shows o in the window, over the input sensor when the app was
// given Deps.OwnInput; key presses in the window are noted too.
func (u *UI) setContent(o fyne.CanvasObject) {
	if u.deps.OwnInput == nil {
		u.win.SetContent(o)
		return
	}
	if u.sensor == nil {
		u.sensor = newInputSensor(u.deps.OwnInput)
		if dc, ok := u.win.Canvas().(desktop.Canvas); ok {
			dc.SetOnKeyDown(func(*fyne.KeyEvent) { u.deps.OwnInput() })
		}
	}
	u.win.SetContent(container.NewStack(u.sensor, o))
}
