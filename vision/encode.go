package vision

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Format is an image encoding for the model.
type Format string

const (
	// FormatPNG is lossless and keeps text crisp. The default.
	FormatPNG Format = "png"
	// FormatJPEG is smaller on photo-like content but blurs text.
	FormatJPEG Format = "jpeg"
)

// ParseFormat parses "png" or "jpeg" ("jpg" too; case and surrounding space
// ignored); "" is FormatPNG.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "png":
		return FormatPNG, nil
	case "jpeg", "jpg":
		return FormatJPEG, nil
	}
	return "", fmt.Errorf("parse image format %q: want %q or %q", s, FormatPNG, FormatJPEG)
}

// MIME returns the media type of f: "image/jpeg" for FormatJPEG, otherwise
// "image/png".
func (f Format) MIME() string {
	if f == FormatJPEG {
		return "image/jpeg"
	}
	return "image/png"
}

// DataURL returns data as a base64 data URL of f's media type,
// "data:image/png;base64,...", built with a single allocation.
func DataURL(f Format, data []byte) string {
	prefix := "data:" + f.MIME() + ";base64,"
	var sb strings.Builder
	sb.Grow(len(prefix) + base64.StdEncoding.EncodedLen(len(data)))
	sb.WriteString(prefix)
	w := base64.NewEncoder(base64.StdEncoding, &sb)
	_, _ = w.Write(data) // a strings.Builder never fails
	_ = w.Close()
	return sb.String()
}

// DefaultJPEGQuality is the JPEG quality used when Encoder.JPEGQuality is 0.
const DefaultJPEGQuality = 85

// Encoder encodes frames for the model, reusing its buffers and compressor
// state across calls. The zero value encodes PNG.
//
// PNG: an opaque *image.RGBA (every screenshot) takes a fast path written
// for this package: rows are packed to 8-bit RGB with filter "none" (exact
// runs and repeats of screen content compress best unfiltered), split into
// bands compressed in parallel by compress/flate at BestSpeed, and the
// bands' streams are joined with sync flushes into one zlib stream (the
// pigz technique). Bands are 48 rows high and each remembers the pixels it
// compressed, so an unchanged band (most of the screen between two agent
// steps) reuses its compressed bytes. On the busy 1366x768 test screenshot
// (BenchmarkEncodePNG1366) a full encode costs about 12 ms of CPU, split
// over the cores, for 493 KB; image/png costs 35 ms at BestSpeed (466 KB)
// and 45 ms at DefaultCompression (452 KB). When only the cursor moved, one
// or two bands are compressed again: about 1.5 ms. Other images (not
// *image.RGBA, or translucent) go through image/png at BestSpeed. JPEG uses
// image/jpeg (about 18 ms for the same frame, single-threaded, 183 KB at
// quality 85): smaller, but slower here and it smears text.
//
// An Encoder is not safe for concurrent use; use one per goroutine.
type Encoder struct {
	// Format is the output format; "" means FormatPNG.
	Format Format
	// JPEGQuality is the JPEG quality, 1..100; 0 means DefaultJPEGQuality.
	JPEGQuality int

	png  pngState
	jpeg bytes.Buffer
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
func (e *Encoder) encode(img image.Image) ([]byte, error) {
	if b := img.Bounds(); b.Empty() {
		return nil, fmt.Errorf("encode %s: empty image %v", e.format(), b)
	}
	if e.format() == FormatJPEG {
		q := e.JPEGQuality
		if q == 0 {
			q = DefaultJPEGQuality
		}
		if q < 1 || q > 100 {
			return nil, fmt.Errorf("encode jpeg: quality %d outside 1..100", q)
		}
		e.jpeg.Reset()
		if err := jpeg.Encode(&e.jpeg, img, &jpeg.Options{Quality: q}); err != nil {
			return nil, fmt.Errorf("encode jpeg: %w", err)
		}
		return e.jpeg.Bytes(), nil
	}
	b, err := e.png.encode(img)
	if err != nil {
		return nil, fmt.Errorf("encode png: %w", err)
	}
	return b, nil
}

func (e *Encoder) format() Format {
	if e.Format == FormatJPEG {
		return FormatJPEG
	}
	return FormatPNG
}

// pngState is the reusable state of the PNG encoder.
type pngState struct {
	out     []byte
	bands   []pngBand
	writers []*flate.Writer // one per worker
	rows    [][]byte        // one scanline buffer per worker
	std     png.Encoder
	pool    pngPool
	stdBuf  bytes.Buffer
	// compressed counts the bands compressed by the last encode (the
	// others were reused).
	compressed int
}

// pngBand is one horizontal band of rows compressed on its own. It keeps
// a copy of the pixels it last compressed: when the next image has the same
// pixels there (most of the screen, between two agent steps), the
// compressed bytes are reused instead of compressed again.
type pngBand struct {
	y0, y1, w int    // rows [y0, y1) of a w-pixel-wide image
	last      bool   // ends the deflate stream (Close, not Flush)
	valid     bool   // z, adler and n hold the compression of pix
	fresh     bool   // compressed by the last encode rather than reused
	pix       []byte // RGBA rows last compressed, 4*w bytes per row
	z         bytes.Buffer
	adler     uint32 // Adler-32 of the band's uncompressed scanlines
	n         int    // length of the band's uncompressed scanlines
	opaque    bool
	err       error
}

// pngPool is a one-slot png.EncoderBufferPool (the Encoder is not shared).
type pngPool struct{ b *png.EncoderBuffer }

func (p *pngPool) Get() *png.EncoderBuffer  { b := p.b; p.b = nil; return b }
func (p *pngPool) Put(b *png.EncoderBuffer) { p.b = b }

func (s *pngState) stdEncode(img image.Image) ([]byte, error) {
	s.std.CompressionLevel = png.BestSpeed
	s.std.BufferPool = &s.pool
	s.stdBuf.Reset()
	if err := s.std.Encode(&s.stdBuf, img); err != nil {
		return nil, err
	}
	return s.stdBuf.Bytes(), nil
}

// pngBandRows is the height of a band: small enough that a local change
// recompresses little, large enough that the 32 KiB deflate window is full
// most of the time.
const pngBandRows = 48

func (s *pngState) encode(img image.Image) ([]byte, error) {
	m, ok := img.(*image.RGBA)
	if !ok {
		return s.stdEncode(img)
	}
	w, h := m.Rect.Dx(), m.Rect.Dy()
	workers := min(runtime.GOMAXPROCS(0), 8, h)
	nb := max(min(2*workers, h), (h+pngBandRows-1)/pngBandRows)
	for len(s.bands) < nb {
		s.bands = append(s.bands, pngBand{})
	}
	bands := s.bands[:nb]
	for k := range bands {
		b := &bands[k]
		y0, y1, last := h*k/nb, h*(k+1)/nb, k == nb-1
		if b.y0 != y0 || b.y1 != y1 || b.w != w || b.last != last {
			b.y0, b.y1, b.w, b.last, b.valid = y0, y1, w, last, false
		}
	}
	for len(s.writers) < workers {
		zw, _ := flate.NewWriter(nil, flate.BestSpeed) // err is only for a bad level
		s.writers = append(s.writers, zw)
		s.rows = append(s.rows, nil)
	}
	var next atomic.Int32
	var wg sync.WaitGroup
	for k := range workers {
		zw := s.writers[k]
		if cap(s.rows[k]) < 1+3*w {
			s.rows[k] = make([]byte, 1+3*w)
		}
		row := s.rows[k][:1+3*w]
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < nb; i = int(next.Add(1)) - 1 {
				bands[i].fresh = bands[i].compress(m, zw, row)
			}
		})
	}
	wg.Wait()
	s.compressed = 0
	for i := range bands {
		if bands[i].fresh {
			s.compressed++
		}
		if bands[i].err != nil {
			return nil, bands[i].err
		}
		if !bands[i].opaque {
			return s.stdEncode(img)
		}
	}
	s.out = assemblePNG(s.out[:0], w, h, bands)
	return s.out, nil
}

// compress deflates the rows of b as filter-none RGB scanlines, unless they
// equal the ones compressed last time. The last band ends the deflate
// stream; the others end with a sync flush so the streams concatenate.
// It reports whether it compressed (false: the band was reused).
func (b *pngBand) compress(m *image.RGBA, zw *flate.Writer, row []byte) bool {
	rowBytes := 4 * b.w
	if b.valid && b.unchanged(m) {
		return false
	}
	b.valid, b.err = false, nil
	b.pix = slices.Grow(b.pix[:0], (b.y1-b.y0)*rowBytes)
	b.z.Reset()
	zw.Reset(&b.z)
	b.adler, b.n, b.opaque = 1, 0, true
	alpha := byte(0xff)
	for y := b.y0; y < b.y1; y++ {
		pix := m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y+y):][:rowBytes]
		b.pix = append(b.pix, pix...)
		row[0] = 0 // filter type none
		rgb := row[1:]
		for x := range b.w {
			p := pix[4*x : 4*x+4 : 4*x+4]
			q := rgb[3*x : 3*x+3 : 3*x+3]
			q[0], q[1], q[2] = p[0], p[1], p[2]
			alpha &= p[3]
		}
		if _, err := zw.Write(row); err != nil {
			b.err = err
			return true
		}
		b.adler = adler32Combine(b.adler, adler32.Checksum(row), len(row))
		b.n += len(row)
	}
	if alpha != 0xff {
		b.opaque = false
		return true
	}
	if b.last {
		b.err = zw.Close()
	} else {
		b.err = zw.Flush()
	}
	b.valid = b.err == nil
	return true
}

// unchanged reports whether m's rows in b equal the ones b compressed last.
func (b *pngBand) unchanged(m *image.RGBA) bool {
	rowBytes := 4 * b.w
	for y := b.y0; y < b.y1; y++ {
		i := (y - b.y0) * rowBytes
		if !bytes.Equal(m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y+y):][:rowBytes], b.pix[i:i+rowBytes]) {
			return false
		}
	}
	return true
}

// adler32Combine returns the Adler-32 of A followed by B from the checksums
// a1 of A and a2 of B, where B is n bytes long. With s = 1 + sum of bytes
// and t = sum of the running s after each byte: s(AB) = s(A) + s(B) - 1 and
// t(AB) = t(A) + t(B) + n*(s(A) - 1), all mod 65521.
func adler32Combine(a1, a2 uint32, n int) uint32 {
	const mod = 65521
	s1, t1 := uint64(a1&0xffff), uint64(a1>>16)
	s2, t2 := uint64(a2&0xffff), uint64(a2>>16)
	s := (s1 + s2 + mod - 1) % mod
	t := (t1 + t2 + uint64(n%mod)*((s1+mod-1)%mod)) % mod
	return uint32(t<<16 | s)
}

// assemblePNG appends a whole PNG file: signature, IHDR (8-bit RGB), one
// IDAT holding the zlib stream made of the bands, and IEND.
func assemblePNG(out []byte, w, h int, bands []pngBand) []byte {
	out = append(out, "\x89PNG\r\n\x1a\n"...)
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 2 // bit depth 8, colour type RGB; compression, filter, interlace 0
	out = appendChunk(out, "IHDR", ihdr[:])

	n := 2 + 4 // zlib header and Adler-32 trailer
	for i := range bands {
		n += bands[i].z.Len()
	}
	out = binary.BigEndian.AppendUint32(out, uint32(n))
	start := len(out)
	out = append(out, "IDAT"...)
	out = append(out, 0x78, 0x01) // zlib: deflate, 32 KiB window, fastest
	adler := uint32(1)
	for i := range bands {
		out = append(out, bands[i].z.Bytes()...)
		adler = adler32Combine(adler, bands[i].adler, bands[i].n)
	}
	out = binary.BigEndian.AppendUint32(out, adler)
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
	return appendChunk(out, "IEND", nil)
}

// appendChunk appends one PNG chunk: length, type, data, CRC of type+data.
func appendChunk(out []byte, typ string, data []byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
	start := len(out)
	out = append(out, typ...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
}
