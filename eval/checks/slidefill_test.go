package checks

import (
	"math"
	"path/filepath"
	"testing"
)

// TestSlideFillRGB scores presentations Impress saved with blue, dark blue
// and partly blue slide backgrounds, a blue master and none
// (testdata/make.sh), as libreoffice_impress/3b27600c does. The wants are
// python-pptx's reading worked by hand: a slide's solid srgbClr, else its
// master's (the layout's is skipped), else a distance of 1.
func TestSlideFillRGB(t *testing.T) {
	dark := 1 - 127/math.Sqrt(3*255*255)
	tests := []struct {
		file string
		rgb  []any
		want float64
	}{
		{"fill-blue.pptx", []any{0.0, 0.0, 255.0}, 1},
		{"fill-master.pptx", []any{0.0, 0.0, 255.0}, 1},
		{"fill-dark.pptx", []any{0.0, 0.0, 255.0}, dark},
		{"fill-blue.pptx", []any{0.0, 0.0, 128.0}, dark},
		{"fill-two.pptx", []any{0.0, 0.0, 255.0}, 2.0 / 3},
		{"ppt-gold.pptx", []any{0.0, 0.0, 255.0}, 0},
		{"fill-blue.pptx", []any{255.0, 255.0, 0.0}, 0},
	}
	m, _ := Lookup("evaluate_presentation_fill_to_rgb_distance")
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s, err := m.Fn(t.Context(), Call{Result: filepath.Join("testdata", tt.file), Expected: map[string]any{"rgb": tt.rgb}})
			if err != nil || math.Abs(s.Value-tt.want) > 1e-12 {
				t.Errorf("= %v (%s), %v; want %v", s.Value, s.Note, err, tt.want)
			}
		})
	}
	for _, c := range []Call{
		{Result: nil, Expected: map[string]any{"rgb": []any{0.0, 0.0, 255.0}}},
		{Result: filepath.Join("testdata", "fill-blue.pptx"), Expected: map[string]any{"rgb": []any{0.0, 255.0}}},
		{Result: filepath.Join("testdata", "fill-blue.pptx"), Expected: map[string]any{"rgb": []any{"0", 0.0, 255.0}}},
		{Result: filepath.Join("testdata", "html-gold.html"), Expected: map[string]any{"rgb": []any{0.0, 0.0, 255.0}}},
	} {
		if s, err := m.Fn(t.Context(), c); err == nil {
			t.Errorf("%v: = %v, want an error", c, s.Value)
		}
	}
}
