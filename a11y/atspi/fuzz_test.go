package atspi

import (
	"image"
	"testing"
)

// FuzzExtents feeds application-reported extents to the conversion and the
// visibility walk: bounds are never empty, and never outside the display.
func FuzzExtents(f *testing.F) {
	f.Add(int32(10), int32(20), int32(30), int32(40))
	f.Add(int32(-2147483648), int32(-2147483648), int32(1), int32(1))
	f.Add(int32(2147483647), int32(0), int32(2147483647), int32(2147483647))
	f.Fuzz(func(t *testing.T, x, y, w, h int32) {
		display := image.Rect(0, 0, 1920, 1080)
		nodes := build([]row{
			{-1, roleApplication, "app", image.Rectangle{}, 0},
			{0, roleFrame, "win", display, 0},
		})
		r, ok := extentsRect(x, y, w, h)
		nodes = append(nodes, node{ref: ref{":1.1", "/x"}, parent: 1, depth: 2, role: 43, states: shownStates, ext: r, hasExt: ok})
		nodes[1].kids = append(nodes[1].kids, 2)
		ks, _ := visible(nodes, display, 64, nil)
		for _, k := range ks {
			if k.bounds.Empty() || !k.bounds.In(display) {
				t.Fatalf("kept bounds %v for extents %d,%d %dx%d", k.bounds, x, y, w, h)
			}
		}
	})
}
