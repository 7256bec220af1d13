package dataset

import (
	"image"
	"math/bits"
)

// dHash is a 64-bit difference hash of img: the image reduced to 9x8 grey
// cells, one bit per pair of horizontal neighbours (is the left one
// brighter). Two captures of the same screen differ in a few bits at most
// (a caret, a clock), while different screens differ in many. Sampling
// keeps it cheap on a full-resolution frame: each cell averages a grid of
// up to 8x8 pixels.
func dHash(img image.Image) uint64 {
	b := img.Bounds()
	if b.Empty() {
		return 0
	}
	var cells [8][9]uint32
	for cy := range 8 {
		for cx := range 9 {
			x0, x1 := b.Min.X+cx*b.Dx()/9, b.Min.X+(cx+1)*b.Dx()/9
			y0, y1 := b.Min.Y+cy*b.Dy()/8, b.Min.Y+(cy+1)*b.Dy()/8
			var sum, n uint32
			for sy := range 8 {
				y := y0 + sy*max(y1-y0, 1)/8
				for sx := range 8 {
					x := x0 + sx*max(x1-x0, 1)/8
					r, g, bl, _ := img.At(x, y).RGBA()
					sum += (299*r + 587*g + 114*bl) / 1000 >> 8
					n++
				}
			}
			cells[cy][cx] = sum / n
		}
	}
	var h uint64
	for cy := range 8 {
		for cx := range 8 {
			h <<= 1
			if cells[cy][cx] > cells[cy][cx+1] {
				h |= 1
			}
		}
	}
	return h
}

// sameFrameBits is how many bits two hashes of the same screen may differ in.
const sameFrameBits = 6

// signature is what dedup compares of a trajectory: per step the frame's
// perceptual hash and the code's digest.
type signature struct {
	frames []uint64
	codes  [][32]byte
}

func signatureOf(t *Trajectory) signature {
	var s signature
	for _, st := range t.Steps {
		s.frames = append(s.frames, st.hash)
		s.codes = append(s.codes, st.codeHash)
	}
	return s
}

// same reports whether two trajectories ran the same code on screens that
// looked the same, step by step.
func (s signature) same(o signature) bool {
	if len(s.frames) != len(o.frames) {
		return false
	}
	for i := range s.frames {
		if s.codes[i] != o.codes[i] || bits.OnesCount64(s.frames[i]^o.frames[i]) > sameFrameBits {
			return false
		}
	}
	return true
}

// deduper remembers the signatures of the trajectories kept, by task. It
// holds 40 bytes per step kept, never an image.
type deduper struct {
	seen map[string][]signature
}

// duplicate reports whether t repeats a kept run of the same task, and
// remembers it when it does not.
func (d *deduper) duplicate(t *Trajectory) bool {
	if d.seen == nil {
		d.seen = map[string][]signature{}
	}
	key := t.TaskID + "\x00" + t.Task
	sig := signatureOf(t)
	for _, o := range d.seen[key] {
		if sig.same(o) {
			return true
		}
	}
	d.seen[key] = append(d.seen[key], sig)
	return false
}
