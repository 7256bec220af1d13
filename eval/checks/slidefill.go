package checks

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// This file is OSWorld's evaluate_presentation_fill_to_rgb_distance:
// 1 less the mean over the slides of each background's distance to
// rules.rgb, divided by white's distance to black.

func slideFillRGB(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	v, err := key(r, "rgb")
	if err != nil {
		return Score{}, err
	}
	lst, ok := v.([]any)
	if !ok || len(lst) != 3 {
		return Score{}, fmt.Errorf("rules.rgb: want three numbers, got %s", show(v))
	}
	var want [3]float64
	for i, x := range lst {
		f, ok := PyNumber(x)
		if !ok {
			return Score{}, fmt.Errorf("rules.rgb: %s is not a number", show(x))
		}
		want[i] = f
	}
	p, ok := c.Result.(string)
	if !ok {
		// Presentation(None) is python-pptx's empty default: no slides.
		return Score{}, errors.New("ZeroDivisionError: the presentation has no slides")
	}
	pr, err := openPptx(p)
	if err != nil {
		return Score{}, err
	}
	if len(pr.slides) == 0 {
		return Score{}, errors.New("ZeroDivisionError: the presentation has no slides")
	}
	sum := 0.0
	far := 0
	for _, s := range pr.slides {
		d, err := slideFillDistance(s, want)
		if err != nil {
			return Score{}, fmt.Errorf("%s: %w", s.name, err)
		}
		if d > 0 {
			far++
		}
		sum += d
	}
	score := Score{Value: 1 - sum/float64(len(pr.slides))}
	if far > 0 {
		score.Note = fmt.Sprintf("%d of %d slides have a background other than %s", far, len(pr.slides), show(v))
	}
	return score, nil
}

// bgFill is python-pptx's background.fill of a slide, layout or master:
// the fill element of p:bg/p:bgPr, "noFill" where there is no p:bgPr (the
// bg it adds then has noFill), "" for a bgPr without one.
func bgFill(s *pslide) *xnode {
	bgPr := childNS(childNS(childNS(s.root, nsPML, "cSld"), nsPML, "bg"), nsPML, "bgPr")
	if bgPr == nil {
		return &xnode{}
	}
	for i := range bgPr.Nodes {
		n := &bgPr.Nodes[i]
		if n.XMLName.Space != nsDML {
			continue
		}
		switch n.XMLName.Local {
		case "noFill", "solidFill", "gradFill", "blipFill", "pattFill", "grpFill":
			return n
		}
	}
	return nil
}

// fillKind is MSO_FILL's name of the fill (nil: python-pptx's None).
func fillKind(n *xnode) string {
	switch {
	case n == nil:
		return ""
	case n.XMLName.Local == "":
		return "noFill"
	}
	return n.XMLName.Local
}

// solidRGB is fill.fore_color.rgb of a solidFill: only an srgbClr has one.
func solidRGB(n *xnode) ([3]float64, error) {
	for i := range n.Nodes {
		c := &n.Nodes[i]
		if c.XMLName.Space != nsDML {
			continue
		}
		switch c.XMLName.Local {
		case "srgbClr":
			val, _ := c.attr("val")
			if len(val) != 6 {
				return [3]float64{}, fmt.Errorf("ValueError: srgbClr %q", val)
			}
			var out [3]float64
			for j := range 3 {
				b, err := strconv.ParseUint(val[2*j:2*j+2], 16, 8)
				if err != nil {
					return [3]float64{}, fmt.Errorf("ValueError: srgbClr %q", val)
				}
				out[j] = float64(b)
			}
			return out, nil
		case "scrgbClr", "hslClr", "sysClr", "schemeClr", "prstClr":
			return [3]float64{}, fmt.Errorf("AttributeError: no .rgb property on a background's %s", c.XMLName.Local)
		}
	}
	return [3]float64{}, errors.New("AttributeError: no .rgb property on a background fill with no colour")
}

// fillDistance is the Euclidean distance of two RGB colours over the
// largest one (white to black), as the metric computes it.
func fillDistance(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0])+(a[1]-b[1])*(a[1]-b[1])+(a[2]-b[2])*(a[2]-b[2])) / math.Sqrt(3*255*255)
}

// slideFillDistance is the slide's solid background's distance to want; a
// slide with no background (or noFill) takes its master's (skipping the
// layout's), any other fill is 1.
func slideFillDistance(s *pslide, want [3]float64) (float64, error) {
	f := bgFill(s)
	switch fillKind(f) {
	case "solidFill":
		rgb, err := solidRGB(f)
		if err != nil {
			return 0, err
		}
		return fillDistance(rgb, want), nil
	case "noFill":
		layout, err := s.related("slideLayout")
		if err != nil {
			return 0, err
		}
		if layout == nil {
			return 0, errors.New("KeyError: the slide has no layout")
		}
		master, err := layout.related("slideMaster")
		if err != nil {
			return 0, err
		}
		if master == nil {
			return 0, errors.New("KeyError: the layout has no master")
		}
		mf := bgFill(master)
		if fillKind(mf) != "solidFill" {
			return 1, nil
		}
		rgb, err := solidRGB(mf)
		if err != nil {
			return 0, err
		}
		return fillDistance(rgb, want), nil
	}
	return 1, nil
}
