package vision

import (
	"context"
	"errors"
	"image"
	"testing"
)

// scrolling is a Capturer of a screen whose text scrolls: every capture
// moves the busy screenshot's rows up by step rows (step 0: a still
// screen). Each call returns a new image, as the Capturer contract asks.
type scrolling struct {
	src  *image.RGBA
	step int
	n    int
}

func (s *scrolling) Capture(ctx context.Context) (*image.RGBA, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	h := s.src.Rect.Dy()
	f := image.NewRGBA(s.src.Rect)
	off := (s.n * s.step) % h
	s.n++
	copy(f.Pix, s.src.Pix[off*s.src.Stride:])
	copy(f.Pix[(h-off)*f.Stride:], s.src.Pix[:off*s.src.Stride])
	return f, nil
}

func TestMeasureObserve(t *testing.T) {
	src := Downscale(loadRGBA(t, "busy1080.png"), image.Pt(960, 540))
	tests := []struct {
		name           string
		step           int
		reuse          bool
		wantChanged    int
		wantCompressed int // bands compressed by the last observation: 0 none, else all
	}{
		{"changing screen, no reuse", 7, false, 4, 1},
		{"still screen, no reuse", 0, false, 0, 1},
		{"still screen, reuse", 0, true, 0, 0},
		{"changing screen, reuse", 7, true, 4, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &scrolling{src: src, step: tt.step}
			o := &Observer{Mapper: NewMapper(src.Rect, 480, CoordPixels)} // a 480x270 model image
			m, err := MeasureObserve(t.Context(), c, o, 5, tt.reuse)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Times) != 5 || c.n != 5 {
				t.Fatalf("%d times, %d captures; want 5 and 5", len(m.Times), c.n)
			}
			if m.Changed != tt.wantChanged {
				t.Errorf("Changed = %d, want %d", m.Changed, tt.wantChanged)
			}
			if m.Bytes == 0 {
				t.Error("Bytes = 0")
			}
			bands := len(o.Encoder.png.bands)
			want := tt.wantCompressed
			if want != 0 {
				want = bands
			}
			if got := o.Encoder.png.compressed; got != want {
				t.Errorf("last observation compressed %d of %d bands, want %d", got, bands, want)
			}
			chunks := len(o.scaler.valid)
			if want != 0 {
				want = chunks
			}
			if got := int(o.scaler.scaled.Load()); got != want {
				t.Errorf("last observation scaled %d of %d row chunks, want %d", got, chunks, want)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		o := &Observer{Mapper: NewMapper(src.Rect, 480, CoordPixels)}
		if _, err := MeasureObserve(ctx, &scrolling{src: src}, o, 3, false); !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
	})
	t.Run("n below 1", func(t *testing.T) {
		o := &Observer{Mapper: NewMapper(src.Rect, 480, CoordPixels)}
		if _, err := MeasureObserve(t.Context(), &scrolling{src: src}, o, 0, false); err == nil {
			t.Error("n = 0 accepted")
		}
	})
}
