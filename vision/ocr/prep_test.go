package ocr

import (
	"image"
	"image/color"
	"image/draw"
	"testing"
)

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
}

var (
	white = color.RGBA{255, 255, 255, 255}
	black = color.RGBA{0, 0, 0, 255}
	blue  = color.RGBA{58, 110, 165, 255}
)

// Light-on-dark and dark-on-light strokes both come out as dark ink on white,
// and a light title on a mid-tone bar too.
func TestPreparePolarity(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 192, 64))
	fill(img, image.Rect(0, 0, 64, 64), white)
	fill(img, image.Rect(64, 0, 128, 64), black)
	fill(img, image.Rect(128, 0, 192, 64), blue)
	strokes := map[string]image.Rectangle{
		"dark on light": image.Rect(20, 20, 23, 32),
		"light on dark": image.Rect(84, 20, 87, 32),
		"light on blue": image.Rect(148, 20, 151, 32),
	}
	fill(img, strokes["dark on light"], black)
	fill(img, strokes["light on dark"], white)
	fill(img, strokes["light on blue"], white)
	g := prepare(img, img.Rect)
	for name, r := range strokes {
		if v := g.GrayAt(r.Min.X+1, r.Min.Y+5).Y; v > 40 {
			t.Errorf("%s: stroke is %d, want dark ink", name, v)
		}
		if v := g.GrayAt(r.Max.X+8, r.Min.Y+5).Y; v < 240 {
			t.Errorf("%s: background is %d, want white", name, v)
		}
	}
}

// Long rules (borders, outlines) are erased; glyph-sized strokes stay.
func TestPrepareRemovesRules(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 200, 100))
	fill(img, img.Rect, white)
	fill(img, image.Rect(10, 10, 190, 11), black) // horizontal rule
	fill(img, image.Rect(5, 5, 6, 95), black)     // vertical rule
	fill(img, image.Rect(40, 40, 43, 52), black)  // a glyph stem
	fill(img, image.Rect(50, 40, 62, 42), black)  // a glyph bar
	g := prepare(img, img.Rect)
	for name, p := range map[string]image.Point{"horizontal rule": {100, 10}, "vertical rule": {5, 50}} {
		if v := g.GrayAt(p.X, p.Y).Y; v != 255 {
			t.Errorf("%s kept (%d)", name, v)
		}
	}
	for name, p := range map[string]image.Point{"stem": {41, 45}, "bar": {55, 41}} {
		if v := g.GrayAt(p.X, p.Y).Y; v > 40 {
			t.Errorf("%s erased (%d)", name, v)
		}
	}
}

func TestUpscale(t *testing.T) {
	src := image.NewGray(image.Rect(0, 0, 4, 2))
	copy(src.Pix, []uint8{0, 0, 255, 255, 0, 0, 255, 255})
	for _, scale := range []float64{1, 1.5, 2, 3} {
		g := upscale(src, src.Rect, scale)
		w, h := int(4*scale+0.5), int(2*scale+0.5)
		if g.Rect != image.Rect(0, 0, w, h) {
			t.Fatalf("scale %v: size %v", scale, g.Rect)
		}
		if g.GrayAt(0, 0).Y != 0 || g.GrayAt(w-1, h-1).Y != 255 {
			t.Errorf("scale %v: corners %d, %d", scale, g.GrayAt(0, 0).Y, g.GrayAt(w-1, h-1).Y)
		}
	}
	// A sub-rectangle is read from its own origin.
	if g := upscale(src, image.Rect(2, 0, 4, 2), 2); g.GrayAt(0, 0).Y != 255 {
		t.Errorf("sub-rectangle starts with %d", g.GrayAt(0, 0).Y)
	}
}

// What is left of an outline once its rules are gone — the short sides of a
// box, the curved ends of an oval button — is erased too; a glyph touching a
// rule at one end only (a descender on an underline) stays.
func TestPrepareRemovesOutlineRemnants(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 200, 100))
	fill(img, img.Rect, white)
	// A button 100x22: long top and bottom rules, sides too short to be rules.
	fill(img, image.Rect(20, 10, 120, 11), black)
	fill(img, image.Rect(20, 31, 120, 32), black)
	fill(img, image.Rect(19, 11, 20, 31), black) // left side
	fill(img, image.Rect(120, 11, 122, 31), black)
	// An oval's end: an arc of three steps from the top rule to the bottom one.
	fill(img, image.Rect(140, 50, 190, 51), black)
	fill(img, image.Rect(140, 72, 190, 73), black)
	fill(img, image.Rect(138, 51, 140, 54), black)
	fill(img, image.Rect(136, 54, 138, 69), black)
	fill(img, image.Rect(138, 69, 140, 72), black)
	fill(img, image.Rect(60, 15, 63, 27), black) // a glyph inside the button
	// An underlined word: a descender reaching down to the underline.
	fill(img, image.Rect(20, 90, 100, 91), black)
	fill(img, image.Rect(40, 78, 43, 90), black)
	g := prepare(img, img.Rect)
	for name, p := range map[string]image.Point{"left side": {19, 20}, "right side": {121, 20}, "arc": {137, 60}} {
		if v := g.GrayAt(p.X, p.Y).Y; v != 255 {
			t.Errorf("%s kept (%d)", name, v)
		}
	}
	for name, p := range map[string]image.Point{"glyph": {61, 20}, "descender": {41, 85}} {
		if v := g.GrayAt(p.X, p.Y).Y; v > 40 {
			t.Errorf("%s erased (%d)", name, v)
		}
	}
}
