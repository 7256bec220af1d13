package app

import "image"

// corner is a corner of the work area the strip can sit in.
type corner int

// The corners in the order the strip prefers them.
const (
	bottomRight corner = iota // the strip's home
	bottomLeft
	topRight
	topLeft
)

func (c corner) String() string {
	switch c {
	case bottomLeft:
		return "bottom-left"
	case topRight:
		return "top-right"
	case topLeft:
		return "top-left"
	}
	return "bottom-right"
}

// stripMargin is the gap between the strip and the edges of the work area, px.
const stripMargin = 8

// stripAt is the rectangle (root coordinates, frame included) of a strip of
// frame size sz in corner c of area.
func stripAt(area image.Rectangle, sz image.Point, c corner) image.Rectangle {
	x := area.Max.X - sz.X - stripMargin
	if c == bottomLeft || c == topLeft {
		x = area.Min.X + stripMargin
	}
	y := area.Max.Y - sz.Y - stripMargin
	if c == topRight || c == topLeft {
		y = area.Min.Y + stripMargin
	}
	x, y = max(x, area.Min.X), max(y, area.Min.Y)
	return image.Rect(x, y, x+sz.X, y+sz.Y)
}

// keepOut is a part of the screen the strip should leave free, and how much
// covering one pixel of it costs.
type keepOut struct {
	r      image.Rectangle
	weight int
}

// The weights of what the strip keeps out of: the point of a click it would
// refuse, then the pointer and the agent's last actions, then the window the
// agent works in (a maximized window is under every corner alike, so it only
// breaks ties).
const (
	weightTarget = 10000
	weightAction = 100
	weightWindow = 1
)

// around is the square of half-size r around p.
func around(p image.Point, r int) image.Rectangle {
	return image.Rect(p.X-r, p.Y-r, p.X+r+1, p.Y+r+1)
}

// covers is the cost of the strip at s over keep.
func covers(s image.Rectangle, keep []keepOut) int {
	cost := 0
	for _, k := range keep {
		if i := s.Intersect(k.r); !i.Empty() {
			cost += k.weight * i.Dx() * i.Dy()
		}
	}
	return cost
}

// pickCorner returns where a strip of frame size sz goes in area. With must
// (the window just became the strip, or changed size) or when cur, its
// rectangle now, is not inside the work area, that is the corner that covers
// least of keep. Otherwise the strip stays (move false) unless it covers
// something at cur and another corner covers less: the person may have put
// it where it is. Ties go to prefer (the strip's corner so far), then to the
// earlier corner in the order of preference.
func pickCorner(area, cur image.Rectangle, sz image.Point, keep []keepOut, prefer corner, must bool) (c corner, at image.Rectangle, move bool) {
	c, at = prefer, stripAt(area, sz, prefer)
	bestCost := covers(at, keep)
	for k := bottomRight; k <= topLeft; k++ {
		r := stripAt(area, sz, k)
		if cost := covers(r, keep); cost < bestCost {
			c, at, bestCost = k, r, cost
		}
	}
	if must || !cur.In(area) {
		return c, at, at != cur
	}
	if now := covers(cur, keep); now == 0 || bestCost >= now {
		return c, cur, false
	}
	return c, at, true
}

// placement is what the placer did with the strip.
type placement struct {
	first  bool   // the window just became the strip
	moved  bool   // the strip moved
	from   corner // where it was
	corner corner // where it is
}
