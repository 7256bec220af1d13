package desktop

import "image"

// stacked is a top-level window for visibleParts: its rectangle (root
// coordinates) and whether it belongs to deskpilot.
type stacked struct {
	rect image.Rectangle
	own  bool
}

// visibleParts returns the parts of the own windows that no other window
// stacked above them covers. wins is in stacking order, bottom first, and
// lists only windows that are shown. Parts of an own window under another own
// window are kept: both are deskpilot's. The result is a set of disjoint
// rectangles per own window, in stacking order.
func visibleParts(wins []stacked) []image.Rectangle {
	var out []image.Rectangle
	for i, w := range wins {
		if !w.own || w.rect.Empty() {
			continue
		}
		parts := []image.Rectangle{w.rect}
		for _, above := range wins[i+1:] {
			if above.own || !above.rect.Overlaps(w.rect) {
				continue
			}
			parts = subtractAll(parts, above.rect)
			if len(parts) == 0 {
				break
			}
		}
		out = append(out, parts...)
	}
	return out
}

// subtractAll removes cut from every rectangle of parts.
func subtractAll(parts []image.Rectangle, cut image.Rectangle) []image.Rectangle {
	var out []image.Rectangle
	for _, p := range parts {
		out = append(out, subtract(p, cut)...)
	}
	return out
}

// subtract returns r minus cut as at most four disjoint rectangles: the band
// above cut, the band below, and the pieces left and right of it between them.
func subtract(r, cut image.Rectangle) []image.Rectangle {
	c := r.Intersect(cut)
	if c.Empty() {
		return []image.Rectangle{r}
	}
	var out []image.Rectangle
	add := func(x image.Rectangle) {
		if !x.Empty() {
			out = append(out, x)
		}
	}
	add(image.Rect(r.Min.X, r.Min.Y, r.Max.X, c.Min.Y))
	add(image.Rect(r.Min.X, c.Max.Y, r.Max.X, r.Max.Y))
	add(image.Rect(r.Min.X, c.Min.Y, c.Min.X, c.Max.Y))
	add(image.Rect(c.Max.X, c.Min.Y, r.Max.X, c.Max.Y))
	return out
}
