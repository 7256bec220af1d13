package dialect

import (
	"image"
	"testing"
)

// The expected sizes were computed with the reference smart_resize
// (qwen-vl-utils, identical in UI-TARS's action_parser.py) run in Python.
func TestSmartResize(t *testing.T) {
	const (
		q25Min, q25Max = 3136, 12845056         // Qwen2.5-VL, OpenCUA
		utMin, utMax   = 100 * 784, 16384 * 784 // UI-TARS-1.5
		ut10Max        = 2700 * 784             // UI-TARS-desktop v1.0
		holoMax        = 14 * 14 * 4 * 1280     // Holo cookbook
		q3Min, q3Max   = 4096, 16384 * 1024     // Qwen3-VL
	)
	cases := []struct {
		name                 string
		h, w, factor, mn, mx int
		wantH, wantW         int
	}{
		{"1920x1080 upscales", 1080, 1920, 28, q25Min, q25Max, 1092, 1932},
		{"1920x1080 UI-TARS-1.5", 1080, 1920, 28, utMin, utMax, 1092, 1932},
		{"1366x768: width up, height down", 768, 1366, 28, utMin, utMax, 756, 1372},
		{"mobile 1080x2400", 2400, 1080, 28, q25Min, q25Max, 2408, 1092},
		{"mobile 720x1280", 1280, 720, 28, q25Min, q25Max, 1288, 728},
		{"1710x852", 852, 1710, 28, q25Min, q25Max, 840, 1708},
		{"1710x852 Holo cap", 852, 1710, 28, 56 * 56, holoMax, 700, 1400},
		{"1710x852 Qwen3 factor 32", 852, 1710, 32, q3Min, q3Max, 864, 1696},
		{"1920x1080 Qwen3", 1080, 1920, 32, q3Min, q3Max, 1088, 1920},
		{"1366x768 Qwen3", 768, 1366, 32, q3Min, q3Max, 768, 1376},
		{"half to even: 1078/28 = 38.5 -> 38", 1078, 1920, 28, q25Min, q25Max, 1064, 1932},
		{"half to even: 1050/28 = 37.5 -> 38", 1050, 1680, 28, q25Min, q25Max, 1064, 1680},
		{"half to even on both sides", 42, 70, 28, q25Min, q25Max, 56, 56},
		{"4K fits", 2160, 3840, 28, q25Min, q25Max, 2156, 3836},
		{"8K is capped", 4320, 7680, 28, q25Min, q25Max, 2688, 4760},
		{"8K at the v1.0 cap", 4320, 7680, 28, utMin, ut10Max, 1064, 1932},
		{"1440p UI-TARS", 1440, 2560, 28, utMin, utMax, 1428, 2548},
		{"tiny grows to min pixels", 10, 10, 28, utMin, utMax, 280, 280},
		{"1x1", 1, 1, 28, q25Min, q25Max, 56, 56},
		{"thin 1x200", 1, 200, 28, q25Min, q25Max, 28, 196},
		{"ratio exactly 200", 28, 5600, 28, q25Min, q25Max, 28, 5600},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, w, err := SmartResize(c.h, c.w, c.factor, c.mn, c.mx)
			if err != nil || h != c.wantH || w != c.wantW {
				t.Errorf("SmartResize(%d, %d, %d, %d, %d) = %d, %d, %v; want %d, %d",
					c.h, c.w, c.factor, c.mn, c.mx, h, w, err, c.wantH, c.wantW)
			}
		})
	}
}

func TestSmartResizeErrors(t *testing.T) {
	cases := []struct {
		name                 string
		h, w, factor, mn, mx int
	}{
		{"zero height", 0, 100, 28, 3136, 12845056},
		{"negative width", 100, -1, 28, 3136, 12845056},
		{"zero factor", 100, 100, 0, 3136, 12845056},
		{"min above max", 100, 100, 28, 200, 100},
		{"aspect ratio above 200", 1, 201, 28, 3136, 12845056},
		{"too thin for the cap", 28, 5600, 28, 0, 28 * 28},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if h, w, err := SmartResize(c.h, c.w, c.factor, c.mn, c.mx); err == nil {
				t.Errorf("SmartResize(%d, %d, ...) = %d, %d; want an error", c.h, c.w, h, w)
			}
		})
	}
}

func TestSpaces(t *testing.T) {
	cases := []struct {
		dialect string
		opts    Options
		display image.Point
		want    Space
	}{
		{"uitars-1.5", Options{}, image.Pt(1920, 1080), Space{image.Pt(1932, 1092), "pixels-floor"}},
		{"uitars-1.5", Options{}, image.Pt(1366, 768), Space{image.Pt(1372, 756), "pixels-floor"}},
		{"uitars-1.0", Options{}, image.Pt(1920, 1080), Space{image.Pt(1932, 1092), "norm1000-round"}},
		{"uitars-1.0", Options{}, image.Pt(3840, 2160), Space{image.Pt(1932, 1064), "norm1000-round"}},
		{"doubao", Options{}, image.Pt(1920, 1080), Space{image.Pt(1932, 1092), "norm1000"}},
		{"qwen2.5", Options{}, image.Pt(1920, 1080), Space{image.Pt(1932, 1092), "pixels-floor"}},
		{"qwen2.5", Options{}, image.Pt(1366, 768), Space{image.Pt(1372, 756), "pixels-floor"}},
		{"qwen3", Options{}, image.Pt(1920, 1080), Space{image.Pt(1920, 1088), "norm999"}},
		{"qwen3", Options{}, image.Pt(1366, 768), Space{image.Pt(1376, 768), "norm999"}},
		{"pyautogui", Options{}, image.Pt(1920, 1080), Space{image.Pt(1366, 768), "pixels"}},
		{"pyautogui", Options{PyAutoGUICoords: "smart"}, image.Pt(1920, 1080), Space{image.Pt(1932, 1092), "pixels-floor"}},
		{"pyautogui", Options{PyAutoGUICoords: "unit"}, image.Pt(1920, 1080), Space{image.Pt(1366, 768), "unit"}},
		{"code", Options{}, image.Pt(1920, 1080), Space{image.Pt(1366, 768), "pixels"}},
	}
	for _, c := range cases {
		t.Run(c.dialect+"/"+c.opts.PyAutoGUICoords+"/"+c.display.String(), func(t *testing.T) {
			d, err := New(c.dialect, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Space(c.display, 0); got != c.want {
				t.Errorf("Space(%v) = %+v, want %+v", c.display, got, c.want)
			}
		})
	}
	t.Run("an aspect ratio smart_resize refuses sends the display size", func(t *testing.T) {
		d, _ := ByName("uitars-1.5")
		if got := d.Space(image.Pt(20100, 100), 0); got.Image != image.Pt(20100, 100) {
			t.Errorf("Space = %+v", got)
		}
	})
}
