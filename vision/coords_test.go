package vision

import (
	"errors"
	"image"
	"math"
	"strings"
	"testing"
)

func TestParseCoordMode(t *testing.T) {
	tests := []struct {
		in      string
		want    CoordMode
		wantErr bool
	}{
		{"", CoordPixels, false},
		{"pixels", CoordPixels, false},
		{" Norm1000 ", CoordNorm1000, false},
		{"norm", "", true},
		{"percent", "", true},
		{"pixels-floor", CoordPixelsFloor, false},
		{"NORM1000-round", CoordNorm1000Round, false},
		{"norm999", CoordNorm999, false},
		{"unit", CoordUnit, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseCoordMode(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("ParseCoordMode(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "norm1000") {
				t.Errorf("error %q does not list the valid modes", err)
			}
		})
	}
}

func TestScaledSize(t *testing.T) {
	tests := []struct {
		name       string
		w, h, max  int
		wantW, wan int
	}{
		{"1080p", 1920, 1080, 0, 1366, 768},
		{"already 1366", 1366, 768, 0, 1366, 768},
		{"4K", 3840, 2160, 0, 1366, 768},
		{"5:4 fits", 1280, 1024, 0, 1280, 1024},
		{"never upscales", 800, 600, 1366, 800, 600},
		{"portrait", 1080, 1920, 0, 768, 1366},
		{"custom max", 1920, 1080, 1024, 1024, 576},
		{"thin keeps 1 px", 10000, 1, 0, 1366, 1},
		{"negative max is default", 2732, 1536, -5, 1366, 768},
		{"zero width", 0, 100, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ScaledSize(tt.w, tt.h, tt.max)
			if got != image.Pt(tt.wantW, tt.wan) {
				t.Errorf("ScaledSize(%d, %d, %d) = %v, want %dx%d", tt.w, tt.h, tt.max, got, tt.wantW, tt.wan)
			}
		})
	}
}

// layouts are the displays the Mapper is checked on; the last one is the
// right-hand monitor of a two-monitor setup.
var layouts = []struct {
	name    string
	display image.Rectangle
}{
	{"1920x1080", image.Rect(0, 0, 1920, 1080)},
	{"1366x768", image.Rect(0, 0, 1366, 768)},
	{"3840x2160", image.Rect(0, 0, 3840, 2160)},
	{"1280x1024", image.Rect(0, 0, 1280, 1024)},
	{"second monitor at x=1920", image.Rect(1920, 0, 3840, 1080)},
}

// samples returns every index on the first and last 3 of [0, n) and every
// step-th one between.
func samples(n, step int) []int {
	var s []int
	for i := 0; i < n; i++ {
		if i < 3 || i >= n-3 || i%step == 0 {
			s = append(s, i)
		}
	}
	return s
}

func TestMapperRoundTrips(t *testing.T) {
	for _, l := range layouts {
		for _, mode := range []CoordMode{CoordPixels, CoordNorm1000} {
			t.Run(l.name+"/"+string(mode), func(t *testing.T) {
				m := NewMapper(l.display, 0, mode)
				d := l.display
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
				// Model side: every sampled image pixel (or norm1000 unit).
				maxX, maxY, half := float64(m.Image.X-1), float64(m.Image.Y-1), 0.5
				if mode == CoordNorm1000 {
					maxX, maxY = 1000, 1000
					half = 500 / float64(min(d.Dx(), d.Dy())) // half a screen pixel
				}
				for _, y := range samples(int(maxY)+1, 29) {
					for _, x := range samples(int(maxX)+1, 31) {
						p := ModelPoint{float64(x), float64(y)}
						s, err := m.ToScreen(p)
						if err != nil {
							t.Fatalf("ToScreen(%v): %v", p, err)
						}
						if !image.Pt(s.X, s.Y).In(d) {
							t.Fatalf("ToScreen(%v) = %v, outside %v", p, s, d)
						}
						back, err := m.ToModel(s)
						if err != nil {
							t.Fatalf("ToModel(%v): %v", s, err)
						}
						if math.Abs(back.X-p.X) > half+1e-9 || math.Abs(back.Y-p.Y) > half+1e-9 {
							t.Fatalf("ToModel(ToScreen(%v)) = %v, more than %g away", p, back, half)
						}
					}
				}
			})
		}
	}
}

func TestMapperIdentityWithoutDownscale(t *testing.T) {
	// Zero Image: the model sees the display at full size, so pixels map 1:1.
	m := Mapper{Display: image.Rect(1920, 0, 3840, 1080)}
	for _, p := range []ModelPoint{{0, 0}, {1919, 1079}, {100, 200}} {
		s, err := m.ToScreen(p)
		want := ScreenPoint{1920 + int(p.X), int(p.Y)}
		if err != nil || s != want {
			t.Errorf("ToScreen(%v) = %v, %v; want %v", p, s, err, want)
		}
		back, err := m.ToModel(s)
		if err != nil || back != p {
			t.Errorf("ToModel(%v) = %v, %v; want %v exactly", s, back, err, p)
		}
	}
}

func TestMapperEdges(t *testing.T) {
	second := image.Rect(1920, 0, 3840, 1080)
	tests := []struct {
		name    string
		display image.Rectangle
		mode    CoordMode
		p       ModelPoint
		want    ScreenPoint
	}{
		{"pixels origin", second, CoordPixels, ModelPoint{0, 0}, ScreenPoint{1920, 0}},
		{"pixels last pixel", second, CoordPixels, ModelPoint{1365, 767}, ScreenPoint{3839, 1079}},
		{"pixels rounds half up to the edge", second, CoordPixels, ModelPoint{1365.49, 767.49}, ScreenPoint{3839, 1079}},
		{"pixels -0.5 is pixel 0", second, CoordPixels, ModelPoint{-0.5, -0.5}, ScreenPoint{1920, 0}},
		{"pixels centre", second, CoordPixels, ModelPoint{682.5, 383.5}, ScreenPoint{1920 + 960, 540}},
		{"norm origin", second, CoordNorm1000, ModelPoint{0, 0}, ScreenPoint{1920, 0}},
		{"norm far corner", second, CoordNorm1000, ModelPoint{1000, 1000}, ScreenPoint{3839, 1079}},
		{"norm centre", second, CoordNorm1000, ModelPoint{500, 500}, ScreenPoint{2880, 540}},
		{"4K last pixel", image.Rect(0, 0, 3840, 2160), CoordPixels, ModelPoint{1365, 767}, ScreenPoint{3838, 2158}},
		{"4K norm far corner", image.Rect(0, 0, 3840, 2160), CoordNorm1000, ModelPoint{1000, 1000}, ScreenPoint{3839, 2159}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMapper(tt.display, 1366, tt.mode)
			got, err := m.ToScreen(tt.p)
			if err != nil || got != tt.want {
				t.Errorf("ToScreen(%v) = %v, %v; want %v", tt.p, got, err, tt.want)
			}
		})
	}
}

func TestMapperOutOfRange(t *testing.T) {
	second := image.Rect(1920, 0, 3840, 1080)
	tests := []struct {
		name     string
		mode     CoordMode
		p        ModelPoint
		wantText string
	}{
		{"pixels right of image", CoordPixels, ModelPoint{1366, 10}, "x must be within 0..1365 and y within 0..767"},
		{"pixels below image", CoordPixels, ModelPoint{10, 768}, "0..767"},
		{"pixels negative", CoordPixels, ModelPoint{-1, 10}, "1366x768"},
		{"pixels NaN", CoordPixels, ModelPoint{math.NaN(), 10}, "NaN"},
		{"pixels infinite", CoordPixels, ModelPoint{10, math.Inf(1)}, "+Inf"},
		{"norm above 1000", CoordNorm1000, ModelPoint{1000.5, 10}, "0..1000"},
		{"norm negative", CoordNorm1000, ModelPoint{10, -0.1}, "norm1000"},
		{"pixels given as norm", CoordNorm1000, ModelPoint{1366, 768}, "(1366, 768)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMapper(second, 0, tt.mode)
			s, err := m.ToScreen(tt.p)
			var re *RangeError
			if !errors.As(err, &re) {
				t.Fatalf("ToScreen(%v) = %v, %v; want a *RangeError", tt.p, s, err)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("error %q does not contain %q", err, tt.wantText)
			}
		})
	}
	t.Run("screen point outside display", func(t *testing.T) {
		m := NewMapper(second, 0, CoordPixels)
		_, err := m.ToModel(ScreenPoint{1919, 5})
		var re *RangeError
		if !errors.As(err, &re) || re.Mode != "" {
			t.Fatalf("ToModel(1919, 5) error = %v; want a screen *RangeError", err)
		}
		if !strings.Contains(err.Error(), "x must be within 1920..3839") {
			t.Errorf("error %q does not give the display's range", err)
		}
	})
	t.Run("empty display", func(t *testing.T) {
		if _, err := (Mapper{}).ToScreen(ModelPoint{}); err == nil {
			t.Error("zero Mapper accepted a point")
		}
	})
	t.Run("unknown mode", func(t *testing.T) {
		m := Mapper{Display: second, Mode: "percent"}
		if _, err := m.ToScreen(ModelPoint{}); err == nil || !strings.Contains(err.Error(), "percent") {
			t.Errorf("error = %v; want one naming the mode", err)
		}
	})
}

func TestMapperContract(t *testing.T) {
	d := image.Rect(1920, 0, 3840, 1080)
	tests := []struct {
		mode CoordMode
		want []string
	}{
		{CoordPixels, []string{"1366x768", "0 (left edge) to 1365", "0 (top edge) to 767", "top-left", "rejected"}},
		{CoordNorm1000, []string{"1366x768", "0..1000", "1000 (right edge)", "top-left", "rejected"}},
		{CoordNorm1000Round, []string{"1366x768", "0..1000", "1000 (right edge)", "top-left", "rejected"}},
		{CoordNorm999, []string{"1366x768", "0..999", "999 (right edge)", "top-left", "rejected"}},
		{CoordUnit, []string{"1366x768", "0..1", "1 (right edge)", "(0.5, 0.5) the centre", "rejected"}},
		{CoordPixelsFloor, []string{"1366x768", "0 (left edge) to 1366", "0 (top edge) to 768", "top-left", "rejected"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			c := NewMapper(d, 0, tt.mode).Contract()
			for _, w := range tt.want {
				if !strings.Contains(c, w) {
					t.Errorf("Contract() = %q\nmissing %q", c, w)
				}
			}
		})
	}
}

func TestMapperToImage(t *testing.T) {
	m := NewMapper(image.Rect(1920, 0, 3840, 1080), 0, CoordPixels)
	tests := []struct {
		s    ScreenPoint
		want image.Point
	}{
		{ScreenPoint{1920, 0}, image.Pt(0, 0)},
		{ScreenPoint{3839, 1079}, image.Pt(1365, 767)},
		{ScreenPoint{2880, 540}, image.Pt(683, 384)},
	}
	for _, tt := range tests {
		if got := m.ToImage(tt.s); got != tt.want {
			t.Errorf("ToImage(%v) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func FuzzMapper(f *testing.F) {
	f.Add(0, 0, 1920, 1080, 0, false, 683.0, 384.0)
	f.Add(1920, 0, 1920, 1080, 1366, true, 1000.0, 0.0)
	f.Add(0, 0, 3840, 2160, 1024, false, 1365.5, -0.5)
	f.Add(-1280, 0, 1280, 1024, 0, false, 1279.49, 1023.5)
	f.Fuzz(func(t *testing.T, x0, y0, w, h, maxSide int, norm bool, px, py float64) {
		if w <= 0 || h <= 0 || w > 20000 || h > 20000 || abs(x0) > 1e6 || abs(y0) > 1e6 {
			t.Skip()
		}
		mode := CoordPixels
		if norm {
			mode = CoordNorm1000
		}
		d := image.Rect(x0, y0, x0+w, y0+h)
		m := NewMapper(d, maxSide%10000, mode)
		s, err := m.ToScreen(ModelPoint{px, py})
		if err != nil {
			var re *RangeError
			if !errors.As(err, &re) {
				t.Fatalf("ToScreen(%g, %g) error %v is not a *RangeError", px, py, err)
			}
			return
		}
		if !image.Pt(s.X, s.Y).In(d) {
			t.Fatalf("ToScreen(%g, %g) = %v, outside display %v (image %v, %s)", px, py, s, d, m.Image, mode)
		}
		back, err := m.ToModel(s)
		if err != nil {
			t.Fatalf("ToModel(%v): %v", s, err)
		}
		if again, err := m.ToScreen(back); err != nil || again != s {
			t.Fatalf("ToScreen(ToModel(%v) = %v) = %v, %v", s, back, again, err)
		}
	})
}
