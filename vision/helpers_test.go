package vision

import (
	"image"
	"image/draw"
	"image/png"
	"os"
	"testing"
)

// loadRGBA reads a PNG from testdata as *image.RGBA.
func loadRGBA(tb testing.TB, name string) *image.RGBA {
	tb.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		tb.Fatalf("decode %s: %v", name, err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Rect, img, img.Bounds().Min, draw.Src)
	return rgba
}
