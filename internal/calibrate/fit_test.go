package calibrate

import (
	"image"
	"strings"
	"testing"

	"deskpilot/agent/dialect"
	"deskpilot/vision"
)

// On a second monitor, a model that answers root-window pixels fits only
// "screen pixels, off by the monitor's offset", which no setting reads; one
// that answers the monitor's own 0–1000 fits 0–1000.
func TestFitMonitorOffset(t *testing.T) {
	m := image.Rect(1920, 0, 3840, 1080)
	g := Geometry{Monitor: m, Sent: image.Pt(1366, 768)}
	var root, norm []Sample
	for _, tg := range Layout(m) {
		root = append(root, Sample{Target: tg, Point: &vision.ModelPoint{X: float64(tg.Center.X), Y: float64(tg.Center.Y)}})
		local := tg.Center.Sub(m.Min)
		norm = append(norm, Sample{Target: tg, Point: &vision.ModelPoint{X: float64(local.X) * 1000 / 1920, Y: float64(local.Y) * 1000 / 1080}})
	}
	rs := Fit(root, g)
	for _, r := range Landing(rs) {
		if !r.Convention.Root {
			t.Errorf("%s lands for root-window answers", r.Convention.Label())
		}
	}
	if !rs[0].Lands || rs[0].Convention.Label() != "screen pixels, off by the monitor's offset" {
		t.Fatalf("root answers: best %s lands %v (%d land: %+v)", rs[0].Convention.Label(), rs[0].Lands, len(Landing(rs)), Landing(rs))
	}
	sg := Suggest(rs[0].Convention, "code", dialect.Space{Image: g.Sent, Mode: vision.CoordPixels}, g)
	if sg.Fixable || !strings.Contains(sg.Note, "monitor's offset (1920,0)") {
		t.Errorf("suggestion %+v", sg)
	}
	rs = Fit(norm, g)
	if rs[0].Convention.Label() != "0–1000" || rs[0].Worst > 1 {
		t.Errorf("0–1000 answers: best %s worst %.2f", rs[0].Convention.Label(), rs[0].Worst)
	}
	if sg := Suggest(rs[0].Convention, "code", dialect.Space{Image: g.Sent, Mode: vision.CoordPixels}, g); sg.String() != `coord_mode = "norm1000"` {
		t.Errorf("suggestion %q", sg)
	}
	missing := append([]Sample{{Target: norm[0].Target}}, norm[1:]...)
	if rs := Fit(missing, g); len(Landing(rs)) != 0 || rs[0].Worst < 1e300 {
		t.Errorf("a target without a point still lands: %+v", rs[0])
	}
}
