package dialect

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"deskpilot/vision"
)

// numberRe matches a decimal number as models write them in boxes and points.
var numberRe = regexp.MustCompile(`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`)

// boxTokens are the wrappers models put around a point or box.
var boxTokens = strings.NewReplacer(
	"<|box_start|>", " ", "<|box_end|>", " ", "<point>", " ", "</point>", " ",
	"<bbox>", " ", "</bbox>", " ", "<|point_start|>", " ", "<|point_end|>", " ",
)

// parseBox reads a point or box in any of the forms the families write —
// (x,y), [x, y], x y, <point>x y</point>, <bbox>x1 y1 x2 y2</bbox>,
// <|box_start|>(x1,y1),(x2,y2)<|box_end|>, [[x,y]] — and returns the point,
// or the centre of the box. Anything else, including non-finite numbers, is
// an error that says which forms are read.
func parseBox(s string) (vision.ModelPoint, error) {
	t := boxTokens.Replace(s)
	if strings.ContainsAny(t, "abcdfghijklmnopqrstuvwxyzABCDFGHIJKLMNOPQRSTUVWXYZ") {
		return vision.ModelPoint{}, fmt.Errorf("point %q is not numbers: write it like (x,y) with the numbers filled in", clip(s, 60))
	}
	nums := numberRe.FindAllString(t, 5)
	v := make([]float64, 0, 4)
	for _, n := range nums {
		f, err := strconv.ParseFloat(n, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return vision.ModelPoint{}, fmt.Errorf("point %q has a number out of range", clip(s, 60))
		}
		v = append(v, f)
	}
	switch len(v) {
	case 2:
		return vision.ModelPoint{X: v[0], Y: v[1]}, nil
	case 4:
		return vision.ModelPoint{X: (v[0] + v[2]) / 2, Y: (v[1] + v[3]) / 2}, nil
	}
	return vision.ModelPoint{}, fmt.Errorf("point %q has %d numbers: give a point (x,y) or a box (x1,y1,x2,y2)", clip(s, 60), len(v))
}
