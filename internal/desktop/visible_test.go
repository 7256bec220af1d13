package desktop

import (
	"image"
	"slices"
	"testing"
)

func TestVisibleParts(t *testing.T) {
	r := image.Rect
	tests := []struct {
		name string
		wins []stacked
		want []image.Rectangle
	}{
		{"none", nil, nil},
		{"not own", []stacked{{rect: r(0, 0, 10, 10)}}, nil},
		{"own alone", []stacked{{rect: r(0, 0, 10, 10), own: true}}, []image.Rectangle{r(0, 0, 10, 10)}},
		{"other below does not cover", []stacked{{rect: r(0, 0, 10, 10)}, {rect: r(0, 0, 10, 10), own: true}},
			[]image.Rectangle{r(0, 0, 10, 10)}},
		{"other above covers all", []stacked{{rect: r(2, 2, 8, 8), own: true}, {rect: r(0, 0, 10, 10)}}, nil},
		{"other above covers a corner", []stacked{{rect: r(0, 0, 10, 10), own: true}, {rect: r(5, 5, 20, 20)}},
			[]image.Rectangle{r(0, 0, 10, 5), r(0, 5, 5, 10)}},
		{"other above in the middle", []stacked{{rect: r(0, 0, 10, 10), own: true}, {rect: r(3, 3, 6, 6)}},
			[]image.Rectangle{r(0, 0, 10, 3), r(0, 6, 10, 10), r(0, 3, 3, 6), r(6, 3, 10, 6)}},
		{"two others", []stacked{{rect: r(0, 0, 10, 10), own: true}, {rect: r(0, 0, 10, 5)}, {rect: r(0, 5, 5, 10)}},
			[]image.Rectangle{r(5, 5, 10, 10)}},
		{"own above own keeps both", []stacked{{rect: r(0, 0, 10, 10), own: true}, {rect: r(0, 0, 5, 5), own: true}},
			[]image.Rectangle{r(0, 0, 10, 10), r(0, 0, 5, 5)}},
		{"disjoint other", []stacked{{rect: r(0, 0, 10, 10), own: true}, {rect: r(20, 20, 30, 30)}},
			[]image.Rectangle{r(0, 0, 10, 10)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := visibleParts(tt.wins)
			if !slices.Equal(got, tt.want) {
				t.Errorf("visibleParts = %v, want %v", got, tt.want)
			}
			// The parts must be exactly the own area not covered: check by pixel.
			for y := -1; y < 32; y++ {
				for x := -1; x < 32; x++ {
					p := image.Pt(x, y)
					if in(p, got) != visibleAt(p, tt.wins) {
						t.Fatalf("pixel %v: in parts %v, visible %v", p, in(p, got), visibleAt(p, tt.wins))
					}
				}
			}
		})
	}
}

func in(p image.Point, rs []image.Rectangle) bool {
	return slices.ContainsFunc(rs, func(r image.Rectangle) bool { return p.In(r) })
}

// visibleAt says whether an own window shows at p: the topmost window at p,
// ignoring own windows above other own windows, is deskpilot's.
func visibleAt(p image.Point, wins []stacked) bool {
	for i := len(wins) - 1; i >= 0; i-- {
		if p.In(wins[i].rect) {
			return wins[i].own
		}
	}
	return false
}
