package calibrate

import (
	"context"
	"fmt"
	"image"
	"io"
	"strings"
	"time"

	"deskpilot/agent/dialect"
	"deskpilot/internal/wait"
	"deskpilot/vision"
)

// Options configure a calibration.
type Options struct {
	Model       Model
	Dialect     dialect.Dialect
	DialectName string // as the report names it, e.g. "qwen2.5 (by model name)"
	// SpaceFor is the dialect's screenshot space for a monitor of a size,
	// as a run would send it.
	SpaceFor func(monitor image.Point) dialect.Space
	XDisplay string            // the X display ("" = $DISPLAY)
	Monitors []image.Rectangle // every monitor, root coordinates
	// CaptureRect captures a rectangle of the root window.
	CaptureRect func(ctx context.Context, r image.Rectangle) (*image.RGBA, error)
	Encoder     vision.Encoder
	MaxTokens   int
	Out         io.Writer // the report
	// Ready waits for the screen to show the calibration window; nil polls
	// the capture for the first target's centre dot.
	Ready func(ctx context.Context, m image.Rectangle, t Target) error
}

// MonitorReport is the calibration of one monitor.
type MonitorReport struct {
	Monitor image.Rectangle
	Space   dialect.Space
	Samples []Sample
	Results []Result
}

// Report is a calibration's outcome.
type Report struct {
	Monitors []MonitorReport
	// Fits are the conventions that land on every monitor, best first.
	Fits []Result
	// Suggestion is what to set for the best fit (zero when none fits).
	Suggestion Suggestion
}

// Run shows the targets, asks the model about each, fits and reports.
func Run(ctx context.Context, o Options) (Report, error) {
	var pics []*image.RGBA
	var layouts [][]Target
	for _, m := range o.Monitors {
		ts := Layout(m)
		layouts = append(layouts, ts)
		pics = append(pics, Paint(m, ts))
	}
	win, err := Show(o.XDisplay, o.Monitors, pics)
	if err != nil {
		return Report{}, err
	}
	defer win.Close()
	var rep Report
	for i, m := range o.Monitors {
		mr, err := o.monitor(ctx, m, layouts[i])
		if err != nil {
			return rep, err
		}
		rep.Monitors = append(rep.Monitors, mr)
	}
	rep.Fits = commonFits(rep.Monitors)
	// The configured settings when they fit, else the best fit a setting
	// can read, else the best fit and why no setting reads it.
	for i, f := range rep.Fits {
		m := rep.Monitors[0]
		sg := Suggest(f.Convention, o.Dialect.Name(), m.Space, Geometry{Monitor: m.Monitor, Sent: m.Space.Image})
		if i == 0 || sg.Current && !rep.Suggestion.Current || sg.Fixable && !rep.Suggestion.Fixable {
			rep.Suggestion = sg
		}
	}
	o.print(rep)
	return rep, nil
}

// monitor calibrates one monitor.
func (o Options) monitor(ctx context.Context, m image.Rectangle, ts []Target) (MonitorReport, error) {
	ready := o.Ready
	if ready == nil {
		ready = o.waitShown
	}
	if err := ready(ctx, m, ts[0]); err != nil {
		return MonitorReport{}, err
	}
	sp := o.SpaceFor(m.Size())
	frame, err := o.CaptureRect(ctx, m)
	if err != nil {
		return MonitorReport{}, fmt.Errorf("capture monitor %v: %w", m, err)
	}
	obs := &vision.Observer{Mapper: vision.Mapper{Display: m, Image: sp.Image, Mode: sp.Mode}, Encoder: o.Encoder}
	view, err := obs.Observe(frame, vision.Overlay{})
	if err != nil {
		return MonitorReport{}, fmt.Errorf("screenshot of monitor %v: %w", m, err)
	}
	data := append([]byte(nil), view.Data...)
	ask := Asker{Model: o.Model, Dialect: o.Dialect, Space: sp, Monitor: m, MaxTokens: o.MaxTokens}
	mr := MonitorReport{Monitor: m, Space: sp}
	for _, t := range ts {
		p, reply, err := ask.Ask(ctx, t.Label, data, view.Format.MIME())
		if ctx.Err() != nil {
			return mr, ctx.Err()
		}
		mr.Samples = append(mr.Samples, Sample{Target: t, Point: p, Reply: reply, Err: err})
	}
	mr.Results = Fit(mr.Samples, Geometry{Monitor: m, Sent: sp.Image})
	return mr, nil
}

// waitShown polls the monitor until the first target's red centre shows.
func (o Options) waitShown(ctx context.Context, m image.Rectangle, t Target) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	r := image.Rectangle{Min: t.Center, Max: t.Center.Add(image.Pt(1, 1))}
	for {
		img, err := o.CaptureRect(ctx, r)
		if err == nil {
			c := img.RGBAAt(img.Rect.Min.X, img.Rect.Min.Y)
			if c.R > 0xa0 && c.G < 0x60 && c.B < 0x60 {
				return nil
			}
		}
		if wait.Sleep(ctx, 30*time.Millisecond) != nil {
			return fmt.Errorf("the calibration window did not show on monitor %v (is another window forced above it?)", m)
		}
	}
}

// commonFits are the conventions that land on every monitor, in the order
// of the first monitor's results.
func commonFits(ms []MonitorReport) []Result {
	if len(ms) == 0 {
		return nil
	}
	var out []Result
	for _, r := range Landing(ms[0].Results) {
		all := true
		for _, m := range ms[1:] {
			found := false
			for _, o := range Landing(m.Results) {
				if o.Convention.Label() == r.Convention.Label() {
					found = true
				}
			}
			all = all && found
		}
		if all {
			out = append(out, r)
		}
	}
	return out
}

// print writes the report.
func (o Options) print(rep Report) {
	w := o.Out
	if w == nil {
		return
	}
	for i, m := range rep.Monitors {
		fmt.Fprintf(w, "monitor %d at %v: screenshot %dx%d, %s\n", i, m.Monitor, m.Space.Image.X, m.Space.Image.Y, o.DialectName)
		for _, s := range m.Samples {
			got := "no point"
			if s.Point != nil {
				got = fmt.Sprintf("(%g, %g)", s.Point.X, s.Point.Y)
			}
			if s.Err != nil {
				got += ": " + firstLine(s.Err.Error())
			}
			fmt.Fprintf(w, "  target %s at (%d, %d): the model answered %s\n", s.Target.Label, s.Target.Center.X, s.Target.Center.Y, got)
		}
		fmt.Fprintf(w, "  %-56s %9s %9s  %s\n", "convention", "median px", "worst px", "lands")
		for _, r := range m.Results {
			fmt.Fprintf(w, "  %-56s %9s %9s  %s\n", r.Convention.Label(), formatErr(r.Median), formatErr(r.Worst), map[bool]string{true: "yes", false: "no"}[r.Lands])
		}
	}
	if len(rep.Fits) == 0 {
		fmt.Fprintln(w, "no convention lands within the targets: the model's points cannot be trusted with these settings")
		return
	}
	var names []string
	for _, f := range rep.Fits {
		names = append(names, f.Convention.Label())
	}
	fmt.Fprintf(w, "fits: %s\n", strings.Join(names, "; "))
	fmt.Fprintf(w, "settings: %s\n", rep.Suggestion)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 120 {
		line = line[:120] + "…"
	}
	return line
}
