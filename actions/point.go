package actions

import (
	"fmt"
	"image"
	"strings"
)

// Point is a position in screen pixels, in X root-window coordinates (a second
// monitor may start at x=1920). Model coordinates become a Point only through
// vision.Mapper.
type Point struct{ X, Y int }

// String formats p as "(x, y)".
func (p Point) String() string { return fmt.Sprintf("(%d, %d)", p.X, p.Y) }

// OutOfBoundsError reports a Point outside the target display.
type OutOfBoundsError struct {
	Point  Point
	Bounds image.Rectangle // the target display in root coordinates
}

// Error says which coordinate is off and the valid range of each axis.
func (e *OutOfBoundsError) Error() string {
	b := e.Bounds
	var why []string
	switch {
	case e.Point.X < b.Min.X:
		why = append(why, fmt.Sprintf("x=%d is left of the display", e.Point.X))
	case e.Point.X >= b.Max.X:
		why = append(why, fmt.Sprintf("x=%d is right of the display", e.Point.X))
	}
	switch {
	case e.Point.Y < b.Min.Y:
		why = append(why, fmt.Sprintf("y=%d is above the display", e.Point.Y))
	case e.Point.Y >= b.Max.Y:
		why = append(why, fmt.Sprintf("y=%d is below the display", e.Point.Y))
	}
	return fmt.Sprintf("point %v is outside the target display: %s (x must be %d..%d, y must be %d..%d)",
		e.Point, strings.Join(why, " and "), b.Min.X, b.Max.X-1, b.Min.Y, b.Max.Y-1)
}

// CheckPoint returns nil when p lies inside bounds (Min inclusive, Max
// exclusive, as image.Rectangle), a *OutOfBoundsError when it does not, and an
// error when bounds is empty.
func CheckPoint(p Point, bounds image.Rectangle) error {
	if bounds.Empty() {
		return fmt.Errorf("check point %v: target display bounds %v are empty", p, bounds)
	}
	if !image.Pt(p.X, p.Y).In(bounds) {
		return &OutOfBoundsError{Point: p, Bounds: bounds}
	}
	return nil
}
