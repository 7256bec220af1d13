package llmtest

import (
	"fmt"
	"image"
	"image/color"
	"net/http"
	"testing"

	"deskpilot/vision"
)

// TestDecodesEveryImageFormat sends a screenshot in each format vision encodes and
// checks that the server decodes it to the right size and format.
func TestDecodesEveryImageFormat(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 37, 21))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	img.SetRGBA(3, 3, color.RGBA{255, 0, 0, 255})
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	for _, f := range []vision.Format{vision.FormatPNG, vision.FormatJPEG, vision.FormatWebP} {
		t.Run(string(f), func(t *testing.T) {
			e := vision.Encoder{Format: f}
			data, err := e.Encode(img)
			if err != nil {
				t.Fatal(err)
			}
			s := New(t, Reply{Text: "ok"})
			body := fmt.Sprintf(`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":%q}}]}]}`,
				vision.DataURL(f, data))
			if status, out := post(t, s.URL, body); status != http.StatusOK {
				t.Fatalf("status %d: %s", status, out)
			}
			parts := s.Requests()[0].Messages[0].Images()
			if len(parts) != 1 {
				t.Fatalf("%d images recorded, want 1", len(parts))
			}
			p := parts[0]
			if p.DecodeErr != "" || p.Format != string(f) || p.Size != img.Rect.Size() {
				t.Errorf("decoded format %q size %v (error %q); want %q %v", p.Format, p.Size, p.DecodeErr, f, img.Rect.Size())
			}
		})
	}
}
