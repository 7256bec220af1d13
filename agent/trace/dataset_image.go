package trace

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
)

// StepImage is the image one step's model looked at, as a dataset holds it.
type StepImage struct {
	// PNG is the image encoded as PNG: the recorded file when it was a PNG
	// and nothing was flattened, else re-encoded.
	PNG []byte
	// Image is the decoded image (after flattening).
	Image image.Image
	// Source is "model" (the downscaled, annotated view the model saw) or
	// "screen" (the full-resolution frame, when no view was recorded).
	Source string
	// Redacted are the regions flattened to one colour, image pixels.
	Redacted []image.Rectangle
}

// ErrNoImage is returned by ImageRedactor.Step for a step that recorded no image.
var ErrNoImage = errors.New("no image was recorded")

// ImageRedactor reads the images of one trace's steps for a dataset,
// flattening with Redact, in every image taken after a secret was typed,
// the field it went into (the region around the last point the run
// clicked before it: see secretFields). Frames the agent captured were
// already masked where it found the field (its accessible element, a
// password field, or the words OCR read): this catches what the trace
// alone can tell. The zero value is not usable; use NewImageRedactor.
type ImageRedactor struct {
	t      *Trace
	redact bool
	screen Rect
	fields map[int][]image.Rectangle
}

// NewImageRedactor prepares the images of t; redact says whether to flatten.
func NewImageRedactor(t *Trace, redact bool) *ImageRedactor {
	r := &ImageRedactor{t: t, redact: redact}
	if t.Start.Screen != nil {
		r.screen = *t.Start.Screen
	}
	if redact {
		r.fields = secretFields(t)
	}
	return r
}

// Step returns the image of step s (ErrNoImage when none was recorded).
func (r *ImageRedactor) Step(s Step) (StepImage, error) {
	rel, source := s.ModelFrame, "model"
	if rel == "" {
		rel, source = s.Frame, "screen"
	}
	if rel == "" {
		return StepImage{}, ErrNoImage
	}
	img, format, data, err := DecodeFrame(r.t.Dir, rel)
	if err != nil {
		return StepImage{}, err
	}
	out := StepImage{Image: img, Source: source, PNG: data}
	if r.redact {
		out.Redacted = imageRects(r.fields[s.Number], r.screen, img.Bounds().Size())
	}
	switch {
	case len(out.Redacted) > 0:
		flat := flattenRGBA(img, out.Redacted)
		out.Image = flat
		if out.PNG, err = encodePNG(flat); err != nil {
			return StepImage{}, fmt.Errorf("trace: step %d image: %w", s.Number, err)
		}
	case format != "png" || hasTextChunks(data):
		if out.PNG, err = encodePNG(img); err != nil {
			return StepImage{}, fmt.Errorf("trace: step %d image: %w", s.Number, err)
		}
	}
	return out, nil
}

// ScreenToImage maps a point of the screen (root pixels) into an image of
// size img showing the trace's display; ok is false without a known screen.
func (r *ImageRedactor) ScreenToImage(p [2]int, img image.Point) (x, y float64, ok bool) {
	if r.screen.W <= 0 || r.screen.H <= 0 {
		return 0, 0, false
	}
	return float64(p[0]-r.screen.X) * float64(img.X) / float64(r.screen.W),
		float64(p[1]-r.screen.Y) * float64(img.Y) / float64(r.screen.H), true
}

// Screen is the display the trace's run drove (root pixels); zero when unknown.
func (r *ImageRedactor) Screen() Rect { return r.screen }

// hasTextChunks reports whether a PNG carries chunks other than the image
// data ones (tEXt, iTXt, zTXt, eXIf...): a dataset re-encodes it so that no
// metadata of the recording's travels with the pixels.
func hasTextChunks(data []byte) bool {
	const sig = 8
	if len(data) < sig {
		return true
	}
	for i := sig; i+8 <= len(data); {
		n := int(uint32(data[i])<<24 | uint32(data[i+1])<<16 | uint32(data[i+2])<<8 | uint32(data[i+3]))
		switch string(data[i+4 : i+8]) {
		case "IHDR", "PLTE", "IDAT", "IEND", "tRNS", "gAMA", "sRGB", "cHRM", "pHYs", "sBIT", "bKGD":
		default:
			return true
		}
		if n < 0 || i+12+n > len(data) {
			return true
		}
		i += 12 + n
	}
	return false
}

// flattenRGBA is flatten without the encoding.
func flattenRGBA(img image.Image, rects []image.Rectangle) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			out.Set(x, y, img.At(x, y))
		}
	}
	for _, r := range rects {
		r = r.Intersect(b)
		if r.Empty() {
			continue
		}
		var sum [3]int
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				p := out.Pix[out.PixOffset(x, y):]
				sum[0], sum[1], sum[2] = sum[0]+int(p[0]), sum[1]+int(p[1]), sum[2]+int(p[2])
			}
		}
		n := r.Dx() * r.Dy()
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				p := out.Pix[out.PixOffset(x, y):]
				p[0], p[1], p[2], p[3] = uint8(sum[0]/n), uint8(sum[1]/n), uint8(sum[2]/n), 255
			}
		}
	}
	return out
}

func encodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
