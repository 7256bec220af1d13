//go:build linux

package screen

import (
	"image"
	"testing"

	"deskpilot/vision/xdisplay"

	"github.com/kbinani/screenshot"
)

// BenchmarkCapture1080p captures a full 1920x1080x24 private display: through
// MIT-SHM into a new image or into the previous one, through plain GetImage, and with github.com/kbinani/screenshot (which
// opens a new connection and segment per capture) for comparison.
func BenchmarkCapture1080p(b *testing.B) {
	d := startDisplay(b, xdisplay.Options{Width: 1920, Height: 1080, NoWindowManager: true})
	s := openScreen(b, d)
	b.Setenv("DISPLAY", d.Name)
	paint(b, d.Name, pattern(1920, 1080, background, odd)...)
	full := image.Rect(0, 0, 1920, 1080)
	run := func(b *testing.B, capture func() (*image.RGBA, error)) {
		b.SetBytes(1920 * 1080 * 4)
		b.ReportAllocs()
		for b.Loop() {
			img, err := capture()
			if err != nil {
				b.Fatal(err)
			}
			if img.Rect.Size() != full.Size() {
				b.Fatalf("captured %v", img.Rect)
			}
		}
	}
	b.Run("shm", func(b *testing.B) {
		run(b, func() (*image.RGBA, error) { return s.Capture(b.Context(), full) })
		if !s.SHM() {
			b.Fatal("SHM not used")
		}
	})
	b.Run("shm_into", func(b *testing.B) { // into a spent frame, as Settle does
		var spare *image.RGBA
		run(b, func() (img *image.RGBA, err error) {
			img, err = s.CaptureInto(b.Context(), full, spare)
			spare = img
			return img, err
		})
	})
	b.Run("kbinani", func(b *testing.B) {
		run(b, func() (*image.RGBA, error) { return screenshot.CaptureRect(full) })
	})
	b.Run("getimage", func(b *testing.B) {
		s.DisableSHM()
		run(b, func() (*image.RGBA, error) { return s.Capture(b.Context(), full) })
	})
}

// BenchmarkConvert1080p measures the BGRX to RGBA conversion alone.
func BenchmarkConvert1080p(b *testing.B) {
	f := pixelFormat{bpp: 32, pad: 32, lsb: true, r: channel{16, 8}, g: channel{8, 8}, b: channel{0, 8}}
	src := make([]byte, 1920*1080*4)
	dst := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if err := f.convert(dst, src, 1920*4); err != nil {
			b.Fatal(err)
		}
	}
}
