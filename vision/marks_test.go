package vision

import (
	"flag"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

var marksPNG = flag.String("marks-png", "", "write the marked busy screen of TestDrawBoxMarksBusy to this PNG file, to look at")

func filled(w, h int, c color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Rect, image.NewUniform(c), image.Point{}, draw.Src)
	return img
}

func TestDrawBoxMarksPlacement(t *testing.T) {
	bounds := image.Rect(0, 0, 400, 300)
	tests := []struct {
		name  string
		marks []BoxMark
	}{
		{"corner top-left", []BoxMark{{N: 1, Box: image.Rect(0, 0, 60, 20)}}},
		{"corner bottom-right", []BoxMark{{N: 12, Box: image.Rect(340, 280, 400, 300)}}},
		{"bigger than the image", []BoxMark{{N: 3, Box: image.Rect(-50, -50, 500, 400)}}},
		{"middle", []BoxMark{{N: 7, Box: image.Rect(150, 120, 250, 140)}}},
		{"a row of buttons", []BoxMark{
			{N: 1, Box: image.Rect(20, 100, 80, 124)},
			{N: 2, Box: image.Rect(90, 100, 150, 124)},
			{N: 3, Box: image.Rect(160, 100, 220, 124)},
		}},
		{"a column of list items", []BoxMark{
			{N: 10, Box: image.Rect(40, 40, 200, 56)},
			{N: 11, Box: image.Rect(40, 58, 200, 74)},
			{N: 12, Box: image.Rect(40, 76, 200, 92)},
			{N: 13, Box: image.Rect(40, 94, 200, 110)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img := filled(bounds.Dx(), bounds.Dy(), color.RGBA{255, 255, 255, 255})
			labels := DrawBoxMarks(img, tt.marks)
			for i, l := range labels {
				if !l.In(bounds) {
					t.Errorf("label %d at %v sticks out of %v", tt.marks[i].N, l, bounds)
				}
				for j, o := range labels[:i] {
					if l.Overlaps(o) {
						t.Errorf("labels %d %v and %d %v overlap", tt.marks[i].N, l, tt.marks[j].N, o)
					}
				}
				box := tt.marks[i].Box.Intersect(bounds)
				if box.Inset(-8) != box.Inset(-8).Intersect(bounds) || len(tt.marks) > 1 {
					continue // no room around this box: the label may cover it
				}
				if l.Overlaps(box) {
					t.Errorf("label %d at %v covers its box %v though there is room outside", tt.marks[i].N, l, box)
				}
			}
		})
	}
}

// The number must be legible on the label and the frame visible on light
// and dark screens: the frame's halo contrasts with the background, and the
// digits with the label.
func TestDrawBoxMarksContrast(t *testing.T) {
	for _, bg := range []color.RGBA{{255, 255, 255, 255}, {0, 0, 0, 255}, {128, 128, 128, 255}, {230, 25, 75, 255}} {
		img := filled(200, 100, bg)
		box := image.Rect(60, 40, 140, 70)
		labels := DrawBoxMarks(img, []BoxMark{{N: 8, Box: box}})
		halo := img.RGBAAt(box.Min.X-1, box.Min.Y+10)
		if d := abs(luma(halo.R, halo.G, halo.B) - luma(bg.R, bg.G, bg.B)); d < 100 {
			t.Errorf("on %v the halo %v differs by only %d", bg, halo, d)
		}
		frame := img.RGBAAt(box.Min.X, box.Min.Y+10)
		if frame != boxColour(0) {
			t.Errorf("on %v the frame is %v, want %v", bg, frame, boxColour(0))
		}
		// The label holds the mark colour and a contrasting digit colour.
		l := labels[0]
		colours := map[color.RGBA]int{}
		for y := l.Min.Y + 1; y < l.Max.Y-1; y++ {
			for x := l.Min.X + 1; x < l.Max.X-1; x++ {
				colours[img.RGBAAt(x, y)]++
			}
		}
		fill := boxColour(0)
		if colours[fill] == 0 || len(colours) != 2 {
			t.Fatalf("label colours %v, want the fill %v and one digit colour", colours, fill)
		}
		for c, n := range colours {
			if c != fill && (n < 20 || abs(luma(c.R, c.G, c.B)-luma(fill.R, fill.G, fill.B)) < 80) {
				t.Errorf("digits %v (%d px) hard to read on %v", c, n, fill)
			}
		}
	}
}

func TestDrawBoxMarksBounds(t *testing.T) {
	img := filled(50, 50, color.RGBA{255, 255, 255, 255})
	marks := make([]BoxMark, MaxBoxMarks+10)
	for i := range marks {
		marks[i] = BoxMark{N: i + 1, Box: image.Rect(i%50, i%50, i%50+3, i%50+3)}
	}
	marks[0].Box = image.Rect(500, 500, 600, 600) // outside the image
	labels := DrawBoxMarks(img, marks)
	if !labels[0].Empty() {
		t.Errorf("a box outside the image got a label at %v", labels[0])
	}
	if !labels[MaxBoxMarks].Empty() {
		t.Errorf("mark %d past the limit got a label", MaxBoxMarks+1)
	}
	if DrawBoxMarks(img, nil) == nil {
		t.Error("nil marks: want an empty slice")
	}
}

func TestImageRect(t *testing.T) {
	m := NewMapper(image.Rect(1920, 0, 3840, 1080), 960, CoordPixels) // image 960x540, half size
	tests := []struct {
		name string
		root image.Rectangle
		want image.Rectangle
	}{
		{"aligned", image.Rect(1920, 0, 1940, 20), image.Rect(0, 0, 10, 10)},
		{"odd edges cover every pixel", image.Rect(1921, 1, 1942, 22), image.Rect(0, 0, 11, 11)},
		{"empty", image.Rectangle{}, image.Rectangle{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ImageRect(m, tt.root); got != tt.want {
				t.Errorf("ImageRect(%v) = %v, want %v", tt.root, got, tt.want)
			}
		})
	}
}

// A set-of-marks overlay on the busy desktop, downscaled as the model sees
// it: every label stays inside the image and apart from the others where
// the boxes leave room. Run with -marks-png=FILE to look at it.
func TestDrawBoxMarksBusy(t *testing.T) {
	frame := loadRGBA(t, "busy1080.png")
	m := NewMapper(frame.Rect, 1366, CoordPixels)
	img := Downscale(frame, m.Image)
	// Controls of the Tk dialog and the terminals' title bars, in root pixels.
	root := []image.Rectangle{
		image.Rect(1360, 104, 1610, 124), image.Rect(1360, 133, 1610, 153), image.Rect(1360, 162, 1620, 182),
		image.Rect(1843, 106, 1858, 121), image.Rect(1843, 135, 1858, 150), image.Rect(1843, 164, 1858, 179),
		image.Rect(1360, 334, 1860, 354), image.Rect(1360, 362, 1440, 380), image.Rect(1360, 380, 1445, 398),
		image.Rect(1732, 480, 1812, 500), image.Rect(1816, 480, 1862, 500),
		image.Rect(525, 10, 620, 28), image.Rect(1175, 565, 1355, 582),
		image.Rect(10, 30, 470, 48), image.Rect(10, 45, 460, 62),
	}
	marks := make([]BoxMark, len(root))
	for i, r := range root {
		marks[i] = BoxMark{N: i + 1, Box: ImageRect(m, r)}
	}
	labels := DrawBoxMarks(img, marks)
	for i, l := range labels {
		if !l.In(img.Rect) {
			t.Errorf("label %d at %v outside the image", i+1, l)
		}
	}
	if *marksPNG == "" {
		return
	}
	path, err := filepath.Abs(*marksPNG)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", path)
}

// BenchmarkDrawBoxMarks: the set-of-marks overhead per step, 100 marks on the
// 1366x768 image the model sees.
func BenchmarkDrawBoxMarks(b *testing.B) {
	frame := loadRGBA(b, "busy1080.png")
	m := NewMapper(frame.Rect, 1366, CoordPixels)
	base := Downscale(frame, m.Image)
	img := image.NewRGBA(base.Rect)
	var marks []BoxMark
	for i := range 100 {
		x, y := 40+(i%10)*130, 30+(i/10)*70
		marks = append(marks, BoxMark{N: i + 1, Box: image.Rect(x, y, x+90, y+22)})
	}
	for b.Loop() {
		copy(img.Pix, base.Pix)
		DrawBoxMarks(img, marks)
	}
}
