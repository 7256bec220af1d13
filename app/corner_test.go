package app

import (
	"image"
	"testing"
)

func TestPickCorner(t *testing.T) {
	area := image.Rect(0, 0, 1280, 800)
	sz := image.Pt(720, 120)
	br, bl, tr := stripAt(area, sz, bottomRight), stripAt(area, sz, bottomLeft), stripAt(area, sz, topRight)
	dialog := keepOut{r: image.Rect(900, 560, 1270, 790), weight: weightWindow}   // bottom right
	maximized := keepOut{r: image.Rect(0, 0, 1280, 800), weight: weightWindow}    // under every corner
	leftDialog := keepOut{r: image.Rect(10, 560, 400, 790), weight: weightWindow} // bottom left
	click := func(x, y int) keepOut { return keepOut{r: around(image.Pt(x, y), actionRadius), weight: weightTarget} }
	tests := []struct {
		name   string
		cur    image.Rectangle
		prefer corner
		keep   []keepOut
		must   bool
		want   corner
		move   bool
	}{
		{"nothing to avoid: home", image.Rect(100, 100, 1380, 920), bottomRight, nil, true, bottomRight, true},
		{"a dialog in the home corner", br, bottomRight, []keepOut{dialog}, false, bottomLeft, true},
		{"new strip avoids the dialog", image.Rect(100, 100, 1380, 920), bottomRight, []keepOut{dialog}, true, bottomLeft, true},
		{"covers nothing: stays", bl, bottomLeft, []keepOut{dialog}, false, bottomLeft, false},
		{"maximized window: stays", br, bottomRight, []keepOut{maximized}, false, bottomRight, false},
		{"a click under the strip beats the window", br, bottomRight, []keepOut{maximized, click(1100, 740)}, true, bottomLeft, true},
		{"dialogs in both bottom corners", br, bottomRight, []keepOut{dialog, leftDialog}, false, topRight, true},
		{"the person put it elsewhere", image.Rect(300, 300, 1020, 420), bottomRight, nil, false, bottomRight, false},
		{"off the work area: back to a corner", image.Rect(600, 750, 1320, 870), bottomRight, nil, false, bottomRight, true},
		{"size change keeps the corner", image.Rect(8, 600, 728, 792), bottomLeft, nil, true, bottomLeft, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, at, move := pickCorner(area, tt.cur, sz, tt.keep, tt.prefer, tt.must)
			if move != tt.move || (move && c != tt.want) {
				t.Fatalf("pickCorner = %v at %v, move %v; want %v, move %v", c, at, move, tt.want, tt.move)
			}
			if move && (!at.In(area) || at.Size() != sz) {
				t.Errorf("strip at %v, want %v inside %v", at, sz, area)
			}
			if !move && at != tt.cur {
				t.Errorf("not moving, but at %v (was %v)", at, tt.cur)
			}
		})
	}
	if tr.Min.Y != stripMargin || bl.Min.X != stripMargin || br.Max.X != area.Max.X-stripMargin {
		t.Errorf("corners %v %v %v keep no margin", br, bl, tr)
	}
}
