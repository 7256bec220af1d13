package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"deskpilot/actions"
	"deskpilot/agent"
	"deskpilot/internal/config"
	"deskpilot/internal/desktop"
	"deskpilot/internal/wiring"
	"deskpilot/vision"
)

// stat is the summary of one measured figure, in milliseconds.
type stat struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

func summarize(ds []time.Duration) stat {
	if len(ds) == 0 {
		return stat{}
	}
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return stat{Min: ms(ds[0]), Median: ms(ds[len(ds)/2]), Max: ms(ds[len(ds)-1]), N: len(ds)}
}

func newBenchCmd(s *settings) *cobra.Command {
	var asJSON bool
	var n int
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure capture, observation, click, typing and settle on this display",
		Long: `Measures what a user feels on the current display: capture (one frame of the target
monitor), observe (capture to data URL at the configured image size and format, every
PNG band compressed again as on a screen that changes everywhere), observe_static (the
same, reusing the bands that did not change: the figure for a still screen), click,
typing 100 characters, and settle after a click with the agent's settle settings.
Timing starts after a few untimed observations, as in a run past its first steps: the
X shared-memory segment and the process's memory for whole frames are set up once.
--json prints one object with keys capture_ms, observe_ms, observe_static_ms, click_ms,
type100_ms, settle_ms, each {"min","median","max","n"}.
Click and typing act on the desktop: run it on a display where that is harmless.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := s.load()
			if err != nil {
				return err
			}
			d, err := wiring.OpenDesktop(cfg, false)
			if err != nil {
				return &exitError{exitFailed, err}
			}
			defer d.Close()
			res, err := bench(cmd.Context(), cfg, d, n)
			if err != nil {
				return &exitError{exitFailed, err}
			}
			return printBench(cmd.OutOrStdout(), res, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().IntVarP(&n, "count", "n", 30, "repetitions of each measurement")
	return cmd
}

// benchWarmup is the number of untimed observations before bench times
// anything; on a 2-core VM capture time stopped falling after six or seven.
const benchWarmup = 8

func bench(ctx context.Context, cfg config.Config, d *desktop.Desktop, n int) (map[string]stat, error) {
	n = max(n, 1)
	b := d.Target().Bounds
	region := d
	in := d.Input()
	m := vision.NewMapper(b, cfg.MaxSide, cfg.Coords)
	obs := &vision.Observer{Mapper: m, Encoder: vision.Encoder{Format: cfg.ImageFormat, Quality: cfg.Quality}}
	timeIt := func(f func(i int) error) ([]time.Duration, error) {
		var ds []time.Duration
		for i := range n {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t0 := time.Now()
			if err := f(i); err != nil {
				return nil, err
			}
			ds = append(ds, time.Since(t0))
		}
		return ds, nil
	}
	out := map[string]stat{}
	var err2 error
	run := func(key string, f func(i int) error) {
		if err2 != nil {
			return
		}
		ds, err := timeIt(f)
		if err != nil {
			err2 = fmt.Errorf("%s: %w", key, err)
			return
		}
		out[key] = summarize(ds)
	}
	// A run sets up the X shared-memory segment at its first capture, and the
	// Go heap grows to hold a few whole frames over its first steps (each new
	// 8 MB of a 1920x1080 frame is faulted in page by page); after that a
	// step's capture reuses freed memory. Those first observations are made
	// untimed, so the figures are those of every later step.
	if _, err := vision.MeasureObserve(ctx, region, obs, benchWarmup, false); err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	run("capture_ms", func(int) error { _, err := region.Capture(ctx); return err })
	for _, o := range []struct {
		key   string
		reuse bool
	}{{"observe_ms", false}, {"observe_static_ms", true}} {
		if err2 != nil {
			break
		}
		m, err := vision.MeasureObserve(ctx, region, obs, n, o.reuse)
		if err != nil {
			err2 = fmt.Errorf("%s: %w", o.key, err)
			break
		}
		out[o.key] = summarize(m.Times)
	}
	// Points spread over the middle of the target so each click moves the pointer.
	pt := func(i int) actions.Point {
		return actions.Point{X: b.Min.X + b.Dx()/4 + (i*37)%(b.Dx()/2), Y: b.Min.Y + b.Dy()/4 + (i*53)%(b.Dy()/2)}
	}
	run("click_ms", func(i int) error { return in.Click(ctx, pt(i), actions.Left, 1) })
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 3)[:100]
	run("type100_ms", func(int) error { return in.Type(ctx, text) })
	run("settle_ms", func(i int) error {
		before, err := region.Capture(ctx)
		if err != nil {
			return err
		}
		if err := in.Click(ctx, pt(i+7), actions.Left, 1); err != nil {
			return err
		}
		// The agent's own settle settings.
		_, err = vision.Settle(ctx, region, before, agent.SettleOptions(nil))
		return err
	})
	return out, err2
}

func printBench(w io.Writer, res map[string]stat, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	for _, k := range []string{"capture_ms", "observe_ms", "observe_static_ms", "click_ms", "type100_ms", "settle_ms"} {
		s := res[k]
		fmt.Fprintf(w, "%-17s min %8.2f  median %8.2f  max %8.2f  ms  (n=%d)\n", k, s.Min, s.Median, s.Max, s.N)
	}
	return nil
}
