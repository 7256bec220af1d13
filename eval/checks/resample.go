package checks

import "math"

// Pillow's resampling filters (Image.resize), as its Resample.c computes
// them: coefficients per output pixel normalised and put in 22-bit fixed
// point, a horizontal pass over the rows used, then a vertical pass.

type resampleFilter struct {
	support float64
	f       func(float64) float64
}

var (
	bicubicFilter = resampleFilter{2, func(x float64) float64 {
		const a = -0.5
		x = math.Abs(x)
		switch {
		case x < 1:
			return ((a+2)*x-(a+3))*x*x + 1
		case x < 2:
			return (((x-5)*x+8)*x - 4) * a
		}
		return 0
	}}
	lanczosFilter = resampleFilter{3, func(x float64) float64 {
		if -3 <= x && x < 3 {
			return sinc(x) * sinc(x/3)
		}
		return 0
	}}
)

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	x *= math.Pi
	return math.Sin(x) / x
}

const precisionBits = 32 - 8 - 2

// coeffs is precompute_coeffs then normalize_coeffs_8bpc for one axis.
func coeffs(inSize, outSize int, flt resampleFilter) (ksize int, bounds []int, kk []int32) {
	scale := float64(inSize) / float64(outSize)
	filterscale := max(scale, 1)
	support := flt.support * filterscale
	ksize = int(math.Ceil(support))*2 + 1
	bounds = make([]int, outSize*2)
	kk = make([]int32, outSize*ksize)
	k := make([]float64, ksize)
	for xx := range outSize {
		center := (float64(xx) + 0.5) * scale
		ss := 1 / filterscale
		xmin := max(int(center-support+0.5), 0)
		xmax := min(int(center+support+0.5), inSize) - xmin
		ww := 0.0
		for x := range xmax {
			w := flt.f((float64(x+xmin) - center + 0.5) * ss)
			k[x] = w
			ww += w
		}
		for x := range ksize {
			v := 0.0
			if x < xmax {
				v = k[x]
				if ww != 0 {
					v /= ww
				}
			}
			if v < 0 {
				kk[xx*ksize+x] = int32(-0.5 + v*(1<<precisionBits))
			} else {
				kk[xx*ksize+x] = int32(0.5 + v*(1<<precisionBits))
			}
		}
		bounds[2*xx], bounds[2*xx+1] = xmin, xmax
	}
	return ksize, bounds, kk
}

func clipFixed(v int64) uint8 {
	if v >= 1<<precisionBits<<8 {
		return 255
	}
	if v <= 0 {
		return 0
	}
	return uint8(v >> precisionBits)
}

// resize is Image.resize((w, h), filter) on an image of 8-bit bands
// (Pillow takes NEAREST for "P", and premultiplies alpha for RGBA and LA).
func (m *pimg) resize(w, h int, flt resampleFilter) *pimg {
	if w == m.w && h == m.h {
		c := *m
		c.pix = append([]uint8(nil), m.pix...)
		return &c
	}
	if m.mode == "P" {
		return m.resizeNearest(w, h)
	}
	if m.mode == "RGBA" || m.mode == "LA" {
		pre, _ := m.convert(map[string]string{"RGBA": "RGBa", "LA": "La"}[m.mode])
		return pre.resize(w, h, flt).unpremultiply()
	}
	nb := m.bands
	in := m
	kv, bv, kkv := coeffs(m.h, h, flt)
	if w != m.w {
		first := bv[0]
		last := bv[2*h-2] + bv[2*h-1]
		for i := range h {
			bv[2*i] -= first
		}
		kh, bh, kkh := coeffs(m.w, w, flt)
		tmp := newPimg(m.mode, w, last-first)
		for yy := range tmp.h {
			row := (yy + first) * m.w
			for xx := range w {
				xmin, xmax := bh[2*xx], bh[2*xx+1]
				k := kkh[xx*kh:]
				for c := range nb {
					ss := int64(1) << (precisionBits - 1)
					for x := range xmax {
						ss += int64(m.pix[(row+x+xmin)*nb+c]) * int64(k[x])
					}
					tmp.pix[(yy*w+xx)*nb+c] = clipFixed(ss)
				}
			}
		}
		in = tmp
	}
	if h == m.h {
		return in
	}
	out := newPimg(m.mode, w, h)
	for yy := range h {
		ymin, ymax := bv[2*yy], bv[2*yy+1]
		k := kkv[yy*kv:]
		for xx := range w {
			for c := range nb {
				ss := int64(1) << (precisionBits - 1)
				for y := range ymax {
					ss += int64(in.pix[((y+ymin)*w+xx)*nb+c]) * int64(k[y])
				}
				out.pix[(yy*w+xx)*nb+c] = clipFixed(ss)
			}
		}
	}
	out.pal = m.pal
	return out
}

// resizeNearest is Pillow's NEAREST resize: the source pixel under each
// output pixel's centre.
func (m *pimg) resizeNearest(w, h int) *pimg {
	out := newPimg(m.mode, w, h)
	out.pal = m.pal
	nb := m.bands
	for y := range h {
		sy := min(int((float64(y)+0.5)*float64(m.h)/float64(h)), m.h-1)
		for x := range w {
			sx := min(int((float64(x)+0.5)*float64(m.w)/float64(w)), m.w-1)
			copy(out.pix[(y*w+x)*nb:(y*w+x+1)*nb], m.pix[(sy*m.w+sx)*nb:(sy*m.w+sx+1)*nb])
		}
	}
	return out
}
