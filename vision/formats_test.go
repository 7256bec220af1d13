package vision

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"testing"

	"golang.org/x/image/webp"
)

// decodeAs decodes data in format f, checking for PNG what image/png does
// not (a clean zlib stream).
func decodeAs(t *testing.T, f Format, data []byte) image.Image {
	t.Helper()
	switch f {
	case FormatJPEG:
		img, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("jpeg.Decode: %v", err)
		}
		return img
	case FormatWebP:
		img, err := webp.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("webp.Decode: %v", err)
		}
		return img
	}
	return decodePNG(t, data)
}

// psnr is the peak signal-to-noise ratio of got against want over RGB, in dB.
func psnr(got image.Image, want *image.RGBA) float64 {
	var sum float64
	b := want.Rect
	g0 := got.Bounds().Min
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := got.At(g0.X+x-b.Min.X, g0.Y+y-b.Min.Y).RGBA()
			w := want.RGBAAt(x, y)
			for i, v := range [3]uint32{r >> 8, g >> 8, bl >> 8} {
				d := float64(v) - float64([3]uint8{w.R, w.G, w.B}[i])
				sum += d * d
			}
		}
	}
	mse := sum / float64(3*b.Dx()*b.Dy())
	if mse == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/mse)
}

func TestEncodeFormatsRoundTrip(t *testing.T) {
	busy := Downscale(loadRGBA(t, "busy1080.png"), image.Pt(683, 384)) // WebP is slow under -race
	images := []struct {
		name string
		img  *image.RGBA
	}{
		{"busy screenshot", busy},
		{"noise 61x33", opaqueRandom(rand.New(rand.NewPCG(21, 22)), 61, 33)},
		{"1x1", opaqueRandom(rand.New(rand.NewPCG(23, 24)), 1, 1)},
	}
	for _, f := range []Format{FormatPNG, FormatWebP, FormatJPEG} {
		for _, im := range images {
			t.Run(string(f)+"/"+im.name, func(t *testing.T) {
				e := Encoder{Format: f}
				data, err := e.Encode(im.img)
				if err != nil {
					t.Fatal(err)
				}
				got := decodeAs(t, f, data)
				if f != FormatJPEG { // lossless: every pixel back
					samePixels(t, got, im.img)
					return
				}
				if got.Bounds().Size() != im.img.Rect.Size() {
					t.Fatalf("size %v, want %v", got.Bounds().Size(), im.img.Rect.Size())
				}
				// Quality 85 keeps a screenshot recognisable; noise is the worst case.
				if p, min := psnr(got, im.img), 30.0; im.name == "busy screenshot" && p < min {
					t.Errorf("PSNR %.1f dB, want at least %.0f", p, min)
				}
			})
		}
	}
}

// TestFormatSizes pins the reason each format exists, on the busy desktop
// (half the model's usual size, as WebP is slow under -race; figures for
// the full size are in docs/benchmarks.md): lossless WebP is smaller than
// PNG, JPEG smaller still, and lower JPEG quality gives fewer bytes.
func TestFormatSizes(t *testing.T) {
	busy := Downscale(loadRGBA(t, "busy1080.png"), image.Pt(683, 384))
	size := func(e Encoder) int {
		data, err := e.Encode(busy)
		if err != nil {
			t.Fatal(err)
		}
		return len(data)
	}
	png, webpN := size(Encoder{}), size(Encoder{Format: FormatWebP})
	q85, q50 := size(Encoder{Format: FormatJPEG}), size(Encoder{Format: FormatJPEG, Quality: 50})
	t.Logf("busy 683x384: png %d, webp %d (%.0f%%), jpeg q85 %d (%.0f%%), q50 %d",
		png, webpN, 100*float64(webpN)/float64(png), q85, 100*float64(q85)/float64(png), q50)
	if !(webpN < png && q85 < png && q50 < q85) {
		t.Errorf("sizes png %d, webp %d, jpeg q85 %d, q50 %d: want webp and jpeg below png, q50 below q85", png, webpN, q85, q50)
	}
}

func TestRGBRow(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, w := range []int{0, 1, 3, 4, 5, 8, 9, 1366} {
		src := opaqueRandom(r, max(w, 1), 1).Pix[:4*w]
		dst := make([]byte, 3*w)
		if !rgbRow(dst, src) {
			t.Errorf("width %d: opaque row reported translucent", w)
		}
		for x := range w {
			if !bytes.Equal(dst[3*x:3*x+3], src[4*x:4*x+3]) {
				t.Fatalf("width %d: pixel %d = %v, want %v", w, x, dst[3*x:3*x+3], src[4*x:4*x+3])
			}
		}
		for x := range w { // one translucent pixel anywhere is seen
			src[4*x+3] = 254
			if rgbRow(dst, src) {
				t.Errorf("width %d: translucent pixel %d not seen", w, x)
			}
			src[4*x+3] = 255
		}
	}
}
