package main

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// painter draws synthetic desktop frames like the ones the agent sends the model.
type painter struct{ face font.Face }

func newPainter() *painter {
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		panic(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 15, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		panic(err)
	}
	return &painter{face: face}
}

func fill(dst *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(dst, r, image.NewUniform(c), image.Point{}, draw.Src)
}

func (p *painter) text(dst *image.RGBA, x, y int, s string, c color.Color) {
	d := font.Drawer{Dst: dst, Src: image.NewUniform(c), Face: p.face, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

// desktop draws a 1366×768 desktop; editor adds a text editor window with lines.
func (p *painter) desktop(editor bool, title string, lines []string) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 1366, 768))
	for y := 0; y < 768; y++ {
		t := float64(y) / 768
		fill(img, image.Rect(0, y, 1366, y+1), color.RGBA{uint8(30 + 20*t), uint8(90 + 40*t), uint8(120 + 30*t), 255})
	}
	fill(img, image.Rect(0, 0, 1366, 28), color.RGBA{32, 32, 36, 255})
	p.text(img, 12, 19, "Activities", color.White)
	p.text(img, 640, 19, "Tue 14:05", color.White)
	for i, name := range []string{"Files", "Terminal", "Text Editor", "Browser"} {
		y := 90 + i*90
		fill(img, image.Rect(30, y, 90, y+60), color.RGBA{240, 240, 240, 230})
		p.text(img, 22, y+78, name, color.White)
	}
	if !editor {
		return img
	}
	win := image.Rect(260, 90, 1110, 660)
	fill(img, win.Inset(-1), color.RGBA{0, 0, 0, 90})
	fill(img, image.Rect(win.Min.X, win.Min.Y, win.Max.X, win.Min.Y+36), color.RGBA{235, 235, 235, 255})
	p.text(img, win.Min.X+16, win.Min.Y+24, title, color.RGBA{40, 40, 40, 255})
	fill(img, image.Rect(win.Min.X, win.Min.Y+36, win.Max.X, win.Max.Y), color.White)
	for i, l := range lines {
		p.text(img, win.Min.X+24, win.Min.Y+72+i*24, l, color.RGBA{30, 30, 30, 255})
	}
	return img
}

// mark draws a click marker (orange ring) and the cursor arrow at (x, y).
func mark(img *image.RGBA, x, y int) {
	for py := y - 22; py <= y+22; py++ {
		for px := x - 22; px <= x+22; px++ {
			d := math.Hypot(float64(px-x), float64(py-y))
			if d > 14 && d < 19 {
				img.Set(px, py, color.RGBA{255, 140, 0, 255})
			}
		}
	}
	for i := 0; i < 18; i++ {
		for j := 0; j <= i/2; j++ {
			img.Set(x+j, y+i, color.Black)
		}
		img.Set(x+i/2+1, y+i, color.White)
	}
}
