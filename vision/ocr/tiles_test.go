package ocr

import (
	"hash/maphash"
	"image"
	"testing"
)

func TestBands(t *testing.T) {
	for _, b := range []image.Rectangle{image.Rect(0, 0, 1920, 1080), image.Rect(0, 0, 10, 5), image.Rect(100, 50, 300, 700)} {
		got := bands(b, bandHeight, overlap)
		rows := map[int]int{}
		for _, bd := range got {
			if !bd.core.In(bd.window) || !bd.window.In(b) {
				t.Errorf("%v: band %+v not nested in the frame", b, bd)
			}
			if bd.window.Min.Y != max(bd.core.Min.Y-overlap, b.Min.Y) || bd.window.Max.Y != min(bd.core.Max.Y+overlap, b.Max.Y) {
				t.Errorf("%v: window %v does not reach %d rows around %v", b, bd.window, overlap, bd.core)
			}
			for y := bd.core.Min.Y; y < bd.core.Max.Y; y++ {
				rows[y]++
			}
		}
		for y := b.Min.Y; y < b.Max.Y; y++ {
			if rows[y] != 1 {
				t.Fatalf("%v: row %d owned by %d bands", b, y, rows[y])
			}
		}
	}
}

// inkPage returns a white w x h page and a function that inks a rectangle of
// it black.
func inkPage(w, h int) (*image.Gray, func(image.Rectangle)) {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = 255
	}
	return g, func(r image.Rectangle) {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				g.Pix[y*g.Stride+x] = 0
			}
		}
	}
}

func TestSegments(t *testing.T) {
	g, ink := inkPage(300, 60)
	ink(image.Rect(10, 20, 40, 30))   // a word
	ink(image.Rect(50, 20, 80, 30))   // the next word: 10 blank columns, same segment
	ink(image.Rect(200, 5, 260, 15))  // another window, past a wide gutter
	ink(image.Rect(290, 50, 291, 51)) // a speck: too small to read
	got := segments(g, minGutter)
	want := []image.Rectangle{
		image.Rect(10, 20, 80, 30).Inset(-segmentPad),
		image.Rect(200, 5, 260, 15).Inset(-segmentPad),
	}
	if len(got) != len(want) {
		t.Fatalf("segments = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("segment %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestHashRect(t *testing.T) {
	seed := maphash.MakeSeed()
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	r := image.Rect(8, 8, 40, 40)
	a := hashRect(seed, kindSegment, img, r)
	if b := hashRect(seed, kindSegment, img, r.Add(image.Pt(16, 16))); a != b {
		t.Error("the same pixels elsewhere hash differently")
	}
	img.Pix[img.PixOffset(20, 20)] = 1
	if b := hashRect(seed, kindSegment, img, r); a == b {
		t.Error("a changed pixel did not change the key")
	}
	if b := hashRect(seed, kindBand, img, r); b.kind == a.kind {
		t.Error("kinds share keys")
	}
}

func TestToLines(t *testing.T) {
	words := []rawWord{
		{text: "Hello", box: image.Rect(10, 10, 60, 30), conf: 90, block: 1, para: 1, line: 1},
		{text: "world", box: image.Rect(70, 10, 120, 30), conf: 70, block: 1, para: 1, line: 1},
		{text: "Next", box: image.Rect(10, 40, 50, 61), conf: 150, block: 1, para: 1, line: 2},
	}
	lines := toLines(words, 2)
	if len(lines) != 2 || lines[0].Text != "Hello world" || lines[1].Text != "Next" {
		t.Fatalf("lines = %+v", lines)
	}
	if lines[0].Box != image.Rect(5, 5, 60, 15) {
		t.Errorf("box at scale 2 = %v, want (5,5)-(60,15)", lines[0].Box)
	}
	if lines[1].Box.Max.Y != 31 { // rounded up: the box still covers the word
		t.Errorf("box %v not rounded out", lines[1].Box)
	}
	if lines[0].Conf != 0.8 || lines[1].Conf != 1 {
		t.Errorf("confidences %v, %v, want 0.8 and 1 (clamped)", lines[0].Conf, lines[1].Conf)
	}
}

func TestLinesInReadingOrder(t *testing.T) {
	line := func(text string, x, y, h int) Line {
		return newLine([]Word{{Text: text, Box: image.Rect(x, y, x+8*len(text), y+h), Conf: 1}})
	}
	lines := []Line{
		line("right", 300, 11, 12), // same row as "left", a little lower
		line("below", 10, 40, 12),
		line("left", 10, 10, 12),
		line("cell", 60, 10, 12), // near "left": one row, joined
	}
	sortLines(lines)
	merged := mergeRows(lines, rowGap)
	var got []string
	for _, l := range merged {
		got = append(got, l.Text)
	}
	want := []string{"left cell", "right", "below"}
	if len(got) != len(want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("lines %q, want %q", got, want)
		}
	}
}

func TestOwn(t *testing.T) {
	core := image.Rect(0, 160, 1920, 320)
	word := func(text string, x, y int) Word { return Word{Text: text, Box: image.Rect(x, y, x+30, y+10), Conf: 1} }
	tests := []struct {
		name string
		line Line
		want string // "" = not owned
	}{
		{"inside", newLine([]Word{word("a", 0, 200), word("b", 40, 200)}), "a b"},
		{"centre just inside", newLine([]Word{word("a", 0, 155), word("b", 40, 157)}), "a b"},
		{"centre just outside", newLine([]Word{word("a", 0, 150), word("b", 40, 153)}), ""},
		{"two rows joined: split by word", newLine([]Word{word("up", 0, 145), word("down", 40, 162)}), "down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, ok := own(tt.line, core)
			if got := map[bool]string{true: l.Text, false: ""}[ok]; got != tt.want {
				t.Errorf("own = %q, want %q", got, tt.want)
			}
		})
	}
}

// A band reads the lines of its core and those crossing the core's edges,
// not those lying wholly in the overlap rows, which its neighbours own.
func TestToCore(t *testing.T) {
	g, ink := inkPage(300, 208) // a window: 24 overlap rows, a 160-row core, 24 more
	core := image.Rect(0, 24, 300, 184)
	ink(image.Rect(10, 4, 90, 16))    // column 1: a line wholly above the core
	ink(image.Rect(10, 19, 90, 31))   // crossing the core's top
	ink(image.Rect(10, 100, 90, 112)) // inside
	ink(image.Rect(10, 178, 90, 190)) // crossing its bottom
	ink(image.Rect(10, 194, 90, 205)) // wholly below
	ink(image.Rect(120, 2, 200, 14))  // column 2: only a line above the core
	ink(image.Rect(230, 5, 240, 200)) // column 3: one tall stroke across both edges
	segs := toCore(g, []image.Rectangle{image.Rect(6, 0, 94, 208), image.Rect(116, 0, 204, 18), image.Rect(226, 1, 244, 204)}, core)
	want := []image.Rectangle{image.Rect(6, 18, 94, 191), image.Rect(226, 4, 244, 201)}
	if len(segs) != len(want) || segs[0] != want[0] || segs[1] != want[1] {
		t.Errorf("toCore = %v, want %v", segs, want)
	}
}
