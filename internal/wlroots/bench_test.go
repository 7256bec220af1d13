package wlroots

import (
	"image"
	"testing"

	"deskpilot/vision/wldisplay"
)

// BenchmarkCapture1080 captures a 1920x1080 output of headless sway into a
// reused frame: the wait for sway's next frame (its headless output runs at
// 60 Hz) plus the conversion (BenchmarkToRGBA).
func BenchmarkCapture1080(b *testing.B) {
	s, err := wldisplay.StartSway(b.Context(), wldisplay.SwayOptions{Width: 1920, Height: 1080})
	if err != nil {
		b.Skip(err)
	}
	defer s.Close()
	c, err := Dial(b.Context(), s.Socket)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	dst := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	for range 3 {
		c.Capture(b.Context(), "HEADLESS-1", dst)
	}
	for b.Loop() {
		if _, err := c.Capture(b.Context(), "HEADLESS-1", dst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToRGBA converts one 1920x1080 XRGB8888 frame.
func BenchmarkToRGBA(b *testing.B) {
	s := &shot{mem: make([]byte, 1920*1080*4), format: 1, width: 1920, height: 1080, stride: 1920 * 4}
	dst := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	for b.Loop() {
		if err := toRGBA(dst, s, false); err != nil {
			b.Fatal(err)
		}
	}
}

func TestConvertRow(t *testing.T) {
	// Three pixels (an odd width) of B, G, R, X bytes.
	src := []byte{1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0}
	out := make([]byte, len(src))
	convertRow(out, src, true)
	if want := []byte{3, 2, 1, 255, 6, 5, 4, 255, 9, 8, 7, 255}; string(out) != string(want) {
		t.Errorf("swap: %v, want %v", out, want)
	}
	convertRow(out, src, false)
	if want := []byte{1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 255}; string(out) != string(want) {
		t.Errorf("no swap: %v, want %v", out, want)
	}
}
