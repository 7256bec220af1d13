package calibrate

import (
	"fmt"
	"image"
	"math"
	"slices"

	"deskpilot/agent/dialect"
	"deskpilot/vision"
)

// Geometry is what a fit needs to know of one monitor and the image the
// model was sent.
type Geometry struct {
	Monitor image.Rectangle // the monitor, root coordinates
	Sent    image.Point     // the size of the screenshot the model saw
}

// Convention is one way a model may write points.
type Convention struct {
	// Name is the convention as the report prints it.
	Name string
	// Key identifies it for the settings ("pixels", "norm1000", "norm999",
	// "unit", "smart28", "smart32", "screen").
	Key string
	// Swapped reads (x, y) as (y, x); Root reads the point as root-window
	// coordinates (the monitor's offset included).
	Swapped, Root bool
	scale         func(p vision.ModelPoint, g Geometry) (float64, float64) // to monitor pixels
}

// smartSize is Qwen's smart_resize of the monitor at factor f.
func smartSize(m image.Point, f int) image.Point {
	h, w, err := dialect.SmartResize(m.Y, m.X, f, 4*f*f, 16384*f*f)
	if err != nil {
		return m
	}
	return image.Pt(w, h)
}

// Conventions lists every convention the fit tries, the plain ones first.
func Conventions() []Convention {
	by := func(sx, sy func(g Geometry) float64) func(vision.ModelPoint, Geometry) (float64, float64) {
		return func(p vision.ModelPoint, g Geometry) (float64, float64) { return p.X * sx(g), p.Y * sy(g) }
	}
	w := func(g Geometry) float64 { return float64(g.Monitor.Dx()) }
	h := func(g Geometry) float64 { return float64(g.Monitor.Dy()) }
	div := func(num func(Geometry) float64, den func(Geometry) float64) func(Geometry) float64 {
		return func(g Geometry) float64 { return num(g) / den(g) }
	}
	konst := func(v float64) func(Geometry) float64 { return func(Geometry) float64 { return v } }
	smart := func(f int, x bool) func(Geometry) float64 {
		return func(g Geometry) float64 {
			s := smartSize(g.Monitor.Size(), f)
			if x {
				return float64(s.X)
			}
			return float64(s.Y)
		}
	}
	base := []Convention{
		{Name: "pixels of the sent image", Key: "pixels", scale: by(div(w, func(g Geometry) float64 { return float64(g.Sent.X) }), div(h, func(g Geometry) float64 { return float64(g.Sent.Y) }))},
		{Name: "0–1000", Key: "norm1000", scale: by(div(w, konst(1000)), div(h, konst(1000)))},
		{Name: "0–999", Key: "norm999", scale: by(div(w, konst(999)), div(h, konst(999)))},
		{Name: "0–1", Key: "unit", scale: by(w, h)},
		{Name: "smart-resize pixels (factor 28)", Key: "smart28", scale: by(div(w, smart(28, true)), div(h, smart(28, false)))},
		{Name: "smart-resize pixels (factor 32)", Key: "smart32", scale: by(div(w, smart(32, true)), div(h, smart(32, false)))},
		{Name: "screen pixels", Key: "screen", scale: by(konst(1), konst(1))},
	}
	var out []Convention
	for _, swapped := range []bool{false, true} {
		for _, root := range []bool{false, true} {
			for _, c := range base {
				c.Swapped, c.Root = swapped, root
				out = append(out, c)
			}
		}
	}
	return out
}

// Label is the convention's full name: "0–1000, x/y swapped".
func (c Convention) Label() string {
	s := c.Name
	if c.Swapped {
		s += ", x/y swapped"
	}
	if c.Root {
		s += ", off by the monitor's offset"
	}
	return s
}

// ToScreen maps a model point to root coordinates under the convention,
// unrounded (the fit measures errors below a pixel, which tell 0–1000 from
// 0–999).
func (c Convention) ToScreen(p vision.ModelPoint, g Geometry) (x, y float64) {
	if c.Swapped {
		p.X, p.Y = p.Y, p.X
	}
	x, y = c.scale(p, g)
	if !c.Root {
		x, y = x+float64(g.Monitor.Min.X), y+float64(g.Monitor.Min.Y)
	}
	return x, y
}

// Sample is one answer: the target asked for and the model's point (nil
// when the reply had none).
type Sample struct {
	Target Target
	Point  *vision.ModelPoint
	Reply  string // the model's reply, for the report
	Err    error  // why no point was read
}

// Result is one convention's fit.
type Result struct {
	Convention Convention
	Median     float64 // median error, screen pixels
	Worst      float64 // worst error, screen pixels; +Inf when a sample had no point
	Lands      bool    // every answer fell within its target
}

// Fit measures every convention against the samples of one monitor,
// best first (landing ones first, then by median error). A convention
// only counts when the monitor has an offset for Root, and differs from
// its unswapped twin for Swapped (a square monitor's swap of a centred
// target is the same point).
func Fit(samples []Sample, g Geometry) []Result {
	var out []Result
	for _, c := range Conventions() {
		if c.Root && g.Monitor.Min == (image.Point{}) {
			continue
		}
		r := Result{Convention: c, Lands: len(samples) > 0}
		var errs []float64
		for _, s := range samples {
			if s.Point == nil {
				errs = append(errs, math.Inf(1))
				r.Lands = false
				continue
			}
			x, y := c.ToScreen(*s.Point, g)
			e := math.Hypot(x-float64(s.Target.Center.X), y-float64(s.Target.Center.Y))
			errs = append(errs, e)
			if e > float64(s.Target.Radius) {
				r.Lands = false
			}
		}
		slices.Sort(errs)
		if len(errs) > 0 {
			r.Median, r.Worst = median(errs), errs[len(errs)-1]
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b Result) int {
		switch {
		case a.Lands != b.Lands:
			if a.Lands {
				return -1
			}
			return 1
		case a.Median < b.Median:
			return -1
		case a.Median > b.Median:
			return 1
		case a.Worst < b.Worst:
			return -1
		case a.Worst > b.Worst:
			return 1
		}
		return 0
	})
	return out
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// Landing returns the results that land.
func Landing(rs []Result) []Result {
	var out []Result
	for _, r := range rs {
		if r.Lands {
			out = append(out, r)
		}
	}
	return out
}

// formatErr prints an error in pixels for the table.
func formatErr(v float64) string {
	if math.IsInf(v, 1) {
		return "no point"
	}
	return fmt.Sprintf("%.1f", v)
}
