package vision

import (
	"image"
	"image/color"
	"testing"
)

var white = color.RGBA{255, 255, 255, 255}

func whiteImage(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range m.Pix {
		m.Pix[i] = 255
	}
	return m
}

// changedIn returns the bounding box of the pixels of m that are not white.
func changedIn(m *image.RGBA) image.Rectangle {
	var r image.Rectangle
	for y := m.Rect.Min.Y; y < m.Rect.Max.Y; y++ {
		for x := m.Rect.Min.X; x < m.Rect.Max.X; x++ {
			if m.RGBAAt(x, y) != white {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

func TestAnnotateDrawsWhereAsked(t *testing.T) {
	mark := rgb(markRGB)
	tests := []struct {
		name      string
		cursor    *image.Point
		marks     []Mark
		within    image.Rectangle // every changed pixel is inside
		markAt    []image.Point   // pixels that must have the mark colour
		blackAt   []image.Point   // pixels that must be black
		whiteAt   []image.Point   // pixels that must be white
		minExtent image.Point     // the changed area is at least this big
	}{
		{
			name:      "cursor tip at the point",
			cursor:    &image.Point{40, 30},
			within:    image.Rect(40, 30, 52, 47),
			blackAt:   []image.Point{{40, 30}, {40, 44}, {46, 46}},
			whiteAt:   []image.Point{{41, 32}, {43, 38}},
			minExtent: image.Pt(10, 16),
		},
		{
			name:      "click marker centred",
			marks:     []Mark{{At: image.Pt(100, 60)}},
			within:    image.Rect(100-17, 60-17, 100+18, 60+18),
			markAt:    []image.Point{{100, 60}, {110, 60}, {90, 60}, {100, 50}, {100, 70}, {100 + 12, 60}},
			minExtent: image.Pt(30, 30),
		},
		{
			name:      "drag arrow from At to To",
			marks:     []Mark{{Kind: MarkDrag, At: image.Pt(20, 100), To: image.Pt(180, 100)}},
			within:    image.Rect(20-6, 100-10, 180+3, 100+10),
			markAt:    []image.Point{{20, 100}, {100, 100}, {179, 100}, {170, 95}, {170, 105}},
			minExtent: image.Pt(160, 8),
		},
		{
			name:      "label box",
			marks:     []Mark{{Kind: MarkLabel, At: image.Pt(10, 150), Label: "Save"}},
			within:    image.Rect(10, 150, 10+4*7+6, 150+17),
			minExtent: image.Pt(4*7+6, 17),
		},
		{
			name:      "label kept inside the image",
			marks:     []Mark{{Kind: MarkLabel, At: image.Pt(195, 195), Label: "edge"}},
			within:    image.Rect(200-34, 200-17, 200, 200),
			minExtent: image.Pt(34, 17),
		},
		{
			name:      "marks near the border are clipped",
			marks:     []Mark{{At: image.Pt(0, 0)}, {At: image.Pt(199, 199)}},
			within:    image.Rect(0, 0, 200, 200),
			markAt:    []image.Point{{0, 0}, {199, 199}},
			minExtent: image.Pt(150, 150),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := whiteImage(200, 200)
			Annotate(m, tt.cursor, tt.marks)
			got := changedIn(m)
			if !got.In(tt.within) {
				t.Errorf("drew in %v, want inside %v", got, tt.within)
			}
			if got.Dx() < tt.minExtent.X || got.Dy() < tt.minExtent.Y {
				t.Errorf("drew in %v, want at least %v", got, tt.minExtent)
			}
			check := func(pts []image.Point, want color.RGBA) {
				for _, p := range pts {
					if c := m.RGBAAt(p.X, p.Y); c != want {
						t.Errorf("pixel %v = %v, want %v", p, c, want)
					}
				}
			}
			check(tt.markAt, mark)
			check(tt.blackAt, color.RGBA{0, 0, 0, 255})
			check(tt.whiteAt, white)
		})
	}
}

func TestAnnotateLabelIsLegible(t *testing.T) {
	m := whiteImage(120, 40)
	Annotate(m, nil, []Mark{{Kind: MarkLabel, At: image.Pt(5, 5), Label: "OK"}})
	var fg, bg int
	for y := 5; y < 22; y++ {
		for x := 5; x < 25; x++ {
			switch m.RGBAAt(x, y) {
			case rgb(labelFgRGB):
				fg++
			case rgb(labelBgRGB):
				bg++
			}
		}
	}
	if fg < 15 || bg < 100 {
		t.Errorf("label box has %d text and %d background pixels; want glyphs on a dark box", fg, bg)
	}
}

func TestMaskRects(t *testing.T) {
	m := whiteImage(300, 200)
	r := image.Rect(50, 40, 250, 160)
	MaskRects(m, []image.Rectangle{r, image.Rect(290, 190, 400, 400)})
	counts := map[color.RGBA]int{}
	for y := 0; y < 200; y++ {
		for x := 0; x < 300; x++ {
			c := m.RGBAAt(x, y)
			in := image.Pt(x, y).In(r) || image.Pt(x, y).In(image.Rect(290, 190, 300, 200))
			if !in {
				if c != white {
					t.Fatalf("pixel (%d,%d) outside the masks changed to %v", x, y, c)
				}
				continue
			}
			label := image.Rect(150-30, 100-10, 150+30, 100+10) // "masked", centred
			if c == white && !image.Pt(x, y).In(label) {
				t.Fatalf("pixel (%d,%d) inside a mask is still white", x, y)
			}
			counts[c]++
		}
	}
	if counts[rgb(maskRGB)] == 0 || counts[rgb(hatchRGB)] == 0 || counts[rgb(labelFgRGB)] == 0 {
		t.Errorf("mask colours %v; want flat fill, hatching and the word masked", counts)
	}
}

func TestCrop(t *testing.T) {
	src := whiteImage(100, 80)
	src.SetRGBA(30, 20, color.RGBA{1, 2, 3, 255})
	tests := []struct {
		name     string
		r        image.Rectangle
		wantSize image.Point
	}{
		{"inside", image.Rect(30, 20, 60, 40), image.Pt(30, 20)},
		{"clipped", image.Rect(90, 70, 200, 200), image.Pt(10, 10)},
		{"outside", image.Rect(200, 200, 300, 300), image.Pt(0, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Crop(src, tt.r)
			if c.Rect != (image.Rectangle{Max: tt.wantSize}) {
				t.Fatalf("Crop bounds %v, want (0,0)-%v", c.Rect, tt.wantSize)
			}
		})
	}
	c := Crop(src, image.Rect(30, 20, 60, 40))
	if got := c.RGBAAt(0, 0); got != (color.RGBA{1, 2, 3, 255}) {
		t.Errorf("top-left of the crop = %v, want the source pixel (30,20)", got)
	}
	c.SetRGBA(0, 0, color.RGBA{9, 9, 9, 255})
	if src.RGBAAt(30, 20) == (color.RGBA{9, 9, 9, 255}) {
		t.Error("Crop shares pixels with its source")
	}
}
