package vision

import (
	"image"
	"math/rand/v2"
	"slices"
	"testing"
)

// vertical (eight pixels a step where the CPU has AVX2) gives the same lanes
// as the portable code, bit for bit, for every tap count and row width,
// including the widths that leave a tail of pixels to the portable code.
func TestVerticalMatchesPortable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for taps := 1; taps <= 9; taps++ {
		for _, width := range []int{1, 7, 8, 9, 15, 16, 17, 63, 1366, 1920} {
			rows := make([][]byte, taps)
			for i := range rows {
				rows[i] = make([]byte, 4*width)
				for j := range rows[i] {
					rows[i][j] = byte(rng.UintN(256))
				}
				if i == 0 {
					for j := range rows[i] {
						rows[i][j] = 255 // the largest sums
					}
				}
			}
			// Weights summing to 1<<wBits, one of them possibly all of it.
			ws := make([]uint64, taps)
			left := uint64(1 << wBits)
			for i := range taps - 1 {
				w := rng.Uint64N(left + 1)
				ws[i], left = w, left-w
			}
			ws[taps-1] = left
			got, want := make([]uint64, width), make([]uint64, width)
			vertical(got, slices.Clone(rows), ws)
			verticalSWAR(want, slices.Clone(rows), ws)
			if !slices.Equal(got, want) {
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("taps %d width %d (avx2 %v): pixel %d is %#x, want %#x", taps, width, hasAVX2, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// The whole scaler (AVX2 passes where the CPU has them) gives the same
// image as the portable passes, for downscales and slight enlargements and
// widths that leave tails to the portable code.
func TestScaleMatchesPortable(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 on this CPU: only the portable passes run")
	}
	src := loadRGBA(t, "busy1080.png")
	for _, size := range []image.Point{{1366, 768}, {1281, 721}, {1932, 1092}, {1023, 577}, {641, 359}} {
		got := image.NewRGBA(image.Rectangle{Max: size})
		var s scaler
		s.scale(got, src)
		want := image.NewRGBA(image.Rectangle{Max: size})
		setAVX2(false)
		var p scaler
		p.scale(want, src)
		setAVX2(true)
		if !slices.Equal(got.Pix, want.Pix) {
			t.Errorf("%v: the AVX2 passes differ from the portable ones", size)
		}
	}
}
