package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"deskpilot/internal/config"
)

// TestCalibrateButton: Calibrate sits next to Test connection; with the
// form's settings it runs the calibration and shows its verdict, or that no
// convention lands.
func TestCalibrateButton(t *testing.T) {
	var got config.Config
	verdict, fail := "fits: 0–1000\nsettings: coord_mode = \"norm1000\"", false
	h := newHarness(t, func(d *Deps) {
		d.Calibrate = func(_ context.Context, c config.Config, _ string) (string, error) {
			got = c
			if fail {
				return "no convention lands within the targets", errors.New("no convention lands within the targets")
			}
			return verdict, nil
		}
	})
	sv := h.u.sv
	if findButton(t, sv.content, "Calibrate") != sv.calBtn {
		t.Fatal("no Calibrate button in the settings")
	}
	test.Tap(sv.calBtn)
	if !strings.Contains(sv.result.Text, "Base URL and Model are empty") {
		t.Errorf("Calibrate with empty fields: %q", sv.result.Text)
	}
	sv.preset.SetSelected("ollama")
	test.Tap(sv.calBtn)
	h.q.waitFor(t, "the calibration", func() bool { return strings.Contains(sv.result.Text, "0–1000") })
	if got.Model != "qwen2.5vl:7b" || !strings.Contains(sv.result.Text, `coord_mode = "norm1000"`) {
		t.Errorf("calibrated %q, result %q", got.Model, sv.result.Text)
	}
	fail = true
	test.Tap(sv.calBtn)
	h.q.waitFor(t, "the failed calibration", func() bool { return strings.Contains(sv.result.Text, "no convention lands") })
}
