package vision

import (
	"bytes"
	"image"
	"image/color"
	"math/rand/v2"
	"testing"
)

// TestAnnotationBounds draws random marks and cursors and checks that every
// pixel Annotate changed lies inside the rectangles annotationBounds gives:
// the Observer trusts them to restore the rows it drew on.
func TestAnnotationBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	labels := []string{"", "click", "a much longer label that may stick out of the image", "Grüße"}
	for i := range 150 {
		w, h := 40+r.IntN(300), 30+r.IntN(200)
		pt := func() image.Point { return image.Pt(r.IntN(w+60)-30, r.IntN(h+60)-30) }
		var marks []Mark
		for range r.IntN(4) {
			marks = append(marks, Mark{Kind: []MarkKind{MarkClick, MarkDrag, MarkLabel}[r.IntN(3)],
				At: pt(), To: pt(), Label: labels[r.IntN(len(labels))]})
		}
		var cursor *image.Point
		if r.IntN(2) == 0 {
			c := pt()
			cursor = &c
		}
		m := whiteImage(w, h)
		Annotate(m, cursor, marks)
		bounds := annotationBounds(m.Rect, cursor, marks)
		for y := range h {
			for x := range w {
				if m.RGBAAt(x, y) == (color.RGBA{255, 255, 255, 255}) {
					continue
				}
				in := false
				for _, b := range bounds {
					in = in || image.Pt(x, y).In(b)
				}
				if !in {
					t.Fatalf("case %d (%dx%d, cursor %v, marks %+v): pixel (%d,%d) drawn outside the bounds %v",
						i, w, h, cursor, marks, x, y, bounds)
				}
			}
		}
	}
}

// TestObserveReuseMatchesFresh observes a run of frames with one Observer,
// which reuses what did not change, and checks every observation against a
// new Observer's: the same model image and the same bytes.
func TestObserveReuseMatchesFresh(t *testing.T) {
	base := Downscale(loadRGBA(t, "busy1080.png"), image.Pt(960, 540)) // small enough for -race
	display := base.Rect
	edit := func(f func(m *image.RGBA)) *image.RGBA {
		m := Crop(base, base.Rect)
		f(m)
		return m
	}
	fill := func(r image.Rectangle, c color.RGBA) func(*image.RGBA) {
		return func(m *image.RGBA) {
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := r.Min.X; x < r.Max.X; x++ {
					m.SetRGBA(x, y, c)
				}
			}
		}
	}
	pt := func(x, y int) *image.Point { return &image.Point{x, y} }
	same := func() *image.RGBA { return edit(func(*image.RGBA) {}) } // a new capture of an unchanged screen
	steps := []struct {
		name  string
		frame *image.RGBA
		ov    Overlay
	}{
		{"first", base, Overlay{Cursor: pt(350, 150), Marks: []Mark{{At: image.Pt(350, 150), Label: "click"}}}},
		{"same screen, cursor moved away", same(), Overlay{Cursor: pt(50, 450)}},
		{"same screen, nothing drawn", same(), Overlay{}},
		{"the very same image again", base, Overlay{}},
		{"a window opened", edit(fill(image.Rect(200, 100, 450, 325), color.RGBA{30, 90, 160, 255})), Overlay{Cursor: pt(325, 210)}},
		{"one row changed", edit(fill(image.Rect(0, 258, 960, 259), color.RGBA{255, 0, 0, 255})), Overlay{}},
		{"drag drawn", same(), Overlay{Marks: []Mark{{Kind: MarkDrag, At: image.Pt(50, 50), To: image.Pt(900, 500), Label: "drag"}}}},
		{"masked", same(), Overlay{Mask: []image.Rectangle{image.Rect(750, 0, 960, 150)}}},
		{"back to the first", same(), Overlay{Cursor: pt(350, 150), Marks: []Mark{{At: image.Pt(350, 150), Label: "click"}}}},
	}
	for _, size := range []image.Point{image.Pt(683, 384), image.Pt(966, 546)} { // down, and up as smart_resize does
		reused := Observer{Mapper: Mapper{Display: display, Image: size}}
		for _, st := range steps {
			t.Run(st.name+"/"+size.String(), func(t *testing.T) {
				got, err := reused.Observe(st.frame, st.ov)
				if err != nil {
					t.Fatal(err)
				}
				fresh := Observer{Mapper: reused.Mapper}
				want, err := fresh.Observe(st.frame, st.ov)
				if err != nil {
					t.Fatal(err)
				}
				samePixels(t, got.Image, want.Image)
				if !bytes.Equal(got.Data, want.Data) {
					t.Error("the reusing Observer encoded other bytes than a fresh one")
				}
			})
		}
	}
	t.Run("one image modified in place between two calls", func(t *testing.T) {
		m := same()
		o := Observer{Mapper: Mapper{Display: display, Image: image.Pt(683, 384)}}
		if _, err := o.Observe(m, Overlay{}); err != nil {
			t.Fatal(err)
		}
		fill(image.Rect(0, 150, 960, 170), color.RGBA{9, 9, 9, 255})(m)
		got, err := o.Observe(m, Overlay{})
		if err != nil {
			t.Fatal(err)
		}
		fresh := Observer{Mapper: o.Mapper}
		want, err := fresh.Observe(m, Overlay{})
		if err != nil {
			t.Fatal(err)
		}
		samePixels(t, got.Image, want.Image)
	})
}

// TestObserveAgainMatchesFresh observes one frame, then again and again
// with other overlays (Observer.Again, for a frame the caller kept), and
// checks each against a new Observer's Observe of that frame and overlay;
// with nothing new drawn, Again scales no row.
func TestObserveAgainMatchesFresh(t *testing.T) {
	frame := Downscale(loadRGBA(t, "busy1080.png"), image.Pt(960, 540))
	pt := func(x, y int) *image.Point { return &image.Point{x, y} }
	mask := []image.Rectangle{image.Rect(750, 0, 960, 150)}
	steps := []struct {
		name string
		ov   Overlay
	}{
		{"first", Overlay{Cursor: pt(350, 150), Marks: []Mark{{At: image.Pt(350, 150), Label: "click"}}}},
		{"marks gone, cursor moved", Overlay{Cursor: pt(50, 450)}},
		{"the same overlay", Overlay{Cursor: pt(50, 450)}},
		{"nothing drawn", Overlay{}},
		{"masked", Overlay{Mask: mask}},
		{"the same mask", Overlay{Mask: mask}},
		{"unmasked", Overlay{}},
		{"drag drawn", Overlay{Marks: []Mark{{Kind: MarkDrag, At: image.Pt(50, 50), To: image.Pt(900, 500), Label: "drag"}}}},
	}
	o := Observer{Mapper: Mapper{Display: frame.Rect, Image: image.Pt(683, 384)}}
	if _, err := o.Again(Overlay{}); err == nil {
		t.Fatal("Again before any Observe gave no error")
	}
	for i, st := range steps {
		var got Observation
		var err error
		if i == 0 {
			got, err = o.Observe(frame, st.ov)
		} else {
			got, err = o.Again(st.ov)
		}
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		fresh := Observer{Mapper: o.Mapper}
		want, err := fresh.Observe(frame, st.ov)
		if err != nil {
			t.Fatal(err)
		}
		samePixels(t, got.Image, want.Image)
		if !bytes.Equal(got.Data, want.Data) {
			t.Errorf("%s: Again encoded other bytes than a fresh Observer", st.name)
		}
		if (st.name == "the same overlay" || st.name == "the same mask") && o.scaler.scaled.Load() > 2 {
			t.Errorf("%s: Again scaled %d chunks of rows again", st.name, o.scaler.scaled.Load())
		}
	}
}

// TestObserveAfterItsEncoderEncodedElse encodes another image with an
// Observer's Encoder between two observations of the same screen: the rows
// the Observer left alone are not the bands the encoder last compressed,
// and the second observation must still be a fresh Observer's.
func TestObserveAfterItsEncoderEncodedElse(t *testing.T) {
	frame := Downscale(loadRGBA(t, "busy1080.png"), image.Pt(960, 540))
	o := Observer{Mapper: Mapper{Display: frame.Rect, Image: image.Pt(683, 384)}}
	if _, err := o.Observe(frame, Overlay{}); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Encoder.Encode(whiteImage(683, 384)); err != nil {
		t.Fatal(err)
	}
	got, err := o.Observe(Crop(frame, frame.Rect), Overlay{})
	if err != nil {
		t.Fatal(err)
	}
	fresh := Observer{Mapper: o.Mapper}
	want, err := fresh.Observe(frame, Overlay{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Data, want.Data) {
		t.Error("after its encoder encoded another image, the Observer encoded other bytes than a fresh one")
	}
}
