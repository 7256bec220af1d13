package vision

import (
	"errors"
	"image"
	"image/color"
	"image/draw"
	"slices"
	"testing"
)

// scene draws a desktop-like 1280x800 picture: a gradient wallpaper, a panel,
// and a window at each of wins with a title bar, rows of "text" whose layout
// depends on seed, and a button.
func scene(seed int, wins ...image.Point) *image.RGBA {
	const w, h = 1280, 800
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, color.RGBA{uint8(40 + 30*y/h), uint8(70 + 40*x/w), 130, 255})
		}
	}
	fill(img, image.Rect(0, h-28, w, h), color.RGBA{30, 30, 36, 255})
	for _, at := range wins {
		window(img, at, seed)
	}
	return img
}

// window draws a 420x300 window with its top-left corner at at.
func window(img *image.RGBA, at image.Point, seed int) {
	r := image.Rectangle{Min: at, Max: at.Add(image.Pt(420, 300))}
	fill(img, r, color.RGBA{236, 236, 236, 255})
	fill(img, image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+24), color.RGBA{60, 80, 120, 255})
	rnd := uint32(seed*7919 + 17)
	next := func(n int) int {
		rnd = rnd*1664525 + 1013904223
		return int(rnd>>16) % n
	}
	for y := r.Min.Y + 40; y+12 < r.Max.Y-60; y += 20 {
		for x := r.Min.X + 12; x+10 < r.Max.X-12; x += 8 + next(6) {
			if next(5) != 0 {
				fill(img, image.Rect(x, y, x+5+next(3), y+10), color.RGBA{30, 30, 30, 255})
			}
		}
	}
	btn := image.Rect(r.Max.X-110, r.Max.Y-46, r.Max.X-20, r.Max.Y-16)
	fill(img, btn, color.RGBA{200, 210, 225, 255})
	fill(img, image.Rect(btn.Min.X+22, btn.Min.Y+10, btn.Min.X+30, btn.Max.Y-10), color.RGBA{20, 20, 20, 255})
	fill(img, image.Rect(btn.Min.X+36, btn.Min.Y+10, btn.Min.X+60, btn.Min.Y+13), color.RGBA{20, 20, 20, 255})
	fill(img, image.Rect(btn.Min.X+36, btn.Max.Y-13, btn.Min.X+60, btn.Max.Y-10), color.RGBA{20, 20, 20, 255})
}

// buttonOf is the centre of the button of a window whose corner is at at.
func buttonOf(at image.Point) image.Point { return at.Add(image.Pt(420-65, 300-31)) }

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r, &image.Uniform{c}, image.Point{}, draw.Src)
}

func withCursor(img *image.RGBA, at image.Point) *image.RGBA {
	out := Crop(img, img.Rect)
	drawCursor(out, at)
	return out
}

func TestCompare(t *testing.T) {
	base := scene(1, image.Pt(200, 150))
	small := Downscale(base, image.Pt(640, 400))
	cases := []struct {
		name    string
		a, b    *image.RGBA
		ignore  []image.Rectangle
		min     float64 // Score must be at least this
		max     float64 // and at most this
		diffHas []image.Point
	}{
		{name: "same frame", a: base, b: base, min: 1, max: 1},
		{name: "cursor moved", a: withCursor(base, image.Pt(90, 90)), b: withCursor(base, image.Pt(700, 420)), min: 0.99, max: 1},
		{name: "cursor ignored", a: withCursor(base, image.Pt(90, 90)), b: base,
			ignore: []image.Rectangle{image.Rect(80, 80, 120, 130)}, min: 1, max: 1},
		{name: "window moved", a: base, b: scene(1, image.Pt(620, 330)), min: 0, max: 0.9,
			diffHas: []image.Point{image.Pt(300, 250), image.Pt(900, 500)}},
		{name: "content changed", a: base, b: scene(9, image.Pt(200, 150)), min: 0, max: 0.98,
			diffHas: []image.Point{image.Pt(400, 250)}},
		{name: "another window", a: base, b: scene(1), min: 0, max: 0.9},
		{name: "scaled copy", a: base, b: small, min: 0.97, max: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := Compare(c.a, c.b, c.ignore)
			if l.Score < c.min || l.Score > c.max {
				t.Errorf("score %.4f, want %.2f..%.2f", l.Score, c.min, c.max)
			}
			if l.Score == 1 && !l.Diff.Empty() {
				t.Errorf("identical, yet Diff = %v", l.Diff)
			}
			for _, p := range c.diffHas {
				if !p.In(l.Diff) {
					t.Errorf("Diff %v does not cover %v", l.Diff, p)
				}
			}
		})
	}
}

func TestCompareEdges(t *testing.T) {
	empty := image.NewRGBA(image.Rectangle{})
	one := scene(1, image.Pt(10, 10))
	if l := Compare(empty, empty, nil); l.Score != 1 {
		t.Errorf("two empty pictures score %v, want 1", l.Score)
	}
	if l := Compare(one, empty, nil); l.Score != 0 {
		t.Errorf("a picture and an empty one score %v, want 0", l.Score)
	}
	if l := Compare(one, scene(5), []image.Rectangle{one.Rect}); l.Score != 1 {
		t.Errorf("everything ignored scores %v, want 1", l.Score)
	}
	// A patch with an offset origin compares like one at (0, 0).
	r := image.Rect(300, 200, 380, 280)
	if l := Compare(one.SubImage(r), Crop(one, r), nil); l.Score != 1 {
		t.Errorf("sub-image against its copy scores %v", l.Score)
	}
}

func TestFindTemplate(t *testing.T) {
	from, to := image.Pt(200, 150), image.Pt(640, 380)
	rec := scene(1, from)
	patchAt := func(c image.Point) image.Rectangle {
		return image.Rect(c.X-40, c.Y-40, c.X+40, c.Y+40)
	}
	btn := patchAt(buttonOf(from))
	tmpl := Crop(rec, btn)
	cases := []struct {
		name      string
		img       *image.RGBA
		want      image.Point // top-left of the match; ignored when found is false
		found     bool        // a clear match: Score >= 0.9 and Next well below
		ambiguous bool        // two equal matches: Next close to Score
	}{
		{name: "in place", img: rec, want: btn.Min, found: true},
		{name: "window moved", img: scene(1, to), want: patchAt(buttonOf(to)).Min, found: true},
		{name: "window moved, cursor over it", img: withCursor(scene(1, to), buttonOf(to).Add(image.Pt(8, 4))), want: patchAt(buttonOf(to)).Min, found: true},
		{name: "two windows", img: scene(1, image.Pt(60, 60), image.Pt(700, 420)), ambiguous: true},
		{name: "gone", img: scene(1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := FindTemplate(c.img, tmpl)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.found:
				if m.At != c.want || m.Score < 0.9 || m.Next > m.Score-0.1 {
					t.Errorf("match %+v, want at %v with a clear score", m, c.want)
				}
			case c.ambiguous:
				if m.Score < 0.95 || m.Next < m.Score-0.02 {
					t.Errorf("match %+v, want two near-equal scores", m)
				}
			default:
				if m.Score >= 0.8 {
					t.Errorf("match %+v on a screen without the target", m)
				}
			}
		})
	}
}

// A large template (a quarter of a window and the wallpaper beside it) is
// followed down a three-level pyramid to the exact place.
func TestFindTemplateLarge(t *testing.T) {
	from, to := image.Pt(200, 150), image.Pt(640, 380)
	c := buttonOf(from)
	r := image.Rect(c.X-160, c.Y-160, c.X+160, c.Y+100)
	tmpl := Crop(scene(1, from), r)
	m, err := FindTemplate(scene(1, to), tmpl)
	if want := r.Min.Add(to.Sub(from)); err != nil || m.At != want || m.Score < 0.9 {
		t.Errorf("match %+v (%v), want at %v", m, err, want)
	}
}

func TestFindTemplateRefuses(t *testing.T) {
	img := scene(1, image.Pt(200, 150))
	flat := image.NewRGBA(image.Rect(0, 0, 60, 60))
	fill(flat, flat.Rect, color.RGBA{236, 236, 236, 255})
	if _, err := FindTemplate(img, flat); !errors.Is(err, ErrFlatTemplate) {
		t.Errorf("flat template: %v, want ErrFlatTemplate", err)
	}
	if _, err := FindTemplate(Crop(img, image.Rect(0, 0, 50, 50)), Crop(img, image.Rect(0, 0, 80, 80))); err == nil {
		t.Error("a template larger than the picture was searched")
	}
	if _, err := FindTemplate(img, image.NewRGBA(image.Rectangle{})); err == nil {
		t.Error("an empty template was searched")
	}
	// A tiny template is searched at full resolution.
	small := Crop(img, image.Rect(555, 400, 567, 412))
	if m, err := FindTemplate(img, small); err != nil || m.Score < 0.99 {
		t.Errorf("12x12 template: %+v, %v", m, err)
	}
}

func TestMaskedAreas(t *testing.T) {
	img := scene(1, image.Pt(200, 150))
	own := image.Rect(900, 600, 1260, 700)
	MaskRects(img, []image.Rectangle{own})
	areas := MaskedAreas(img)
	for _, a := range areas {
		if !a.In(own.Inset(-maskCell)) {
			t.Errorf("area %v is more than a cell outside the mask %v", a, own)
		}
	}
	for y := own.Min.Y; y < own.Max.Y; y++ {
		for x := own.Min.X; x < own.Max.X; x++ {
			if !slices.ContainsFunc(areas, image.Pt(x, y).In) {
				t.Fatalf("(%d, %d) of the mask is in no area %v", x, y, areas)
			}
		}
	}
	if a := MaskedAreas(scene(1, image.Pt(200, 150))); len(a) != 0 {
		t.Errorf("an unmasked frame has masked areas %v", a)
	}
}

func BenchmarkCompare(b *testing.B) {
	x, y := scene(1, image.Pt(200, 150)), scene(2, image.Pt(210, 150))
	for b.Loop() {
		Compare(x, y, nil)
	}
}

func BenchmarkFindTemplate(b *testing.B) {
	rec := scene(1, image.Pt(200, 150))
	c := buttonOf(image.Pt(200, 150))
	tmpl := Crop(rec, image.Rect(c.X-40, c.Y-40, c.X+40, c.Y+40))
	img := scene(1, image.Pt(640, 380))
	for b.Loop() {
		if _, err := FindTemplate(img, tmpl); err != nil {
			b.Fatal(err)
		}
	}
}
