package cli

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"deskpilot/agent/dialect"
	"deskpilot/internal/calibrate"
	"deskpilot/internal/config"
	"deskpilot/internal/wiring"
	"deskpilot/vision"
)

// withCalibrate adds `doctor --calibrate [--write]` to the doctor command:
// the calibration replaces the checks when asked for.
func withCalibrate(cmd *cobra.Command, s *settings) *cobra.Command {
	var on, write, all bool
	cmd.Flags().BoolVar(&on, "calibrate", false, "show labelled targets and measure which coordinate convention the model's clicks follow")
	cmd.Flags().BoolVar(&write, "write", false, "with --calibrate: write the settings that fit to the config file")
	cmd.Flags().BoolVar(&all, "all-monitors", false, "with --calibrate: calibrate every monitor, not only the target one")
	checks := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if !on {
			if write || all {
				return usageErrorf("--write and --all-monitors go with --calibrate")
			}
			return checks(c, args)
		}
		cfg, err := s.load()
		if err != nil {
			return err
		}
		return runCalibrate(c.Context(), c.OutOrStdout(), cfg, cfg.APIKey(nil), write, all)
	}
	return cmd
}

// usageErrorf is a usage error (exit 2).
func usageErrorf(format string, a ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, a...)}
}

// runCalibrate calibrates the configured model on the desktop.
func runCalibrate(ctx context.Context, w io.Writer, cfg config.Config, apiKey string, write, all bool) error {
	if !cfg.HasModel() {
		return errors.New(config.ErrNoModel)
	}
	d, err := wiring.OpenDesktop(cfg, false)
	if err != nil {
		return err
	}
	defer d.Close()
	dl, err := dialect.New(cfg.Dialect, wiring.DialectOptions(cfg))
	if err != nil {
		return err
	}
	monitors := []image.Rectangle{d.Target().Bounds}
	if all {
		monitors = nil
		for _, m := range d.Displays() {
			monitors = append(monitors, m.Bounds)
		}
	}
	fmt.Fprintf(w, "calibrating %s at %s (provider %s), dialect %s, on %d monitor(s)\n",
		cfg.Model, wiring.RedactURL(cfg.BaseURL), cfg.ProviderNote(), cfg.DialectNote(), len(monitors))
	cctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	rep, err := calibrate.Run(cctx, calibrate.Options{
		Model: wiring.Model(cfg, apiKey), Dialect: dl, DialectName: cfg.DialectNote(),
		SpaceFor: func(m image.Point) dialect.Space {
			sp := dl.Space(m, cfg.MaxSide)
			if dl.Name() == dialect.Default {
				sp.Mode = cfg.Coords
			}
			return sp
		},
		XDisplay: cfg.XDisplay, Monitors: monitors, CaptureRect: d.CaptureRect,
		Encoder: vision.Encoder{Format: cfg.ImageFormat, Quality: cfg.Quality}, MaxTokens: cfg.MaxTokens, Out: w,
	})
	if err != nil {
		return err
	}
	sg := rep.Suggestion
	if len(rep.Fits) == 0 || !sg.Fixable {
		return &exitError{code: exitFailed}
	}
	if !write {
		return nil
	}
	switch {
	case sg.Current:
		fmt.Fprintln(w, "nothing written: the settings already fit")
		return nil
	}
	path := cfg.File
	if path == "" {
		path = config.Path()
	}
	file, err := config.LoadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	sg.Apply(&file)
	if err := config.SaveFile(path, file); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s to %s\n", sg, path)
	return nil
}

// calibrateSummary calibrates the target monitor for the app and returns the
// report's verdict: its "fits" and "settings" lines, or why nothing fits.
func calibrateSummary(ctx context.Context, cfg config.Config, apiKey string) (string, error) {
	var out strings.Builder
	err := runCalibrate(ctx, &out, cfg, apiKey, false, false)
	var lines []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "fits: ") || strings.HasPrefix(l, "settings: ") || strings.HasPrefix(l, "no convention lands") {
			lines = append(lines, l)
		}
	}
	summary := strings.Join(lines, "\n")
	var ee *exitError
	if errors.As(err, &ee) && ee.err == nil && summary != "" {
		return summary, errors.New(summary)
	}
	return summary, err
}
