package vision

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/flate"
)

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
	last       *image.RGBA // the image of the last encode, for clean
}

// pngBand is one horizontal band of rows compressed on its own. It keeps
// the scanlines it last compressed (filter byte and RGB, the deflate input,
// so keeping them costs no extra copy): when the next image has the same
// pixels there (most of the screen, between two agent steps), the
// compressed bytes are reused instead of compressed again.
type pngBand struct {
	y0, y1, w int    // rows [y0, y1) of a w-pixel-wide image
	last      bool   // ends the deflate stream (Close, not Flush)
	valid     bool   // z, adler and n hold the compression of raw
	fresh     bool   // compressed by the last encode rather than reused
	raw       []byte // the scanlines last compressed, 1+3*w bytes per row
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

// forget drops the remembered bands, so the next encode compresses every
// band (benchmarks of a screen that changes everywhere).
func (s *pngState) forget() {
	for i := range s.bands {
		s.bands[i].valid = false
	}
}

// pngBandRows is the height of a band: small enough that a local change
// recompresses little, large enough that the 32 KiB deflate window is full
// most of the time.
const pngBandRows = 48

func (s *pngState) encode(img image.Image, clean func(y0, y1 int) bool) ([]byte, error) {
	m, ok := img.(*image.RGBA)
	if !ok {
		s.last = nil
		return s.stdEncode(img)
	}
	if s.last != m {
		clean = nil // what clean knows is about the image encoded last
	}
	s.last = nil // set again once every band holds m's rows
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
	// Bands are handed out one at a time, so a worker that the scheduler
	// holds back (other processes share the cores) delays little.
	var next atomic.Int32
	var wg sync.WaitGroup
	for k := range workers {
		zw := s.writers[k]
		if cap(s.rows[k]) < 3*w {
			s.rows[k] = make([]byte, 3*w)
		}
		row := s.rows[k][:3*w]
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < nb; i = int(next.Add(1)) - 1 {
				b := &bands[i]
				if clean != nil && b.valid && clean(b.y0, b.y1) {
					b.fresh = false // the rows it compressed, as they were
					continue
				}
				b.fresh = b.compress(m, zw, row)
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
	s.last = m
	return s.out, nil
}

// compress deflates the rows of b as filter-none RGB scanlines, unless they
// equal the ones compressed last time. Filter "none" suits screens: exact
// runs and repeats (flat areas, the same glyph again) compress best
// unfiltered. The last band ends the deflate stream; the others end with a
// sync flush so the streams concatenate. It reports whether it compressed
// (false: the band was reused); row is scratch space for one scanline.
func (b *pngBand) compress(m *image.RGBA, zw *flate.Writer, row []byte) bool {
	if !b.pack(m, row) {
		return false
	}
	b.valid, b.err = false, nil
	if !b.opaque {
		return true
	}
	b.z.Reset()
	zw.Reset(&b.z)
	if _, b.err = zw.Write(b.raw); b.err != nil {
		return true
	}
	b.adler, b.n = adlerSum(b.raw), len(b.raw)
	if b.last {
		b.err = zw.Close()
	} else {
		b.err = zw.Flush()
	}
	b.valid = b.err == nil
	return true
}

// pack brings b.raw up to date with m's rows and reports whether they
// changed (or b held nothing valid). Rows are packed straight into b.raw;
// while they match, the comparison goes through row.
func (b *pngBand) pack(m *image.RGBA, row []byte) bool {
	line := 1 + 3*b.w
	n := (b.y1 - b.y0) * line
	changed := !b.valid || len(b.raw) != n
	b.raw = slices.Grow(b.raw[:0], n)[:n]
	b.opaque = true
	for y := b.y0; y < b.y1; y++ {
		pix := m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y+y):][:4*b.w]
		dst := b.raw[(y-b.y0)*line:][:line]
		dst[0] = 0 // filter type none
		if changed {
			b.opaque = rgbRow(dst[1:], pix) && b.opaque
			continue
		}
		b.opaque = rgbRow(row, pix) && b.opaque
		if !bytes.Equal(row, dst[1:]) {
			copy(dst[1:], row)
			changed = true
		}
	}
	return changed
}

// rgbRow packs the RGBA pixels of src into dst as RGB (3 bytes a pixel) and
// reports whether every pixel was opaque. It moves four pixels per step
// through 64-bit words.
func rgbRow(dst, src []byte) bool {
	le := binary.LittleEndian
	const alphas = 0xFF000000FF000000
	and := uint64(alphas)
	n := len(src) / 4
	i := 0
	for ; i+4 <= n; i += 4 {
		s := src[4*i : 4*i+16 : 4*i+16]
		d := dst[3*i : 3*i+12 : 3*i+12]
		u0, u1 := le.Uint64(s[0:8]), le.Uint64(s[8:16])
		and &= u0 & u1
		// Bytes r0 g0 b0 a0 r1 g1 b1 a1 -> r0 g0 b0 r1 g1 b1.
		p0 := u0&0xFFFFFF | u0>>8&0xFFFFFF000000
		p1 := u1&0xFFFFFF | u1>>8&0xFFFFFF000000
		le.PutUint64(d[0:8], p0|p1<<48)
		le.PutUint32(d[8:12], uint32(p1>>16))
	}
	for ; i < n; i++ {
		p := src[4*i : 4*i+4 : 4*i+4]
		q := dst[3*i : 3*i+3 : 3*i+3]
		q[0], q[1], q[2] = p[0], p[1], p[2]
		if p[3] != 0xFF {
			return false
		}
	}
	return and&alphas == alphas
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
	n := 2 + 4 // zlib header and Adler-32 trailer
	for i := range bands {
		n += bands[i].z.Len()
	}
	out = slices.Grow(out, 8+25+12+n+12)
	out = append(out, "\x89PNG\r\n\x1a\n"...)
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 2 // bit depth 8, colour type RGB; compression, filter, interlace 0
	out = appendChunk(out, "IHDR", ihdr[:])

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
