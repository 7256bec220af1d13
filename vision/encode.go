package vision

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"

	"github.com/HugoSmits86/nativewebp"
)

// DefaultJPEGQuality is the JPEG quality used when Encoder.Quality is 0.
const DefaultJPEGQuality = 85

// Encoder encodes frames for the model, reusing its buffers and compressor
// state across calls. The zero value encodes PNG.
//
// PNG: an opaque *image.RGBA (every screenshot) takes a fast path written
// for this package: rows are packed to 8-bit RGB with filter "none", split
// into bands of 48 rows compressed in parallel on every core by
// klauspost/compress's deflate at level 1 (2.3x faster than compress/flate
// at BestSpeed on a busy 1366x768 screenshot, 4.1 ms against 9.7 ms, for the
// same size), and the bands' streams are joined with sync flushes into one
// zlib stream (the pigz technique). Each band keeps the scanlines it
// compressed, so an unchanged band (most of the screen between two agent
// steps) reuses its compressed bytes. Other images (not *image.RGBA, or
// translucent) go through image/png at BestSpeed. Figures are in
// docs/benchmarks.md (BenchmarkEncode).
//
// JPEG uses image/jpeg at Quality: single-threaded and about three times
// the PNG path's CPU, 63% smaller than PNG on a busy desktop at quality 85,
// but it smears small text.
//
// WebP is lossless (VP8L) through github.com/HugoSmits86/nativewebp
// v0.9.3, pinned: v1.2.0 takes 16 times longer for a larger file. It gives
// PNG's pixels in about half the bytes, single-threaded and over ten times
// slower than the PNG path: for slow uplinks, not for speed.
//
// An Encoder is not safe for concurrent use; use one per goroutine.
type Encoder struct {
	// Format is the output format; "" means FormatPNG.
	Format Format
	// Quality is the JPEG quality, 1..100; 0 means DefaultJPEGQuality. The
	// lossless formats ignore it.
	Quality int

	png pngState
	buf bytes.Buffer // JPEG and WebP output
}

// Encode returns img encoded in e.Format. The returned slice is the
// caller's; Encoder keeps no reference to it.
func (e *Encoder) Encode(img image.Image) ([]byte, error) {
	b, err := e.encode(img)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(b), nil
}

// encode is Encode returning a slice of e's buffers, valid until the next
// call.
func (e *Encoder) encode(img image.Image) ([]byte, error) { return e.encodeRows(img, nil) }

// encodeRows is encode told which rows are as they were: clean(y0, y1)
// reports that rows [y0, y1) of img (from its top) hold the pixels they held
// when the same image was encoded last, so the PNG encoder takes its bands
// there as they are without comparing them. nil: nothing is known.
func (e *Encoder) encodeRows(img image.Image, clean func(y0, y1 int) bool) ([]byte, error) {
	f := e.Format.normal()
	if b := img.Bounds(); b.Empty() {
		return nil, fmt.Errorf("encode %s: empty image %v", f, b)
	}
	switch f {
	case FormatJPEG:
		q := e.Quality
		if q == 0 {
			q = DefaultJPEGQuality
		}
		if q < 1 || q > 100 {
			return nil, fmt.Errorf("encode jpeg: quality %d outside 1..100", q)
		}
		e.buf.Reset()
		if err := jpeg.Encode(&e.buf, img, &jpeg.Options{Quality: q}); err != nil {
			return nil, fmt.Errorf("encode jpeg: %w", err)
		}
		return e.buf.Bytes(), nil
	case FormatWebP:
		e.buf.Reset()
		if err := nativewebp.Encode(&e.buf, img, nil); err != nil {
			return nil, fmt.Errorf("encode webp: %w", err)
		}
		return e.buf.Bytes(), nil
	}
	b, err := e.png.encode(img, clean)
	if err != nil {
		return nil, fmt.Errorf("encode png: %w", err)
	}
	return b, nil
}
