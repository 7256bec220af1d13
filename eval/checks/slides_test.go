package checks

import (
	"fmt"
	"testing"
)

// pptxOptionSets are the option sets OSWorld's compare_pptx_files tasks use
// (all of them), then one per option the tasks leave at its default.
var pptxOptionSets = []string{
	`{}`, `{"examine_shape": false}`,
	`{"examine_shape": false, "examine_title_bottom_position": true}`,
	`{"examine_right_position": true, "examine_shape": false}`,
	`{"examine_image_size": true, "examine_shape": false}`,
	`{"examine_shape": false, "examine_table_bottom_position": true}`,
	`{"examine_aligment": false}`,
	`{"examine_modify_height": true, "examine_shape": false}`,
	`{"examine_shape": false, "examine_top_position": true}`,
	`{"examine_shape": false, "examine_shape_for_shift_size": true}`,
	`{"examine_bullets": false, "examine_shape": false}`,
	`{"examine_number_of_slides": false}`, `{"examine_note": false}`, `{"examine_alignment": false}`,
	`{"examine_font_bold": false}`, `{"examine_color_rgb": false}`,
	`{"examine_indent": false, "examine_bullets": false}`,
	`{"examine_strike_through": false, "examine_font_name": false}`, `{"examine_text": false}`,
}

// TestComparePptxFiles runs compare_pptx_files on presentations LibreOffice
// Impress 7.4 wrote from testdata/src/ppt-gold.fodp and near misses of it
// (make.sh), against ppt-gold.pptx, with each option set of
// pptxOptionSets. Each want row is what OSWorld's compare_pptx_files
// (desktop_env/evaluators/metrics/slides.py at eac51b51) returned for the
// same files and options, with python-pptx 1.0.2.
func TestComparePptxFiles(t *testing.T) {
	tests := []struct {
		file string
		want string // one digit per option set
	}{
		{"ppt-align.pptx", "0000000000000100000"},
		{"ppt-bold.pptx", "0000000000000000000"},
		{"ppt-color.pptx", "0000000000000001000"},
		{"ppt-gold.pptx", "1110101101111111111"},
		{"ppt-level.pptx", "0000000000000000000"},
		{"ppt-moved.pptx", "0100100100100000000"},
		{"ppt-notes.pptx", "0000000000001000000"},
		{"ppt-picright.pptx", "0101100100100000000"},
		{"ppt-picsize.pptx", "0100000100100000000"},
		{"ppt-pictop.pptx", "0100100110100000000"},
		{"ppt-same.pptx", "1110101101111111111"},
		{"ppt-short.pptx", "0000000000010000000"},
		{"ppt-strike.pptx", "1110101101111111111"},
		{"ppt-tablelow.pptx", "0100010100100000000"},
		{"ppt-word.pptx", "0000000000000000000"},
	}
	m, _ := Lookup("compare_pptx_files")
	for _, tt := range tests {
		for i, opts := range pptxOptionSets {
			t.Run(fmt.Sprintf("%s/%s", tt.file, opts), func(t *testing.T) {
				o := rulesOf(t, opts).(map[string]any)
				if err := m.Validate(nil, nil, o); err != nil {
					t.Fatal(err)
				}
				s, err := m.Fn(t.Context(), Call{Result: td(tt.file), Expected: td("ppt-gold.pptx"), Options: o})
				want := float64(tt.want[i] - '0')
				if err != nil || s.Value != want {
					t.Errorf("compare_pptx_files = %v (%s), %v; want %v", s.Value, s.Note, err, want)
				}
			})
		}
	}
}

// TestSlideMetrics runs the other slides.py metrics on LibreOffice
// presentations and LibreOffice's own settings files (make.sh); each want is what OSWorld's function (slides.py
// at eac51b51, python-pptx 1.0.2) gave on the same files, "error" where it
// raised.
func TestSlideMetrics(t *testing.T) {
	tests := []struct {
		metric           string
		result, expected any
		want             string
	}{
		{"check_slide_orientation_Portrait", td("ppt-gold.pptx"), nil, "0"},
		{"check_slide_orientation_Portrait", td("ppt-portrait.pptx"), nil, "1"},
		{"check_image_stretch_and_center", td("ppt-stretched.pptx"), td("ppt-picslide.pptx"), "1"},
		{"check_image_stretch_and_center", td("ppt-picslide.pptx"), td("ppt-picslide.pptx"), "0"},
		{"check_image_stretch_and_center", td("ppt-gold.pptx"), td("ppt-picslide.pptx"), "error"},
		{"check_image_stretch_and_center", td("ppt-stretched.pptx"), td("ppt-gold.pptx"), "error"},
		{"check_transition", td("ppt-dissolve.pptx"), map[string]any{"slide_idx": int64(0), "transition_type": "dissolve"}, "1"},
		{"check_transition", td("ppt-fade.pptx"), map[string]any{"slide_idx": int64(0), "transition_type": "dissolve"}, "0"},
		{"check_transition", td("ppt-gold.pptx"), map[string]any{"slide_idx": int64(0), "transition_type": "dissolve"}, "0"},
		{"check_transition", td("ppt-dissolve.pptx"), map[string]any{"slide_idx": int64(5), "transition_type": "dissolve"}, "0"},
		{"check_page_number_colors", td("ppt-gold.pptx"), map[string]any{"color": "red"}, "0"},
		{"check_page_number_colors", td("ppt-gold.pptx"), map[string]any{"color": "black"}, "1"},
		{"check_page_number_colors", td("ppt-gold.pptx"), map[string]any{"color": "blue"}, "0"},
		{"check_page_number_colors", td("ppt-gold.pptx"), map[string]any{"color": "green"}, "0"},
		{"check_page_number_colors", td("ppt-gold.pptx"), map[string]any{"color": "purple"}, "1"},
		{"check_presenter_console_disable", td("lo-set.xcu"), nil, "1"},
		{"check_presenter_console_disable", td("lo-fresh.xcu"), nil, "0"},
		{"check_presenter_console_disable", td("ppt-gold.pptx"), nil, "0"},
		{"check_auto_saving_time", td("lo-set.xcu"), map[string]any{"minutes": int64(3)}, "1"},
		{"check_auto_saving_time", td("lo-set.xcu"), map[string]any{"minutes": int64(5)}, "0"},
		{"check_auto_saving_time", td("lo-fresh.xcu"), map[string]any{"minutes": int64(3)}, "0"},
		{"check_auto_saving_time", td("ppt-gold.pptx"), map[string]any{"minutes": int64(3)}, "0"}, // None in Python: not well-formed XML
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%v", tt.metric, tt.result), func(t *testing.T) {
			checkScore(t, tt.metric, Call{Result: tt.result, Expected: tt.expected}, tt.want)
		})
	}
}

// checkScore runs a metric and compares with want: a score ("0", "0.5") or
// "error".
func checkScore(t *testing.T, metric string, c Call, want string) {
	t.Helper()
	m, ok := Lookup(metric)
	if !ok {
		t.Fatalf("no metric %s", metric)
	}
	s, err := m.Fn(t.Context(), c)
	if want == "error" {
		if err == nil {
			t.Errorf("%s = %v (%s), want an error", metric, s.Value, s.Note)
		}
		return
	}
	if err != nil || fmt.Sprint(s.Value) != want {
		t.Errorf("%s = %v (%s), %v; want %s", metric, s.Value, s.Note, err, want)
	}
}
