package vision

import (
	"image"
	"image/color"
	"math/rand/v2"
	"testing"
)

// refDownscale is the exact area average in float64, the reference the
// fixed-point filter is checked against.
func refDownscale(src *image.RGBA, size image.Point) [][4]float64 {
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	out := make([][4]float64, size.X*size.Y)
	kx, ky := float64(sw)/float64(size.X), float64(sh)/float64(size.Y)
	overlap := func(lo, hi float64, i int) float64 {
		return max(0, min(hi, float64(i+1))-max(lo, float64(i)))
	}
	for y := range size.Y {
		y0, y1 := float64(y)*ky, float64(y+1)*ky
		for x := range size.X {
			x0, x1 := float64(x)*kx, float64(x+1)*kx
			var acc [4]float64
			for sy := int(y0); sy < sh && float64(sy) < y1; sy++ {
				for sx := int(x0); sx < sw && float64(sx) < x1; sx++ {
					w := overlap(y0, y1, sy) * overlap(x0, x1, sx) / (kx * ky)
					p := src.RGBAAt(src.Rect.Min.X+sx, src.Rect.Min.Y+sy)
					acc[0] += w * float64(p.R)
					acc[1] += w * float64(p.G)
					acc[2] += w * float64(p.B)
					acc[3] += w * float64(p.A)
				}
			}
			out[y*size.X+x] = acc
		}
	}
	return out
}

func randomRGBA(r *rand.Rand, rect image.Rectangle) *image.RGBA {
	m := image.NewRGBA(rect)
	for i := range m.Pix {
		m.Pix[i] = uint8(r.IntN(256))
	}
	return m
}

func TestDownscaleBlocks(t *testing.T) {
	// Each 2x2 block of the source holds four values; the result is their mean.
	src := image.NewRGBA(image.Rect(0, 0, 8, 6))
	want := image.NewRGBA(image.Rect(0, 0, 4, 3))
	for by := range 3 {
		for bx := range 4 {
			base := uint8(20*bx + 60*by)
			vals := [4]uint8{base, base + 4, base + 8, base + 12} // mean base+6
			for i, v := range vals {
				src.SetRGBA(2*bx+i%2, 2*by+i/2, color.RGBA{v, 255 - v, v / 2, 255})
			}
			m := base + 6
			var sumB int
			for _, v := range vals {
				sumB += int(v / 2)
			}
			want.SetRGBA(bx, by, color.RGBA{m, 255 - m, uint8((sumB + 2) / 4), 255})
		}
	}
	got := Downscale(src, image.Pt(4, 3))
	for y := range 3 {
		for x := range 4 {
			g, w := got.RGBAAt(x, y), want.RGBAAt(x, y)
			if absDiff(g.R, w.R) > 1 || absDiff(g.G, w.G) > 1 || absDiff(g.B, w.B) > 1 || g.A != 255 {
				t.Errorf("pixel (%d,%d) = %v, want %v", x, y, g, w)
			}
		}
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

func TestDownscaleMatchesAreaAverage(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name      string
		src, size image.Point
	}{
		{"1920x1080 to 1366x768 slice", image.Pt(192, 108), image.Pt(137, 77)},
		{"2x", image.Pt(64, 32), image.Pt(32, 16)},
		{"2.81x like 4K", image.Pt(384, 216), image.Pt(137, 77)},
		{"odd widths", image.Pt(101, 57), image.Pt(33, 19)},
		{"to 1x1", image.Pt(17, 9), image.Pt(1, 1)},
		{"one column", image.Pt(1, 40), image.Pt(1, 13)},
		{"large ratio", image.Pt(300, 20), image.Pt(7, 3)},
		{"width only", image.Pt(90, 30), image.Pt(61, 30)},
		{"upscale", image.Pt(5, 4), image.Pt(9, 7)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Opaque pixels: premultiplied values never exceed alpha.
			src := randomRGBA(r, image.Rectangle{Max: tt.src})
			for i := 3; i < len(src.Pix); i += 4 {
				src.Pix[i] = 255
			}
			got := Downscale(src, tt.size)
			if got.Rect.Size() != tt.size {
				t.Fatalf("size %v, want %v", got.Rect.Size(), tt.size)
			}
			ref := refDownscale(src, tt.size)
			worst := 0.0
			for i, want := range ref {
				for c := range 4 {
					worst = max(worst, absf(float64(got.Pix[4*i+c])-want[c]))
				}
			}
			if worst > 1.5 {
				t.Errorf("largest difference from the exact area average = %.2f levels, want <= 1.5", worst)
			}
		})
	}
}

func absf(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func TestDownscaleFlatStaysFlat(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	c := color.RGBA{58, 110, 165, 255}
	for i := 0; i < len(src.Pix); i += 4 {
		src.Pix[i], src.Pix[i+1], src.Pix[i+2], src.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	got := Downscale(src, ScaledSize(1920, 1080, 0))
	for i := 0; i < len(got.Pix); i += 4 {
		if p := (color.RGBA{got.Pix[i], got.Pix[i+1], got.Pix[i+2], got.Pix[i+3]}); p != c {
			t.Fatalf("pixel %d = %v, want %v", i/4, p, c)
		}
	}
}

func TestDownscaleSubImageAndSameSize(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	big := randomRGBA(r, image.Rect(0, 0, 40, 30))
	sub := big.SubImage(image.Rect(10, 5, 30, 25)).(*image.RGBA)
	t.Run("same size copies", func(t *testing.T) {
		got := Downscale(sub, image.Pt(20, 20))
		for y := range 20 {
			for x := range 20 {
				if g, w := got.RGBAAt(x, y), sub.RGBAAt(10+x, 5+y); g != w {
					t.Fatalf("(%d,%d) = %v, want %v", x, y, g, w)
				}
			}
		}
	})
	t.Run("sub-image reads its own pixels", func(t *testing.T) {
		got := Downscale(sub, image.Pt(10, 10))
		copyOf := image.NewRGBA(image.Rect(0, 0, 20, 20))
		for y := range 20 {
			for x := range 20 {
				copyOf.SetRGBA(x, y, sub.RGBAAt(10+x, 5+y))
			}
		}
		want := Downscale(copyOf, image.Pt(10, 10))
		if string(got.Pix) != string(want.Pix) {
			t.Error("downscaling a sub-image differs from downscaling a copy of it")
		}
	})
	t.Run("empty size", func(t *testing.T) {
		if got := Downscale(sub, image.Pt(0, 5)); !got.Rect.Empty() {
			t.Errorf("got %v, want empty", got.Rect)
		}
	})
}
