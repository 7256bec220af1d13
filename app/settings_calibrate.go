package app

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// calibrationTimeout bounds a calibration from the settings: nine model
// calls of a slow local model.
const calibrationTimeout = 15 * time.Minute

// calibrate runs `doctor --calibrate` for the settings in the form: the
// screen shows labelled targets while the model is asked to click each,
// then the result line says which coordinate convention lands and the
// settings that read it.
func (v *settingsView) calibrate() {
	u := v.u
	if u.deps.Calibrate == nil {
		v.showResult("Calibration is not available in this build.", true)
		return
	}
	c, key, err := v.testable()
	if err != nil {
		v.showResult(err.Error(), true)
		return
	}
	v.calBtn.Disable()
	v.testBtn.Disable()
	v.testing.Show()
	v.testing.Start()
	v.showResult(fmt.Sprintf("Calibrating %s: the screen shows nine labelled targets while the model is asked to click each…", c.Model), false)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), calibrationTimeout)
		defer cancel()
		summary, err := u.deps.Calibrate(ctx, c, key)
		u.do(func() {
			v.calBtn.Enable()
			v.testBtn.Enable()
			v.testing.Stop()
			v.testing.Hide()
			if err != nil {
				v.showResult("Calibration: "+strings.ReplaceAll(oneLine(err.Error()), "settings: ", "— "), true)
				return
			}
			v.showResult("Calibration: "+strings.ReplaceAll(summary, "\n", " — "), false)
		})
	}()
}
