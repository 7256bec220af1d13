package checks

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImageMetrics runs the image metrics on images ImageMagick 6.9 drew
// and edited, and config files GIMP 2.10 wrote (testdata/make.sh). Each want
// is what OSWorld's function (metrics/gimp.py, and compare_images of
// metrics/vlc.py, at eac51b51) gave on the same files with Pillow 9.4.0,
// scikit-image 0.19.3 and numpy 1.24 ("error" where it raised). vlc.py
// cannot be imported here (it needs librosa and OpenCV): its compare_images
// body was run as written.
func TestImageMetrics(t *testing.T) {
	tests := []struct {
		metric, result, expected, want string
	}{
		{"compare_images", `"img-base.png"`, `"img-base.png"`, "1.0"},
		{"compare_images", `"img-same.png"`, `"img-base.png"`, "1.0"},
		{"compare_images", `"img-noise.png"`, `"img-base.png"`, "0.6974372596952696"},
		{"compare_images", `"img-darker.png"`, `"img-base.png"`, "0.9259488860218165"},
		{"compare_images", `"img-small.png"`, `"img-base.png"`, "0.9893299937572585"},
		{"compare_images", `"img-base.png"`, `"img-small.png"`, "0.9893299937572585"},
		{"compare_images", `"img-base.gif"`, `"img-base.png"`, "0.9869797197227044"},
		{"compare_images", `"img-base.jpg"`, `"img-base.png"`, "0.9880766664362706"},
		{"compare_images", `"img-rgba.png"`, `"img-base.png"`, "0.9988600740701697"},
		{"compare_images", `"img-gray.png"`, `"img-base.png"`, "0.9752872720616069"},
		{"compare_images", `"img-half.png"`, `"img-base.png"`, "0.7044021786657563"},
		{"compare_images", `"img-palette.png"`, `"img-base.png"`, "0.8707578672105263"},
		{"compare_images", `"img-tri-center.png"`, `"img-base.png"`, "0.4554543720571407"},
		{"compare_image_list", `"img-same.png"`, `"img-base.png"`, "1.0"},
		{"compare_image_list", `"img-noise.png"`, `"img-base.png"`, "0.0"},
		{"compare_image_list", `["img-base.png", "img-rgba.png"]`, `["img-same.png", "img-rgba.png"]`, "1.0"},
		{"compare_image_list", `"img-small.png"`, `"img-base.png"`, "0.0"},
		{"compare_image_list", `"img-base.png"`, `"img-gray.png"`, "error"},
		{"check_structure_sim", `"img-same.png"`, `"img-base.png"`, "1.0"},
		{"check_structure_sim", `"img-noise.png"`, `"img-base.png"`, "0.0"},
		{"check_structure_sim", `"img-half.png"`, `"img-base.png"`, "0.0"},
		{"check_structure_sim", `"img-mirror.png"`, `"img-base.png"`, "0.0"},
		{"check_structure_sim", `"img-rgba.png"`, `"img-base.png"`, "error"},
		{"check_structure_sim", `"img-gray.png"`, `"img-gray.png"`, "1.0"},
		{"check_structure_sim", `"img-small.png"`, `"img-base.png"`, "error"},
		{"check_structure_sim_resized", `"img-small.png"`, `"img-base.png"`, "0.0"},
		{"check_structure_sim_resized", `"img-base.png"`, `"img-small.png"`, "1.0"},
		{"check_structure_sim_resized", `"img-rgba.png"`, `"img-rgba.png"`, "1.0"},
		{"check_structure_sim_resized", `"img-tri-center.png"`, `"img-base.png"`, "0.0"},
		{"check_brightness_decrease_and_structure_sim", `"img-darker.png"`, `"img-base.png"`, "1.0"},
		{"check_brightness_decrease_and_structure_sim", `"img-base.png"`, `"img-darker.png"`, "0.0"},
		{"check_brightness_decrease_and_structure_sim", `"img-half.png"`, `"img-base.png"`, "0.0"},
		{"check_saturation_increase_and_structure_sim", `"img-saturated.png"`, `"img-base.png"`, "1.0"},
		{"check_saturation_increase_and_structure_sim", `"img-base.png"`, `"img-saturated.png"`, "0.0"},
		{"check_saturation_increase_and_structure_sim", `"img-darker.png"`, `"img-base.png"`, "1.0"},
		{"check_contrast_increase_and_structure_sim", `"img-contrast.png"`, `"img-base.png"`, "1.0"},
		{"check_contrast_increase_and_structure_sim", `"img-base.png"`, `"img-contrast.png"`, "0.0"},
		{"check_file_exists_and_structure_sim", `"img-same.png"`, `"img-base.png"`, "1.0"},
		{"check_file_exists_and_structure_sim", `"nope.png"`, `"img-base.png"`, "0.0"},
		{"check_palette_and_structure_sim", `"img-palette.png"`, `"img-base.png"`, "0.0"},
		{"check_palette_and_structure_sim", `"img-same.png"`, `"img-base.png"`, "0.0"},
		{"check_palette_and_structure_sim", `"img-base.gif"`, `"img-base.png"`, "1.0"},
		{"check_image_mirror", `"img-base.png"`, `"img-mirror.png"`, "1.0"},
		{"check_image_mirror", `"img-base.png"`, `"img-same.png"`, "0.0"},
		{"check_green_background", `"img-object-green.png"`, `"img-object-white.png"`, "1.0"},
		{"check_green_background", `"img-object-olive.png"`, `"img-object-white.png"`, "0.0"},
		{"check_triangle_position", `"img-tri-center.png"`, `null`, "1.0"},
		{"check_triangle_position", `"img-tri-corner.png"`, `null`, "0.0"},
		{"check_textbox_on_leftside", `"img-text-left.png"`, `null`, "1.0"},
		{"check_textbox_on_leftside", `"img-text-right.png"`, `null`, "0.0"},
		{"check_image_size", `"img-base.png"`, `{"height": 64}`, "1.0"},
		{"check_image_size", `"img-base.png"`, `{"height": 64, "width": 128}`, "0.0"},
		{"check_image_size", `"img-small.png"`, `{"width": 48}`, "1.0"},
		{"check_image_file_size", `"img-base.png"`, `{"max_size": 500000}`, "1.0"},
		{"check_image_file_size", `"img-base.png"`, `{"max_size": 100}`, "0.0"},
		{"check_config_status", `"gimp-sessionrc"`, `{"key": "hide-docks", "value": "no"}`, "1.0"},
		{"check_config_status", `"gimp-sessionrc"`, `{"key": "hide-docks", "value": "yes"}`, "0.0"},
		{"check_config_status", `"gimp-gimprc"`, `{"key": "layer-new-name", "value": "\"Square\""}`, "1.0"},
		{"check_config_status", `"gimp-gimprc"`, `{"key": "undo-levels", "value": "100"}`, "0.0"},
		{"check_config_status", `"gimp-sessionrc"`, `{"key": ["session-info", "\"toplevel\""], "value": "\"toplevel\""}`, "1.0"},
	}
	for _, tt := range tests {
		t.Run(tt.metric+"/"+tt.result, func(t *testing.T) {
			c := Call{Result: tdPaths(rulesOf(t, tt.result)), Expected: tdPaths(rulesOf(t, tt.expected))}
			m, _ := Lookup(tt.metric)
			s, err := m.Fn(t.Context(), c)
			if tt.want == "error" {
				if err == nil {
					t.Errorf("= %v (%s), want an error", s.Value, s.Note)
				}
				return
			}
			want, _ := strconv.ParseFloat(tt.want, 64)
			tol := imageTolerance
			if strings.HasSuffix(tt.result, `.jpg"`) {
				tol = jpegTolerance
			}
			if err != nil || math.Abs(s.Value-want) > tol {
				t.Errorf("= %v (%s), %v; want %v", s.Value, s.Note, err, want)
			}
		})
	}
}

// imageTolerance allows for the last digits of floating-point sums taken in
// another order than numpy's.
const imageTolerance = 1e-9

// jpegTolerance allows for Go's JPEG decoder, whose pixels differ from
// libjpeg's (Pillow's) by a level here and there: compare_images of
// img-base.jpg is 0.98781 here, 0.98808 in Python.
const jpegTolerance = 1e-3

// tdPaths maps file names (strings naming a testdata file) to their paths.
func tdPaths(v any) any {
	switch x := v.(type) {
	case string:
		return filepath.Join("testdata", x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = tdPaths(e)
		}
		return out
	}
	return v
}
