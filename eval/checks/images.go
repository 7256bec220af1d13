package checks

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
)

// imageMetrics are OSWorld's image metrics: compare_images (metrics/vlc.py)
// and metrics/gimp.py.
func imageMetrics() map[string]Metric {
	return map[string]Metric{
		"compare_images":                              {Fn: compareImages},
		"compare_image_list":                          {Fn: compareImageList},
		"check_structure_sim":                         {Fn: twoImages(checkStructureSim)},
		"check_structure_sim_resized":                 {Fn: twoImages(checkStructureSimResized)},
		"check_brightness_decrease_and_structure_sim": {Fn: twoImages(checkBrightnessDecrease)},
		"check_saturation_increase_and_structure_sim": {Fn: twoImages(checkSaturationIncrease)},
		"check_contrast_increase_and_structure_sim":   {Fn: twoImages(checkContrastIncrease)},
		"check_file_exists_and_structure_sim":         {Fn: checkFileExistsAndStructureSim},
		"check_palette_and_structure_sim":             {Fn: twoImages(checkPaletteAndStructureSim)},
		"check_image_mirror":                          {Fn: twoImages(checkImageMirror)},
		"check_green_background":                      {Fn: twoImages(checkGreenBackground)},
		"check_triangle_position":                     {Fn: oneImage(checkTrianglePosition)},
		"check_textbox_on_leftside":                   {Fn: oneImage(checkTextboxOnLeftside)},
		"check_image_size":                            {Fn: checkImageSize},
		"check_image_file_size":                       {Fn: checkImageFileSize, Check: rulesWith("max_size")},
		"check_config_status":                         {Fn: checkConfigStatus, Check: rulesWith("key", "value")},
	}
}

// verdict is a boolean score with a note when false.
func verdict(ok bool, format string, args ...any) (Score, error) {
	if ok {
		return Score{Value: 1}, nil
	}
	return Score{Note: fmt.Sprintf(format, args...)}, nil
}

// twoImages opens (src, tgt) for a gimp.py metric; None for either scores 0.
func twoImages(f func(src, tgt *pimg) (Score, error)) func(context.Context, Call) (Score, error) {
	return func(_ context.Context, c Call) (Score, error) {
		if c.Result == nil || c.Expected == nil {
			return Score{Note: "an image is missing"}, nil
		}
		src, err := openImageArg(c.Result)
		if err != nil {
			return Score{}, err
		}
		tgt, err := openImageArg(c.Expected)
		if err != nil {
			return Score{}, err
		}
		return f(src, tgt)
	}
}

func oneImage(f func(img *pimg) (Score, error)) func(context.Context, Call) (Score, error) {
	return func(_ context.Context, c Call) (Score, error) {
		if c.Result == nil {
			return Score{Note: "no image"}, nil
		}
		img, err := openImageArg(c.Result)
		if err != nil {
			return Score{}, err
		}
		return f(img)
	}
}

func openImageArg(v any) (*pimg, error) {
	p, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("want an image path, got %s", PyType(v))
	}
	return openImage(p)
}

// compareImages is compare_images: both images in grey, resized (Lanczos) to
// the smaller size (as Python orders (width, height) tuples), and their SSIM
// as the score.
func compareImages(_ context.Context, c Call) (Score, error) {
	p1, ok1 := c.Result.(string)
	p2, ok2 := c.Expected.(string)
	if !ok1 || !ok2 || p1 == "" || p2 == "" {
		return Score{Note: "an image is missing"}, nil
	}
	a, err := openImage(p1)
	if err != nil {
		return Score{}, err
	}
	b, err := openImage(p2)
	if err != nil {
		return Score{}, err
	}
	if a, err = a.convert("L"); err != nil {
		return Score{}, err
	}
	if b, err = b.convert("L"); err != nil {
		return Score{}, err
	}
	w, h := b.w, b.h
	if a.w < b.w || a.w == b.w && a.h < b.h {
		w, h = a.w, a.h
	}
	a, b = a.resize(w, h, lanczosFilter), b.resize(w, h, lanczosFilter)
	x, shape := a.array()
	y, _ := b.array()
	v, err := ssim(x, y, shape, 255)
	if err != nil {
		return Score{}, err
	}
	s := Score{Value: v}
	if v < 1 {
		s.Note = fmt.Sprintf("structural similarity %.4f", v)
	}
	return s, nil
}

// compareImageList is compare_image_list: every pair identical as
// ImageChops.difference(...).getbbox() sees it.
func compareImageList(_ context.Context, c Call) (Score, error) {
	got, want := []any{c.Result}, []any{c.Expected}
	if l, ok := c.Result.([]any); ok {
		got = l
		if want, ok = c.Expected.([]any); !ok {
			return Score{}, errors.New("TypeError: the expected value is not a list")
		}
	}
	for i := range min(len(got), len(want)) {
		if !PyTruthy(got[i]) || !PyTruthy(want[i]) {
			return Score{Note: fmt.Sprintf("image %d is missing", i+1)}, nil
		}
		a, err := openImageArg(got[i])
		if err != nil {
			return Score{}, err
		}
		b, err := openImageArg(want[i])
		if err != nil {
			return Score{}, err
		}
		if differ, err := chopsDiffer(a, b); err != nil || differ {
			if differ {
				return Score{Note: fmt.Sprintf("image %d differs", i+1)}, nil
			}
			return Score{}, err
		}
	}
	return Score{Value: 1}, nil
}

// chopsDiffer is ImageChops.difference(a, b).getbbox() is not None: the
// images' common top-left area compared, band counts equal or an error;
// when a has alpha only the alpha band counts.
func chopsDiffer(a, b *pimg) (bool, error) {
	if a.bands != b.bands {
		return false, fmt.Errorf("ValueError: images do not match (%s and %s)", a.mode, b.mode)
	}
	first := 0
	if a.mode == "RGBA" || a.mode == "LA" {
		first = a.bands - 1
	}
	for y := range min(a.h, b.h) {
		for x := range min(a.w, b.w) {
			pa, pb := (y*a.w+x)*a.bands, (y*b.w+x)*b.bands
			for k := first; k < a.bands; k++ {
				if a.pix[pa+k] != b.pix[pb+k] {
					return true, nil
				}
			}
		}
	}
	return false, nil
}

// structureSame is structure_check_by_ssim.
func structureSame(a, b *pimg, threshold float64) (bool, float64, error) {
	v, err := ssimImages(a, b)
	return v >= threshold, v, err
}

func checkStructureSim(src, tgt *pimg) (Score, error) {
	ok, v, err := structureSame(src, tgt, 0.9)
	if err != nil {
		return Score{}, err
	}
	return verdict(ok, "structural similarity %.4f, below 0.9", v)
}

func checkStructureSimResized(src, tgt *pimg) (Score, error) {
	return checkStructureSim(src.resize(tgt.w, tgt.h, bicubicFilter), tgt)
}

// meanOf is ImageStat.Stat(img).mean[0] of a one-band image.
func meanOf(m *pimg) float64 {
	sum := 0.0
	for _, v := range m.pix {
		sum += float64(v)
	}
	return sum / float64(len(m.pix))
}

// brightnessNormalized is normalize_brightness(img, 128): every band through
// the table min(255, max(0, int(i * 128 / brightness))).
func brightnessNormalized(m *pimg) (*pimg, float64, error) {
	l, err := m.convert("L")
	if err != nil {
		return nil, 0, err
	}
	b := meanOf(l)
	if b == 0 {
		return nil, 0, errors.New("ZeroDivisionError: the image is black")
	}
	factor := 128 / b
	var lut [256]uint8
	for i := range lut {
		lut[i] = uint8(min(255, max(0, int(float64(i)*factor))))
	}
	out := *m
	out.pix = make([]uint8, len(m.pix))
	for i, v := range m.pix {
		out.pix[i] = lut[v]
	}
	return &out, b, nil
}

func checkBrightnessDecrease(src, tgt *pimg) (Score, error) {
	ns, bs, err := brightnessNormalized(src)
	if err != nil {
		return Score{}, err
	}
	nt, bt, err := brightnessNormalized(tgt)
	if err != nil {
		return Score{}, err
	}
	if !slices.Equal(shapeOf(ns), shapeOf(nt)) {
		return Score{}, errors.New("ValueError: operands could not be broadcast together (the images' sizes differ)")
	}
	var sum float64
	for i := range ns.pix {
		d := float32(ns.pix[i])/255 - float32(nt.pix[i])/255
		sum += float64(d * d)
	}
	mse := sum / float64(len(ns.pix))
	return verdict(bt > bs && mse < 0.03, "brightness %.2f (was %.2f), structure MSE %.4f", bs, bt, mse)
}

func shapeOf(m *pimg) []int { _, s := m.array(); return s }

func checkSaturationIncrease(src, tgt *pimg) (Score, error) {
	hs, err := src.convert("HSV")
	if err != nil {
		return Score{}, err
	}
	ht, err := tgt.convert("HSV")
	if err != nil {
		return Score{}, err
	}
	ss, st := meanOf(hs.band(1)), meanOf(ht.band(1))
	hSame, hv, err := structureSame(hs.band(0), ht.band(0), 0.9)
	if err != nil {
		return Score{}, err
	}
	vSame, vv, err := structureSame(hs.band(2), ht.band(2), 0.9)
	if err != nil {
		return Score{}, err
	}
	return verdict(st < ss && hSame && vSame, "saturation %.2f (was %.2f), hue similarity %.4f, value similarity %.4f", ss, st, hv, vv)
}

// stdOf is np.std of all the image's values.
func stdOf(m *pimg) float64 {
	mean := meanOf(m)
	sum := 0.0
	for _, v := range m.pix {
		d := float64(v) - mean
		sum += d * d
	}
	return math.Sqrt(sum / float64(len(m.pix)))
}

func checkContrastIncrease(src, tgt *pimg) (Score, error) {
	cs, ct := stdOf(src), stdOf(tgt)
	same, v, err := structureSame(src, tgt, 0.65)
	if err != nil {
		return Score{}, err
	}
	return verdict(ct < cs && same, "contrast %.2f (was %.2f), structural similarity %.4f", cs, ct, v)
}

func checkFileExistsAndStructureSim(ctx context.Context, c Call) (Score, error) {
	if c.Result == nil || c.Expected == nil {
		return Score{Note: "an image is missing"}, nil
	}
	p, ok := c.Result.(string)
	if fi, err := os.Stat(p); !ok || err != nil || !fi.Mode().IsRegular() {
		return Score{Note: "the exported file does not exist"}, nil
	}
	return twoImages(checkStructureSim)(ctx, c)
}

func checkPaletteAndStructureSim(src, tgt *pimg) (Score, error) {
	palette := src.mode == "P"
	rgb, err := src.convert("RGB")
	if err != nil {
		return Score{}, err
	}
	same, v, err := structureSame(rgb, tgt, 0.9)
	if err != nil {
		return Score{}, err
	}
	return verdict(palette && same, "mode %s, structural similarity %.4f", src.mode, v)
}

func checkImageMirror(src, tgt *pimg) (Score, error) {
	same, v, err := structureSame(src.flipLeftRight(), tgt, 0.99)
	if err != nil {
		return Score{}, err
	}
	return verdict(same, "similarity to the mirrored image %.4f, below 0.99", v)
}

// checkGreenBackground is check_green_background, indexing the pixel arrays
// [x, y] (row x, column y) as the Python does.
func checkGreenBackground(src, tgt *pimg) (Score, error) {
	if src.bands < 3 || tgt.bands < 3 {
		return Score{}, errors.New("IndexError: a one-band pixel has no colour bands")
	}
	for x := range tgt.w {
		for y := range tgt.h {
			if x >= tgt.h || y >= tgt.w || x >= src.h || y >= src.w {
				return Score{}, fmt.Errorf("IndexError: index %d is out of bounds", max(x, y))
			}
			t := (x*tgt.w + y) * tgt.bands
			if tgt.pix[t] == 0 && tgt.pix[t+1] == 0 && tgt.pix[t+2] == 0 {
				continue
			}
			s := (x*src.w + y) * src.bands
			r, g, b := src.pix[s], src.pix[s+1], src.pix[s+2]
			if !(g > r && g > b) {
				return Score{Note: fmt.Sprintf("pixel [%d, %d] is not green", x, y)}, nil
			}
		}
	}
	return Score{Value: 1}, nil
}

// checkTrianglePosition is check_triangle_position: the pixels of the second
// least frequent colour have their centroid within 5% of the centre.
func checkTrianglePosition(img *pimg) (Score, error) {
	if img.bands < 2 {
		return Score{}, errors.New("IndexError: tuple index out of range (a one-band image)")
	}
	counts := map[string]int{}
	nb := img.bands
	for p := 0; p < len(img.pix); p += nb {
		counts[string(img.pix[p:p+nb])]++
	}
	colors := slices.Sorted(func(yield func(string) bool) {
		for k := range counts {
			if !yield(k) {
				return
			}
		}
	})
	slices.SortStableFunc(colors, func(a, b string) int { return counts[a] - counts[b] })
	if len(colors) < 2 {
		return Score{}, errors.New("IndexError: index 1 is out of bounds (one colour)")
	}
	tri := colors[1]
	var sy, sx float64
	n := 0
	for y := range img.h {
		for x := range img.w {
			p := (y*img.w + x) * nb
			if string(img.pix[p:p+nb]) == tri {
				sy += float64(y)
				sx += float64(x)
				n++
			}
		}
	}
	cy, cx := sy/float64(n), sx/float64(n)
	ok := math.Abs(cy-float64(img.h)/2) < 0.05*float64(img.h) && math.Abs(cx-float64(img.w)/2) < 0.05*float64(img.w)
	return verdict(ok, "the shape's centre is at (%.1f, %.1f), the image's at (%.1f, %.1f)", cx, cy, float64(img.w)/2, float64(img.h)/2)
}

func checkTextboxOnLeftside(img *pimg) (Score, error) {
	l, err := img.convert("L")
	if err != nil {
		return Score{}, err
	}
	left := l.w
	for y := range l.h {
		for x := range l.w {
			if l.pix[y*l.w+x] < 128 {
				left = min(left, x)
				break
			}
		}
	}
	return verdict(float64(left) < float64(l.w)*0.05, "the leftmost dark pixel is at x=%d of %d", left, l.w)
}

func checkImageSize(_ context.Context, c Call) (Score, error) {
	if c.Result == nil {
		return Score{Note: "no image"}, nil
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	img, err := openImageArg(c.Result)
	if err != nil {
		return Score{}, err
	}
	ok := true
	if v, has := r["height"]; has && v != nil {
		ok = PyEqual(int64(img.h), v)
	}
	if v, has := r["width"]; has && v != nil {
		ok = ok && PyEqual(int64(img.w), v)
	}
	return verdict(ok, "the image is %dx%d", img.w, img.h)
}

func checkImageFileSize(_ context.Context, c Call) (Score, error) {
	if c.Result == nil {
		return Score{Note: "no image"}, nil
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	p, ok := c.Result.(string)
	if !ok {
		return Score{}, fmt.Errorf("want a path, got %s", PyType(c.Result))
	}
	fi, err := os.Stat(p)
	if err != nil {
		return Score{}, err
	}
	maxSize, ok := PyNumber(r["max_size"])
	if !ok {
		return Score{}, errors.New("TypeError: max_size is not a number")
	}
	return verdict(float64(fi.Size()) < maxSize, "%d bytes, not under %v", fi.Size(), maxSize)
}

// checkConfigStatus is check_config_status over a GIMP config file: a line
// "(key ... value)" whose first word (first two, for a two-word key) and
// last word match.
func checkConfigStatus(_ context.Context, c Call) (Score, error) {
	if c.Result == nil {
		return Score{Note: "no config file"}, nil
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	p, ok := c.Result.(string)
	if !ok {
		return Score{}, fmt.Errorf("want a path, got %s", PyType(c.Result))
	}
	text, err := readText(p)
	if err != nil {
		return Score{}, err
	}
	value := PyStr(r["value"])
	for _, line := range strings.SplitAfter(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") || line == "\n" {
			continue
		}
		items := pySplit(pyStripChars(pyStripChars(pyStrip(line), "(", true, false), ")\n", false, true))
		if len(items) == 0 {
			return Score{}, errors.New("IndexError: list index out of range (a blank line)")
		}
		switch k := r["key"].(type) {
		case string:
			if items[0] == k && items[len(items)-1] == value {
				return Score{Value: 1}, nil
			}
		case []any:
			if len(k) == 2 && items[0] == PyStr(k[0]) {
				if len(items) < 2 {
					return Score{}, errors.New("IndexError: list index out of range")
				}
				if items[1] == PyStr(k[1]) && items[len(items)-1] == value {
					return Score{Value: 1}, nil
				}
			}
		}
	}
	return Score{Note: fmt.Sprintf("no line sets %s to %s", show(r["key"]), value)}, nil
}
