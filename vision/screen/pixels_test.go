//go:build linux

package screen

import (
	"bytes"
	"fmt"
	"image"
	"math/rand/v2"
	"testing"
)

// TestConvertFastMatchesMasks checks the BGRX fast path against the generic mask
// path on random pixels, for widths that make rows start on 4- and 8-byte boundaries.
func TestConvertFastMatchesMasks(t *testing.T) {
	f := pixelFormat{bpp: 32, pad: 32, lsb: true, r: channel{16, 8}, g: channel{8, 8}, b: channel{0, 8}}
	if !f.fast() {
		t.Fatal("BGRX format does not take the fast path")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []image.Point{{1, 1}, {2, 3}, {3, 5}, {7, 4}, {640, 480}, {641, 481}} {
		t.Run(fmt.Sprintf("%dx%d", size.X, size.Y), func(t *testing.T) {
			stride := f.stride(size.X)
			src := make([]byte, stride*size.Y)
			for i := range src {
				src[i] = byte(rng.Uint32())
			}
			got := image.NewRGBA(image.Rectangle{Max: size})
			if err := f.convert(got, src, stride); err != nil {
				t.Fatal(err)
			}
			want := image.NewRGBA(image.Rectangle{Max: size})
			for y := range size.Y {
				f.slowRow(want.Pix[y*want.Stride:], src[y*stride:y*stride+4*size.X])
			}
			if !bytes.Equal(got.Pix, want.Pix) {
				t.Fatal("fast conversion differs from the mask conversion")
			}
			if p := src[0:4]; got.Pix[0] != p[2] || got.Pix[1] != p[1] || got.Pix[2] != p[0] || got.Pix[3] != 0xff {
				t.Fatalf("first pixel %v from BGRX %v", got.Pix[:4], p)
			}
		})
	}
}

func TestStride(t *testing.T) {
	tests := []struct {
		name    string
		f       pixelFormat
		w, want int
	}{
		{"32bpp", pixelFormat{bpp: 32, pad: 32}, 3, 12},
		{"16bpp_padded", pixelFormat{bpp: 16, pad: 32}, 3, 8},
		{"16bpp_even", pixelFormat{bpp: 16, pad: 32}, 4, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.stride(tt.w); got != tt.want {
				t.Errorf("stride(%d) = %d, want %d", tt.w, got, tt.want)
			}
		})
	}
}
