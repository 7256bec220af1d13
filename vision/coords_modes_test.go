package vision

import (
	"errors"
	"image"
	"math"
	"strings"
	"testing"
)

// The reference points below are the worked examples of each family's own
// documentation or reference code (model-dialects research notes): the
// screen pixel their tools click for the model's output.
func TestMapperReferenceExamples(t *testing.T) {
	tests := []struct {
		name    string
		display image.Rectangle
		image   image.Point
		mode    CoordMode
		p       ModelPoint
		want    ScreenPoint
	}{
		// UI-TARS README_coordinates.md: 1920x1080 resized to 1932x1092,
		// (197,525) -> int(197/1932*1920), int(525/1092*1080).
		{"uitars-1.5 README", image.Rect(0, 0, 1920, 1080), image.Pt(1932, 1092), CoordPixelsFloor, ModelPoint{197, 525}, ScreenPoint{195, 519}},
		// UI-TARS README_v1.md: round(1920*235/1000)=451, round(1080*512/1000)=553.
		{"uitars-1.0 README", image.Rect(0, 0, 1920, 1080), image.Pt(1920, 1080), CoordNorm1000Round, ModelPoint{235, 512}, ScreenPoint{451, 553}},
		// Qwen2.5-VL mobile_agent.ipynb: 1080x2400 resized to 1092x2408,
		// [935, 406] -> (924.73, 404.65) before the client truncates.
		{"qwen2.5 mobile 1080x2400", image.Rect(0, 0, 1080, 2400), image.Pt(1092, 2408), CoordPixelsFloor, ModelPoint{935, 406}, ScreenPoint{924, 404}},
		// Same notebook, 720x1280 -> 728x1288: [639, 1095] -> (631.98, 1088.20).
		{"qwen2.5 mobile 720x1280", image.Rect(0, 0, 720, 1280), image.Pt(728, 1288), CoordPixelsFloor, ModelPoint{639, 1095}, ScreenPoint{631, 1088}},
		// OSWorld qwen25vl_agent: [960, 540] on 1920x1080 -> pyautogui.click(954, 534).
		{"qwen2.5 OSWorld", image.Rect(0, 0, 1920, 1080), image.Pt(1932, 1092), CoordPixelsFloor, ModelPoint{960, 540}, ScreenPoint{954, 534}},
		// Qwen3-VL mobile cookbook: [447, 81] on 1440x3120 -> round(x/999*W) = (644, 253).
		{"qwen3 cookbook", image.Rect(0, 0, 1440, 3120), image.Pt(1440, 3136), CoordNorm999, ModelPoint{447, 81}, ScreenPoint{644, 253}},
		// UI-TARS codes/README.md (doubao): <point>200 300</point> on 1920x1080 -> click(384.0, 324.0).
		{"doubao README", image.Rect(0, 0, 1920, 1080), image.Pt(1932, 1092), CoordNorm1000, ModelPoint{200, 300}, ScreenPoint{384, 324}},
		// Python's round is half to even: 1366*750/1000 = 1024.5 -> 1024.
		{"norm1000-round half to even", image.Rect(0, 0, 1366, 768), image.Pt(1366, 768), CoordNorm1000Round, ModelPoint{750, 0}, ScreenPoint{1024, 0}},
		{"norm1000-round half to even up", image.Rect(0, 0, 1366, 768), image.Pt(1366, 768), CoordNorm1000Round, ModelPoint{250, 0}, ScreenPoint{342, 0}},
		// Aguvis: int(round(x*W)); 0.75*1366 = 1024.5 -> 1024.
		{"unit half to even", image.Rect(0, 0, 1366, 768), image.Pt(1366, 768), CoordUnit, ModelPoint{0.75, 0.5}, ScreenPoint{1024, 384}},
		{"unit far corner", image.Rect(0, 0, 1366, 768), image.Pt(1366, 768), CoordUnit, ModelPoint{1, 1}, ScreenPoint{1365, 767}},
		{"norm999 far corner", image.Rect(1920, 0, 3840, 1080), image.Pt(1920, 1088), CoordNorm999, ModelPoint{999, 999}, ScreenPoint{3839, 1079}},
		{"norm999 origin on a second monitor", image.Rect(1920, 0, 3840, 1080), image.Pt(1920, 1088), CoordNorm999, ModelPoint{0, 0}, ScreenPoint{1920, 0}},
		{"pixels-floor far edge", image.Rect(0, 0, 1920, 1080), image.Pt(1932, 1092), CoordPixelsFloor, ModelPoint{1932, 1092}, ScreenPoint{1919, 1079}},
		{"pixels-floor last integer (upscaled image)", image.Rect(0, 0, 1920, 1080), image.Pt(1932, 1092), CoordPixelsFloor, ModelPoint{1931, 1091}, ScreenPoint{1919, 1079}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Mapper{Display: tt.display, Image: tt.image, Mode: tt.mode}
			got, err := m.ToScreen(tt.p)
			if err != nil || got != tt.want {
				t.Errorf("ToScreen(%v) = %v, %v; want %v", tt.p, got, err, tt.want)
			}
		})
	}
}

// TestPixelsFloorMatchesReferenceForms checks, for every integer coordinate
// of the smart-resized images of common displays, that the Mapper clicks
// where both reference forms do: int(x/w*W) (UI-TARS README, OpenCUA) and
// int(x*W/w) (OSWorld's Qwen2.5-VL agent).
func TestPixelsFloorMatchesReferenceForms(t *testing.T) {
	sizes := []struct{ display, img image.Point }{
		{image.Pt(1920, 1080), image.Pt(1932, 1092)},
		{image.Pt(1366, 768), image.Pt(1372, 756)},
		{image.Pt(2560, 1440), image.Pt(2548, 1428)},
		{image.Pt(3840, 2160), image.Pt(3836, 2156)},
		{image.Pt(1280, 800), image.Pt(1288, 812)},
	}
	for _, sz := range sizes {
		m := Mapper{Display: image.Rectangle{Max: sz.display}, Image: sz.img, Mode: CoordPixelsFloor}
		W, w := float64(sz.display.X), float64(sz.img.X)
		for x := 0; x < sz.img.X; x++ {
			s, err := m.ToScreen(ModelPoint{float64(x), 0})
			if err != nil {
				t.Fatal(err)
			}
			readme := int(float64(x) / w * W)
			osworld := int(float64(x) * W / w)
			if s.X != readme || s.X != osworld {
				t.Fatalf("%v in %v: x=%d -> %d; references give %d and %d", sz.img, sz.display, x, s.X, readme, osworld)
			}
		}
	}
}

func TestMapperModesRoundTrip(t *testing.T) {
	cases := []struct {
		name    string
		display image.Rectangle
		image   image.Point
		mode    CoordMode
	}{
		{"uitars-1.5 1920x1080", image.Rect(0, 0, 1920, 1080), image.Pt(1932, 1092), CoordPixelsFloor},
		{"uitars-1.5 1366x768", image.Rect(0, 0, 1366, 768), image.Pt(1372, 756), CoordPixelsFloor},
		{"qwen2.5 4K downscaled", image.Rect(0, 0, 5120, 2880), image.Pt(4760, 2688), CoordPixelsFloor},
		{"second monitor floor", image.Rect(1920, 0, 3840, 1080), image.Pt(1932, 1092), CoordPixelsFloor},
		{"norm1000-round 1920x1080", image.Rect(0, 0, 1920, 1080), image.Pt(1932, 1092), CoordNorm1000Round},
		{"norm1000-round 1366x768", image.Rect(0, 0, 1366, 768), image.Pt(1372, 756), CoordNorm1000Round},
		{"norm999 1920x1080", image.Rect(0, 0, 1920, 1080), image.Pt(1920, 1088), CoordNorm999},
		{"norm999 second monitor", image.Rect(1920, 0, 3840, 1080), image.Pt(1920, 1088), CoordNorm999},
		{"norm999 3840x2160", image.Rect(0, 0, 3840, 2160), image.Pt(3840, 2176), CoordNorm999},
		{"unit 1366x768", image.Rect(0, 0, 1366, 768), image.Pt(1366, 768), CoordUnit},
		{"unit 1920x1080", image.Rect(0, 0, 1920, 1080), image.Pt(1366, 768), CoordUnit},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := Mapper{Display: c.display, Image: c.image, Mode: c.mode}
			d := c.display
			for _, y := range samples(d.Dy(), 37) {
				for _, x := range samples(d.Dx(), 41) {
					s := ScreenPoint{d.Min.X + x, d.Min.Y + y}
					p, err := m.ToModel(s)
					if err != nil {
						t.Fatalf("ToModel(%v): %v", s, err)
					}
					back, err := m.ToScreen(p)
					if err != nil || back != s {
						t.Fatalf("ToScreen(ToModel(%v) = %v) = %v, %v; want %v", s, p, back, err, s)
					}
				}
			}
			// Model side: a grid over the whole space, edges included; the
			// way back lands within half a screen pixel (in model units).
			ex, ey := m.Extent()
			halfX, halfY := 0.5*ex/float64(d.Dx()), 0.5*ey/float64(d.Dy())
			for i := 0; i <= 97; i++ {
				for j := 0; j <= 89; j++ {
					p := ModelPoint{ex * float64(i) / 97, ey * float64(j) / 89}
					s, err := m.ToScreen(p)
					if err != nil {
						t.Fatalf("ToScreen(%v): %v", p, err)
					}
					back, err := m.ToModel(s)
					if err != nil {
						t.Fatalf("ToModel(%v): %v", s, err)
					}
					// The far edge folds onto the last pixel, a pixel away.
					tolX, tolY := halfX, halfY
					if i == 97 {
						tolX = 3 * halfX
					}
					if j == 89 {
						tolY = 3 * halfY
					}
					if math.Abs(back.X-p.X) > tolX+1e-9 || math.Abs(back.Y-p.Y) > tolY+1e-9 {
						t.Fatalf("ToModel(ToScreen(%v) = %v) = %v, more than (%g, %g) away", p, s, back, tolX, tolY)
					}
				}
			}
		})
	}
}

func TestMapperModesOutOfRange(t *testing.T) {
	d := image.Rect(0, 0, 1920, 1080)
	tests := []struct {
		name     string
		image    image.Point
		mode     CoordMode
		p        ModelPoint
		wantText string
	}{
		{"floor past the right edge", image.Pt(1932, 1092), CoordPixelsFloor, ModelPoint{1932.01, 5}, "x must be within 0..1932 and y within 0..1092"},
		{"floor negative", image.Pt(1932, 1092), CoordPixelsFloor, ModelPoint{-0.01, 5}, "1932x1092"},
		{"norm1000-round above", image.Pt(1932, 1092), CoordNorm1000Round, ModelPoint{5, 1001}, "0..1000 (norm1000-round"},
		{"norm999 at 1000", image.Pt(1920, 1088), CoordNorm999, ModelPoint{1000, 5}, "0..999 (norm999"},
		{"norm999 pixels given", image.Pt(1920, 1088), CoordNorm999, ModelPoint{1919, 1079}, "(999, 999) the bottom-right"},
		{"unit above 1", image.Pt(1366, 768), CoordUnit, ModelPoint{1.2, 0.5}, "within 0..1"},
		{"unit NaN", image.Pt(1366, 768), CoordUnit, ModelPoint{math.NaN(), 0.5}, "NaN"},
		{"norm999 infinite", image.Pt(1920, 1088), CoordNorm999, ModelPoint{math.Inf(-1), 0}, "-Inf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Mapper{Display: d, Image: tt.image, Mode: tt.mode}
			s, err := m.ToScreen(tt.p)
			var re *RangeError
			if !errors.As(err, &re) {
				t.Fatalf("ToScreen(%v) = %v, %v; want a *RangeError", tt.p, s, err)
			}
			if re.Mode != tt.mode {
				t.Errorf("RangeError.Mode = %q, want %q", re.Mode, tt.mode)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("error %q does not contain %q", err, tt.wantText)
			}
		})
	}
}

func TestMapperExtent(t *testing.T) {
	d := image.Rect(0, 0, 1920, 1080)
	tests := []struct {
		mode   CoordMode
		wx, wy float64
	}{
		{CoordPixels, 1366, 768},
		{CoordPixelsFloor, 1366, 768},
		{CoordNorm1000, 1000, 1000},
		{CoordNorm1000Round, 1000, 1000},
		{CoordNorm999, 999, 999},
		{CoordUnit, 1, 1},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			if x, y := NewMapper(d, 0, tt.mode).Extent(); x != tt.wx || y != tt.wy {
				t.Errorf("Extent() = %g, %g; want %g, %g", x, y, tt.wx, tt.wy)
			}
		})
	}
}

func FuzzMapperModes(f *testing.F) {
	f.Add(0, 0, 1920, 1080, 1932, 1092, uint8(2), 197.0, 525.0)
	f.Add(1920, 0, 1920, 1080, 1920, 1088, uint8(4), 999.0, 0.0)
	f.Add(0, 0, 1366, 768, 1366, 768, uint8(5), 0.75, 1.0)
	f.Add(0, 0, 1366, 768, 1372, 756, uint8(3), 1000.0, 500.0)
	f.Fuzz(func(t *testing.T, x0, y0, w, h, iw, ih int, mode uint8, px, py float64) {
		if w <= 0 || h <= 0 || w > 20000 || h > 20000 || iw <= 0 || ih <= 0 || iw > 40000 || ih > 40000 ||
			abs(x0) > 1e6 || abs(y0) > 1e6 {
			t.Skip()
		}
		modes := coordModes()
		d := image.Rect(x0, y0, x0+w, y0+h)
		m := Mapper{Display: d, Image: image.Pt(iw, ih), Mode: modes[int(mode)%len(modes)]}
		s, err := m.ToScreen(ModelPoint{px, py})
		if err != nil {
			var re *RangeError
			if !errors.As(err, &re) {
				t.Fatalf("ToScreen(%g, %g) error %v is not a *RangeError", px, py, err)
			}
			return
		}
		if !image.Pt(s.X, s.Y).In(d) {
			t.Fatalf("ToScreen(%g, %g) = %v, outside display %v (%s)", px, py, s, d, m.Mode)
		}
		back, err := m.ToModel(s)
		if err != nil {
			t.Fatalf("ToModel(%v): %v", s, err)
		}
		if again, err := m.ToScreen(back); err != nil || again != s {
			t.Fatalf("ToScreen(ToModel(%v) = %v) = %v, %v (%s)", s, back, again, err, m.Mode)
		}
	})
}
