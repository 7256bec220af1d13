package dialect

import (
	"fmt"
	"image"
	"math"

	"deskpilot/vision"
)

// MaxAspectRatio is the longest-to-shortest side ratio SmartResize accepts,
// as the reference's MAX_RATIO.
const MaxAspectRatio = 200

// SmartResize is Qwen-VL's smart_resize, the resize rule the Qwen2-VL,
// Qwen2.5-VL and Qwen3-VL families (and UI-TARS, OpenCUA, GTA1, Holo built on
// them) were trained with: it returns the height and width, in that order,
// nearest to height x width that are multiples of factor and hold between
// minPixels and maxPixels pixels, aspect kept as closely as possible.
//
// It follows the reference (qwen-vl-utils' vision_process.py) step for step
// in float64, including Python's round, which rounds half to even: 1078/28
// = 38.5 rounds to 38. So 1080x1920 at factor 28 and at most 16384·28²
// pixels gives 1092x1932, an upscale. A non-positive size or factor, a
// minPixels above maxPixels, an aspect ratio over MaxAspectRatio or a result
// with a zero side is an error (the reference raises or returns a zero side).
func SmartResize(height, width, factor, minPixels, maxPixels int) (h, w int, err error) {
	if height <= 0 || width <= 0 || factor <= 0 {
		return 0, 0, fmt.Errorf("smart resize %dx%d at factor %d: sizes and factor must be positive", width, height, factor)
	}
	if minPixels > maxPixels {
		return 0, 0, fmt.Errorf("smart resize: min pixels %d above max pixels %d", minPixels, maxPixels)
	}
	if r := float64(max(height, width)) / float64(min(height, width)); r > MaxAspectRatio {
		return 0, 0, fmt.Errorf("smart resize %dx%d: aspect ratio %g is above %d", width, height, r, MaxAspectRatio)
	}
	f := float64(factor)
	hf, wf := float64(height), float64(width)
	hBar := max(factor, int(math.RoundToEven(hf/f))*factor)
	wBar := max(factor, int(math.RoundToEven(wf/f))*factor)
	switch {
	case hBar*wBar > maxPixels:
		beta := math.Sqrt(hf * wf / float64(maxPixels))
		hBar = int(math.Floor(hf/beta/f)) * factor
		wBar = int(math.Floor(wf/beta/f)) * factor
	case hBar*wBar < minPixels:
		beta := math.Sqrt(float64(minPixels) / (hf * wf))
		hBar = int(math.Ceil(hf*beta/f)) * factor
		wBar = int(math.Ceil(wf*beta/f)) * factor
	}
	if hBar <= 0 || wBar <= 0 {
		return 0, 0, fmt.Errorf("smart resize %dx%d: too thin for at most %d pixels at factor %d", width, height, maxPixels, factor)
	}
	return hBar, wBar, nil
}

// smartSize is SmartResize for a display size as an image.Point (x = width).
// A size SmartResize refuses (no display, an aspect ratio over 200) falls
// back to the display's own size: the image is then sent unresized and the
// model's points are still pixels of what it saw.
func smartSize(display image.Point, factor, minPixels, maxPixels int) image.Point {
	h, w, err := SmartResize(display.Y, display.X, factor, minPixels, maxPixels)
	if err != nil {
		return display
	}
	return image.Pt(w, h)
}

// Smart-resize constants of the families (factor, min and max pixels).
const (
	qwen25Factor, qwen25Min, qwen25Max = 28, 4 * 28 * 28, 16384 * 28 * 28 // qwen-vl-utils for Qwen2/2.5-VL
	qwen3Factor, qwen3Min, qwen3Max    = 32, 4 * 32 * 32, 16384 * 32 * 32 // qwen-vl-utils for Qwen3-VL
)

// scaled is the image size of a family with no resize rule of its own.
func scaled(display image.Point, maxSide int) image.Point {
	return vision.ScaledSize(display.X, display.Y, maxSide)
}
