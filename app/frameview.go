package app

import (
	"fmt"
	"image"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"deskpilot/actions"
	"deskpilot/agent/trace"
)

// frameView shows a frame scaled to fit the space it gets; a click on it
// calls onTap (enlarge).
type frameView struct {
	widget.BaseWidget
	img   *canvas.Image
	onTap func()
}

func newFrameView(onTap func()) *frameView {
	v := &frameView{img: canvas.NewImageFromImage(nil), onTap: onTap}
	v.img.FillMode = canvas.ImageFillContain
	v.img.ScaleMode = canvas.ImageScaleSmooth
	v.img.SetMinSize(fyne.NewSize(240, 150))
	v.ExtendBaseWidget(v)
	return v
}

// setImage shows img (nil: nothing).
func (v *frameView) setImage(img image.Image) {
	v.img.Image = img
	v.img.Refresh()
}

// image is the frame shown, or nil.
func (v *frameView) image() image.Image { return v.img.Image }

// CreateRenderer draws the image.
func (v *frameView) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(v.img) }

// Tapped enlarges the frame.
func (v *frameView) Tapped(*fyne.PointEvent) {
	if v.onTap != nil && v.img.Image != nil {
		v.onTap()
	}
}

// Cursor shows a hand over a frame that can be enlarged.
func (v *frameView) Cursor() desktop.Cursor { return desktop.PointerCursor }

// zoomFrame is what the enlarged view shows: the full-resolution screen after
// the newest step with that step's actions marked, or the model's frame when
// the full one is not known. Its title says which.
func (m *runModel) zoomFrame() (image.Image, string) {
	if m.Frame == nil {
		return nil, ""
	}
	var acts []actions.Record
	if n := m.FrameStep; n >= 1 && n <= len(m.Steps) {
		acts = m.Steps[n-1].Actions
	}
	if m.Screen != nil {
		d := m.Display
		if d.Empty() {
			d = m.Screen.Bounds()
		}
		img := withMarks(m.Screen, acts, &trace.Rect{X: d.Min.X, Y: d.Min.Y, W: d.Dx(), H: d.Dy()})
		return img, fmt.Sprintf("The screen after step %d, full size (%d×%d px), actions marked", m.FrameStep, img.Bounds().Dx(), img.Bounds().Dy())
	}
	return m.Frame, fmt.Sprintf("The screen after step %d as the model saw it (%d×%d px)", m.FrameStep, m.Frame.Bounds().Dx(), m.Frame.Bounds().Dy())
}

// enlarge opens the newest frame at full size in a window of its own.
func (v *runView) enlarge() {
	if v.zoom == nil {
		w := v.u.app.NewWindow(Title + " — screen")
		w.SetOnClosed(func() { v.zoom = nil })
		w.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) {
			if k.Name == fyne.KeyEscape {
				w.Close()
			}
		})
		v.zoom = w
	}
	v.showZoom()
	v.zoom.Show()
	v.zoom.RequestFocus()
}

// showZoom puts the newest frame in the enlarged view.
func (v *runView) showZoom() {
	img, title := v.u.model.zoomFrame()
	if img == nil {
		return
	}
	full := canvas.NewImageFromImage(img)
	full.FillMode = canvas.ImageFillOriginal
	full.ScaleMode = canvas.ImageScaleFastest
	head := widget.NewLabel(title + "  ·  Esc closes")
	head.Importance = widget.LowImportance
	v.zoom.SetContent(container.NewBorder(head, nil, nil, nil, container.NewScroll(full)))
	b := img.Bounds()
	v.zoom.Resize(fyne.NewSize(min(float32(b.Dx())+20, 1400), min(float32(b.Dy())+60, 900)))
}
