package cli

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"os/exec"
	"time"

	"github.com/spf13/cobra"

	"deskpilot/actions"
	"deskpilot/internal/config"
	"deskpilot/internal/desktop"
	"deskpilot/internal/wiring"
)

func newDoctorCmd(s *settings) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the display, input, capture, accessibility, OCR, the keyring, the model endpoint and helper programs; say the fix for each that fails",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := s.load()
			if err != nil {
				return err
			}
			ok := doctor(cmd.Context(), cmd.OutOrStdout(), cfg)
			if !ok {
				return &exitError{code: exitFailed}
			}
			return nil
		},
	}
}

// doctor prints one line per check and reports whether all passed.
func doctor(ctx context.Context, w io.Writer, cfg config.Config) bool {
	all := true
	check := func(name string, err error, detail string) {
		mark := "ok  "
		if err != nil {
			mark, all = "FAIL", false
			detail = err.Error()
		}
		fmt.Fprintf(w, "%s %-10s %s\n", mark, name, detail)
	}
	// warn is a check of an optional part: it says what is missing without failing.
	warn := func(name string, err error, detail string) {
		mark := "ok  "
		if err != nil {
			mark, detail = "warn", err.Error()
		}
		fmt.Fprintf(w, "%s %-10s %s\n", mark, name, detail)
	}
	all = doctorWayland(ctx, w, cfg) && all
	d, err := wiring.OpenDesktop(cfg, false)
	if err != nil {
		check("display", err, "")
	} else {
		defer d.Close()
		target := d.Target()
		check("display", nil, fmt.Sprintf("%s backend, %s: %d monitor(s); target %d at %v", d.Backend(), target.Name, len(d.Displays()), cfg.Display, target.Bounds))
		t0 := time.Now()
		f, err := d.Capture(ctx)
		detail := ""
		if err == nil {
			detail = fmt.Sprintf("%dx%d in %s", f.Bounds().Dx(), f.Bounds().Dy(), time.Since(t0).Truncate(time.Microsecond))
		}
		check("capture", err, detail)
		check("input", checkInput(ctx, d), "pointer moves and reads back")
	}
	if !cfg.HasModel() {
		check("model", errors.New(config.ErrNoModel), "")
	} else {
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		t0 := time.Now()
		_, err := wiring.Model(cfg, cfg.APIKey(nil)).Ping(cctx)
		if err != nil {
			err = modelFix(err, wiring.RedactURL(cfg.BaseURL))
		}
		check("model", err, fmt.Sprintf("%s at %s answered a request with an image in %s", cfg.Model, wiring.RedactURL(cfg.BaseURL), time.Since(t0).Truncate(time.Millisecond)))
		if cfg.APIKey(nil) == "" {
			fmt.Fprintf(w, "note       %s is empty: fine for local servers, needed for hosted ones\n", cfg.APIKeyEnv)
		}
	}
	detail, err := checkAccessibility(ctx)
	check("a11y", err, detail)
	detail, err = checkOCR(ctx)
	check("ocr", err, detail)
	detail, err = checkKeyring()
	warn("keyring", err, detail)
	for _, prog := range []string{"xdg-open"} {
		_, err := exec.LookPath(prog)
		check(prog, err, "found (used by open_url)")
	}
	return all
}

// checkInput moves the pointer to the target's centre and reads it back, then puts
// it where it was.
func checkInput(ctx context.Context, d *desktop.Desktop) error {
	was, err := d.Cursor()
	if err != nil {
		return fmt.Errorf("read pointer: %w", err)
	}
	b := d.Target().Bounds
	c := b.Min.Add(image.Pt(b.Dx()/2, b.Dy()/2))
	if err := d.Input().Move(ctx, actions.Point{X: c.X, Y: c.Y}); err != nil {
		return err
	}
	got, err := d.Cursor()
	if err != nil {
		return err
	}
	if got != c {
		return fmt.Errorf("moved the pointer to %v but it is at %v", c, got)
	}
	if was.In(b) {
		_ = d.Input().Move(ctx, actions.Point{X: was.X, Y: was.Y})
	}
	return nil
}
