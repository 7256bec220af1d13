package checks

import (
	"errors"
	"fmt"
	"slices"
)

// This file is scikit-image's structural_similarity (0.19) with its
// defaults: a 7-sample uniform window (scipy's uniform_filter, "reflect"
// edges), sample covariance, K1 0.01, K2 0.03, the data range of the arrays'
// dtype (255 for Pillow's 8-bit images), and the mean over the image less
// 3 samples at each edge.

const ssimWin = 7

// ssim compares two arrays of equal shape (any number of dimensions).
func ssim(a, b []float64, shape []int, dataRange float64) (float64, error) {
	for _, n := range shape {
		if n < ssimWin {
			return 0, errors.New("ValueError: win_size exceeds image extent")
		}
	}
	ux, uy := uniformFilter(a, shape), uniformFilter(b, shape)
	sq := func(x, y []float64) []float64 {
		out := make([]float64, len(x))
		for i := range x {
			out[i] = x[i] * y[i]
		}
		return out
	}
	uxx, uyy, uxy := uniformFilter(sq(a, a), shape), uniformFilter(sq(b, b), shape), uniformFilter(sq(a, b), shape)
	np := 1.0
	for range shape {
		np *= ssimWin
	}
	covNorm := np / (np - 1)
	c1, c2 := (0.01*dataRange)*(0.01*dataRange), (0.03*dataRange)*(0.03*dataRange)
	s := make([]float64, len(a))
	for i := range s {
		vx := covNorm * (uxx[i] - ux[i]*ux[i])
		vy := covNorm * (uyy[i] - uy[i]*uy[i])
		vxy := covNorm * (uxy[i] - ux[i]*uy[i])
		a1, a2 := 2*ux[i]*uy[i]+c1, 2*vxy+c2
		b1, b2 := ux[i]*ux[i]+uy[i]*uy[i]+c1, vx+vy+c2
		s[i] = (a1 * a2) / (b1 * b2)
	}
	return croppedMean(s, shape, (ssimWin-1)/2), nil
}

// uniformFilter is scipy.ndimage.uniform_filter(x, size=7): a moving mean
// along each axis in turn, edges reflected (d c b a | a b c d).
func uniformFilter(x []float64, shape []int) []float64 {
	out := slices.Clone(x)
	stride := 1
	for ax := len(shape) - 1; ax >= 0; ax-- {
		n := shape[ax]
		line := make([]float64, n+ssimWin-1)
		res := make([]float64, n)
		outer := len(x) / (n * stride)
		for o := range outer {
			for in := range stride {
				base := o*n*stride + in
				for i := range line {
					j := i - ssimWin/2
					for j < 0 || j >= n {
						if j < 0 {
							j = -j - 1
						} else {
							j = 2*n - j - 1
						}
					}
					line[i] = out[base+j*stride]
				}
				sum := 0.0
				for i := range ssimWin {
					sum += line[i]
				}
				res[0] = sum / ssimWin
				for i := 1; i < n; i++ {
					sum += line[i+ssimWin-1] - line[i-1]
					res[i] = sum / ssimWin
				}
				for i := range n {
					out[base+i*stride] = res[i]
				}
			}
		}
		stride *= n
	}
	return out
}

// croppedMean is crop(s, pad).mean(): the mean without pad samples at both
// ends of every axis.
func croppedMean(s []float64, shape []int, pad int) float64 {
	idx := make([]int, len(shape))
	sum, count := 0.0, 0
	for i, v := range s {
		rem := i
		inside := true
		for ax := len(shape) - 1; ax >= 0; ax-- {
			idx[ax] = rem % shape[ax]
			rem /= shape[ax]
			if idx[ax] < pad || idx[ax] >= shape[ax]-pad {
				inside = false
			}
		}
		if inside {
			sum += v
			count++
		}
	}
	return sum / float64(count)
}

// ssimImages is structure_check_by_ssim's similarity:
// structural_similarity(np.array(img1), np.array(img2), channel_axis=-1),
// the mean over the last axis' slices (for a one-band image, its columns).
func ssimImages(a, b *pimg) (float64, error) {
	x, shape := a.array()
	y, shape2 := b.array()
	if !slices.Equal(shape, shape2) {
		return 0, fmt.Errorf("ValueError: Input images must have the same dimensions (%v and %v)", shape, shape2)
	}
	nch := shape[len(shape)-1]
	sub := shape[:len(shape)-1]
	total := 0.0
	cx, cy := make([]float64, len(x)/nch), make([]float64, len(x)/nch)
	for ch := range nch {
		for i := range cx {
			cx[i], cy[i] = x[i*nch+ch], y[i*nch+ch]
		}
		v, err := ssim(cx, cy, sub, 255)
		if err != nil {
			return 0, err
		}
		total += v
	}
	return total / float64(nch), nil
}
