package agent

import (
	"image"
	"image/color"
	"image/draw"
	"testing"
)

// A control lit by the pointer is left out of a replay's check only when its
// marks are as recorded: another label there, or a change wider than a
// control, still counts.
func TestHoverArea(t *testing.T) {
	bg, face, lit := color.RGBA{217, 217, 217, 255}, color.RGBA{200, 200, 200, 255}, color.RGBA{236, 236, 236, 255}
	button := image.Rect(100, 100, 170, 134)
	paint := func(faceC color.RGBA, strokes []image.Rectangle) *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, 640, 400))
		draw.Draw(img, img.Rect, image.NewUniform(bg), image.Point{}, draw.Src)
		draw.Draw(img, button, image.NewUniform(faceC), image.Point{}, draw.Src)
		for _, s := range strokes {
			draw.Draw(img, s, image.NewUniform(color.Black), image.Point{}, draw.Src)
		}
		return img
	}
	save := []image.Rectangle{image.Rect(115, 110, 118, 124), image.Rect(125, 110, 135, 113), image.Rect(140, 110, 143, 124)}
	other := []image.Rectangle{image.Rect(112, 108, 160, 111), image.Rect(130, 108, 133, 126), image.Rect(150, 118, 158, 126)}
	at := image.Pt(150, 117)
	sprite := image.Rect(at.X-4, at.Y-4, at.X+28, at.Y+36)
	rec := paint(face, save)
	if h := hoverArea(paint(lit, save), rec, at, sprite); h.Empty() || !h.In(button) {
		t.Errorf("the lit Save button: hover area %v, want one inside %v", h, button)
	}
	if h := hoverArea(paint(lit, other), rec, at, sprite); !h.Empty() {
		t.Errorf("another label on the lit button was left out as a highlight: %v", h)
	}
	if h := hoverArea(paint(face, save), rec, at, sprite); !h.Empty() {
		t.Errorf("nothing changed, yet a hover area %v", h)
	}
	wide := paint(lit, save)
	draw.Draw(wide, image.Rect(0, 90, 640, 150), image.NewUniform(lit), image.Point{}, draw.Src)
	if h := hoverArea(wide, rec, at, sprite); !h.Empty() {
		t.Errorf("a change across the screen was taken for a highlight: %v", h)
	}
	if h := hoverArea(paint(lit, save), rec, image.Pt(400, 300), image.Rect(396, 296, 428, 336)); !h.Empty() {
		t.Errorf("a change away from the pointer was taken for its highlight: %v", h)
	}
}
