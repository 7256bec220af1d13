package vision

import (
	"bytes"
	"encoding/binary"
	"image"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Downscale returns src resized to size with an area-average (box) filter:
// each destination pixel is the area-weighted mean of the source pixels it
// covers. That keeps thin text strokes as grey instead of dropping them (as
// nearest-neighbour does), stays legible at 1920->1366, and is much cheaper
// than Lanczos. Weights are precomputed per axis in fixed point, the inner
// loops work on all four channels at once (SWAR lanes in a uint64), and rows
// are split across GOMAXPROCS goroutines: 1920x1080 -> 1366x768 costs about
// 5.5 ms of CPU split over the cores, about 5x less than
// disintegration/imaging's Box filter (BenchmarkDownscale1080p). Each of the two passes rounds to 8 bits,
// so a value is within 1.5 levels of the exact mean (usually under one);
// flat areas stay exactly flat. Channels are averaged as stored
// (premultiplied), which is the correct way to average RGBA.
//
// Each axis is scaled on its own, so a size larger than src on one or both
// axes also works (an output pixel then blends at most two source pixels
// per axis: the slight enlargement a model family may ask for, such as
// 1366x768 -> 1372x784). A size equal to src's copies it. A non-positive
// side gives an empty image.
func Downscale(src *image.RGBA, size image.Point) *image.RGBA {
	dst := image.NewRGBA(image.Rectangle{Max: image.Pt(max(size.X, 0), max(size.Y, 0))})
	DownscaleInto(dst, src)
	return dst
}

// DownscaleInto is Downscale writing into dst, resized to dst's size; it
// lets callers reuse the destination buffer. dst and src must not overlap.
func DownscaleInto(dst, src *image.RGBA) {
	var s scaler
	s.scale(dst, src)
}

// wBits is the fixed-point precision of the filter weights: the weights of
// one destination pixel sum to 1<<wBits. Both passes work on four 16-bit
// lanes per uint64 (one multiply for all channels of a pixel, or for one
// channel pair of two pixels), so 8-bit values times 8-bit weights fit. Each
// pass rounds to 8 bits.
const wBits = 8

// taps holds the filter weights of one axis. Every destination index j
// reads the same number n of source pixels, first[j] .. first[j]+n-1, with
// weights w[j*n : j*n+n]; short spans are padded with zero weights so the
// inner loops have a fixed trip count (no branch mispredictions when spans
// alternate between 2 and 3 pixels).
type taps struct {
	n     int
	first []int
	w     []uint64
	// wv is w by tap, then destination index (tap t's weight for j at
	// t*len(first)+j), each weight in all four 16-bit lanes: the layout the
	// AVX2 horizontal pass loads four destination pixels' weights from.
	wv []uint64
}

// newTaps computes area-average weights for src source pixels onto dst
// destination pixels, summing to 1<<bits per destination pixel. Lengths are
// counted in units of 1/dst source pixel, so destination pixel j spans
// [j*src, (j+1)*src) exactly.
func newTaps(src, dst, bits int) taps {
	span := func(j int) (int, int) { return j * src / dst, ((j+1)*src + dst - 1) / dst }
	t := taps{first: make([]int, dst)}
	for j := range dst {
		i0, i1 := span(j)
		t.n = max(t.n, i1-i0)
	}
	t.w = make([]uint64, dst*t.n)
	for j := range dst {
		lo, hi := j*src, (j+1)*src
		i0, i1 := span(j)
		first := min(i0, src-t.n) // keep first+n inside the source
		t.first[j] = first
		w := t.w[j*t.n : (j+1)*t.n]
		var sum, bigW uint64
		big := 0
		for i := i0; i < i1; i++ {
			ov := min(hi, (i+1)*dst) - max(lo, i*dst)
			k := i - first
			w[k] = uint64((ov<<bits + src/2) / src)
			if w[k] > bigW {
				big, bigW = k, w[k]
			}
			sum += w[k]
		}
		// Rounding may leave the sum off by a little; the largest tap absorbs
		// it so flat areas stay exactly flat.
		w[big] += 1<<bits - sum
	}
	t.wv = make([]uint64, len(t.w))
	for j := range dst {
		for k := range t.n {
			t.wv[k*dst+j] = t.w[j*t.n+k] * 0x0001000100010001
		}
	}
	return t
}

// scaler caches the weights and row buffers of one (source size,
// destination size) pair, so repeated frames allocate nothing. Not safe for
// concurrent use.
//
// With reuse set (the Observer sets it), the scaler keeps the previous
// source image (a reference, not a copy) and leaves a chunk of destination
// rows alone when the source rows it is made of equal the previous image's
// and nothing was drawn over it since (spoil): between two agent steps most
// of the screen is unchanged. A changed row costs little to find, since the
// comparison stops at its first differing byte. This relies on frames not
// being modified once scaled (captures never are); the same image passed
// twice is scaled again in full, since its previous pixels may be gone (a
// recycled capture buffer), unless kept says it is the very frame of the
// previous call, unmodified. The caller must pass the same dst every time.
type scaler struct {
	src, dst image.Point
	x, y     taps
	rows     [][]uint64 // one scratch row of lanes per worker, a pixel per entry

	reuse bool
	kept  bool        // the next call's src is prev, not modified since (Observer.Again)
	last  *image.RGBA // the dst of the previous call
	prev  *image.RGBA // the src of the previous call
	valid []bool      // per chunk: dst holds the scale of prev's rows
	// wrote is per chunk whether the last call wrote its rows (the others
	// it left as they were); nil when it wrote them all.
	wrote  []bool
	scaled atomic.Int32 // chunks scaled by the last call (the others were reused)
}

// forget makes the next scale compute every chunk again.
func (s *scaler) forget() { clear(s.valid) }

// spoil marks destination rows [y0, y1) as drawn over, so the next scale
// computes them again.
func (s *scaler) spoil(y0, y1 int) {
	for c := max(y0, 0) / scaleChunk; c < len(s.valid) && c*scaleChunk < y1; c++ {
		s.valid[c] = false
	}
}

func (s *scaler) scale(dst, src *image.RGBA) {
	kept := s.kept
	s.kept = false
	s.wrote = s.wrote[:0]
	ss, ds := src.Rect.Size(), dst.Rect.Size()
	if ds.X <= 0 || ds.Y <= 0 || ss.X <= 0 || ss.Y <= 0 {
		return
	}
	if ss == ds {
		for y := range ds.Y {
			copy(dst.Pix[dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y+y):][:4*ds.X],
				src.Pix[src.PixOffset(src.Rect.Min.X, src.Rect.Min.Y+y):][:4*ss.X])
		}
		return
	}
	chunks := (ds.Y + scaleChunk - 1) / scaleChunk
	if s.src != ss || s.dst != ds {
		s.src, s.dst = ss, ds
		s.x, s.y = newTaps(ss.X, ds.X, wBits), newTaps(ss.Y, ds.Y, wBits)
		s.valid = make([]bool, chunks)
	}
	prev := s.prev
	if s.last != dst || (prev == src && !kept) || !s.reuse {
		prev = nil
	}
	s.last, s.prev = dst, nil
	if s.reuse {
		s.prev = src
	}
	s.scaled.Store(0)
	s.wrote = slices.Grow(s.wrote[:0], chunks)[:chunks]
	clear(s.wrote)
	workers := min(runtime.GOMAXPROCS(0), max(ds.Y/scaleChunk, 1))
	for len(s.rows) < workers {
		s.rows = append(s.rows, nil)
	}
	// Chunks of rows are handed out one at a time, so a worker that the
	// scheduler holds back (other processes share the cores) delays little.
	var next atomic.Int32
	var wg sync.WaitGroup
	for k := range workers {
		if len(s.rows[k]) < ss.X {
			s.rows[k] = make([]uint64, ss.X)
		}
		acc := s.rows[k][:ss.X]
		wg.Go(func() {
			for c := int(next.Add(1)) - 1; c < chunks; c = int(next.Add(1)) - 1 {
				y0, y1 := c*scaleChunk, min((c+1)*scaleChunk, ds.Y)
				if s.reuse {
					if prev != nil && s.valid[c] && (prev == src || s.same(prev, src, y0, y1)) {
						continue
					}
					s.valid[c] = true
				}
				s.band(dst, src, acc, y0, y1)
				s.wrote[c] = true
				s.scaled.Add(1)
			}
		})
	}
	wg.Wait()
}

// scaleChunk is the number of destination rows a worker scales at a time.
const scaleChunk = 16

// same reports whether the source rows that destination rows [y0, y1) are
// made of are equal in a and b.
func (s *scaler) same(a, b *image.RGBA, y0, y1 int) bool {
	width := 4 * s.src.X
	for y := s.y.first[y0]; y < s.y.first[y1-1]+s.y.n; y++ {
		ra := a.Pix[a.PixOffset(a.Rect.Min.X, a.Rect.Min.Y+y):][:width]
		rb := b.Pix[b.PixOffset(b.Rect.Min.X, b.Rect.Min.Y+y):][:width]
		if !bytes.Equal(ra, rb) {
			return false
		}
	}
	return true
}

const (
	lanes8 = 0x00FF00FF00FF00FF // four 16-bit lanes holding a byte each
	round8 = 0x0080008000800080 // one half, 1<<(wBits-1), in each lane
	low32  = 0x00000000FFFFFFFF
)

// band fills destination rows [y0, y1) using lanes as the scratch row.
func (s *scaler) band(dst, src *image.RGBA, lanes []uint64, y0, y1 int) {
	var rows [][]byte
	var ws []uint64
	width := 4 * s.src.X
	n := s.y.n
	for y := y0; y < y1; y++ {
		rows, ws = rows[:0], ws[:0]
		for t, w := range s.y.w[y*n : (y+1)*n] {
			if w != 0 {
				rows = append(rows, src.Pix[src.PixOffset(src.Rect.Min.X, src.Rect.Min.Y+s.y.first[y]+t):][:width])
				ws = append(ws, w)
			}
		}
		vertical(lanes, rows, ws)
		s.horizontal(dst.Pix[dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y+y):][:4*s.dst.X], lanes)
	}
}

// vertical blends source rows with weights ws into lanes: one uint64 per
// pixel holding r, b, g, a (that order) in 16-bit lanes, rounded to 8 bits.
// On a CPU with AVX2 (vertical_amd64.s) it does eight pixels a step; the
// portable code does the rest of the row, or all of it elsewhere. rows is
// the caller's scratch: its slices are moved past the pixels done.
func vertical(lanes []uint64, rows [][]byte, ws []uint64) {
	var ptrs [8]*byte
	done := verticalFast(lanes, rows, ws, ptrs[:])
	if done == len(lanes) {
		return
	}
	for t := range rows {
		rows[t] = rows[t][4*done:]
	}
	verticalSWAR(lanes[done:], rows, ws)
}

// verticalSWAR is vertical in portable Go. It reads 8 bytes (two pixels) at
// a time, with r,b,r,b in one word and g,a,g,a in another, so two
// multiplies per tap cover two pixels.
func verticalSWAR(lanes []uint64, rows [][]byte, ws []uint64) {
	pairs := len(lanes) / 2
	le := binary.LittleEndian
	switch len(rows) {
	case 2:
		r0 := rows[0][:8*pairs]
		r1 := rows[1][:len(r0)]
		l := lanes[:len(r0)/4]
		w0, w1 := ws[0], ws[1]
		for i := 0; i+8 <= len(r0) && i/4+2 <= len(l); i += 8 {
			u0, u1 := le.Uint64(r0[i:i+8]), le.Uint64(r1[i:i+8])
			putPair(l[i/4:i/4+2], (u0&lanes8)*w0+(u1&lanes8)*w1, (u0>>8&lanes8)*w0+(u1>>8&lanes8)*w1)
		}
	case 3:
		r0 := rows[0][:8*pairs]
		r1, r2 := rows[1][:len(r0)], rows[2][:len(r0)]
		l := lanes[:len(r0)/4]
		w0, w1, w2 := ws[0], ws[1], ws[2]
		for i := 0; i+8 <= len(r0) && i/4+2 <= len(l); i += 8 {
			u0, u1, u2 := le.Uint64(r0[i:i+8]), le.Uint64(r1[i:i+8]), le.Uint64(r2[i:i+8])
			putPair(l[i/4:i/4+2], (u0&lanes8)*w0+(u1&lanes8)*w1+(u2&lanes8)*w2,
				(u0>>8&lanes8)*w0+(u1>>8&lanes8)*w1+(u2>>8&lanes8)*w2)
		}
	default:
		for q := range pairs {
			var e, o uint64
			for t, w := range ws {
				u := le.Uint64(rows[t][8*q:])
				e += (u & lanes8) * w
				o += (u >> 8 & lanes8) * w
			}
			putPair(lanes[2*q:2*q+2], e, o)
		}
	}
	if len(lanes)%2 == 1 { // the last pixel of an odd-width row
		var e, o uint64
		for t, w := range ws {
			u := uint64(le.Uint32(rows[t][8*pairs:]))
			e += (u & lanes8) * w
			o += (u >> 8 & lanes8) * w
		}
		e = (e + round8) >> wBits & lanes8
		o = (o + round8) >> wBits & lanes8
		lanes[len(lanes)-1] = e&low32 | o<<32
	}
}

// putPair rounds the weighted sums e (r,b,r,b) and o (g,a,g,a) of two pixels
// and stores them as two pixels of lanes (r,b,g,a each).
func putPair(l []uint64, e, o uint64) {
	e = (e + round8) >> wBits & lanes8
	o = (o + round8) >> wBits & lanes8
	l[0] = e&low32 | o<<32
	l[1] = e>>32 | o&^low32
}

// horizontal filters one row of lanes (see vertical) into the RGBA row out.
func (s *scaler) horizontal(out []uint8, lanes []uint64) {
	n := s.x.n
	first := s.x.first
	out = out[:4*len(first)]
	if done := horizontalFast(out, lanes, &s.x); done > 0 {
		s.horizontalFrom(out, lanes, done)
		return
	}
	switch n {
	case 2:
		ws := s.x.w[:2*len(first)]
		for j, f := range first {
			p, w := lanes[f:f+2:f+2], ws[2*j:2*j+2:2*j+2]
			putPixel(out[4*j:4*j+4], p[0]*w[0]+p[1]*w[1])
		}
	case 3:
		ws := s.x.w[:3*len(first)]
		for j, f := range first {
			p, w := lanes[f:f+3:f+3], ws[3*j:3*j+3:3*j+3]
			putPixel(out[4*j:4*j+4], p[0]*w[0]+p[1]*w[1]+p[2]*w[2])
		}
	default:
		for j, f := range first {
			var acc uint64
			for t, w := range s.x.w[j*n : j*n+n] {
				acc += lanes[f+t] * w
			}
			putPixel(out[4*j:4*j+4], acc)
		}
	}
}

// horizontalFrom is the portable horizontal pass for output pixels j0 on.
func (s *scaler) horizontalFrom(out []uint8, lanes []uint64, j0 int) {
	n := s.x.n
	for j := j0; j < len(s.x.first); j++ {
		f := s.x.first[j]
		var acc uint64
		for t, w := range s.x.w[j*n : j*n+n] {
			acc += lanes[f+t] * w
		}
		putPixel(out[4*j:4*j+4], acc)
	}
}

// putPixel rounds a weighted sum of lanes (r,b,g,a) into one RGBA pixel.
func putPixel(out []byte, acc uint64) {
	acc = (acc + round8) >> wBits & lanes8
	// r and b sit in bits 0-7 and 16-23, g and a in bits 32-39 and 48-55.
	binary.LittleEndian.PutUint32(out, uint32(acc)|uint32(acc>>24))
}
