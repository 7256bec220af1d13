package main

import (
	"context"
	"fmt"
	"image"
	"io"
	"os/exec"
	"time"

	"github.com/spf13/cobra"

	"deskpilot/actions"
	"deskpilot/agent"
)

func newDoctorCmd(s *settings) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the display, input, capture, the model endpoint and helper programs",
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
func doctor(ctx context.Context, w io.Writer, cfg agent.Config) bool {
	all := true
	check := func(name string, err error, detail string) {
		mark := "ok  "
		if err != nil {
			mark, all = "FAIL", false
			detail = err.Error()
		}
		fmt.Fprintf(w, "%s %-10s %s\n", mark, name, detail)
	}
	d, err := openDesktop(cfg)
	if err != nil {
		check("display", err, "")
	} else {
		defer d.Close()
		check("display", nil, fmt.Sprintf("%s: %d monitor(s); target %d at %v", d.target.Name, len(d.displays), cfg.Display, d.target.Bounds))
		t0 := time.Now()
		f, err := d.screen.Capture(ctx, d.target.Bounds)
		detail := ""
		if err == nil {
			detail = fmt.Sprintf("%dx%d in %s", f.Bounds().Dx(), f.Bounds().Dy(), time.Since(t0).Truncate(time.Microsecond))
		}
		check("capture", err, detail)
		check("input", checkInput(ctx, d), "pointer moves and reads back")
	}
	if err := checkModel(cfg); err != nil {
		check("model", err, "")
	} else {
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		t0 := time.Now()
		_, err := newModel(cfg, cfg.APIKey()).Ping(cctx)
		check("model", err, fmt.Sprintf("%s at %s answered a request with an image in %s", cfg.Model, cfg.BaseURL, time.Since(t0).Truncate(time.Millisecond)))
		if cfg.APIKey() == "" {
			fmt.Fprintf(w, "note       %s is empty: fine for local servers, needed for hosted ones\n", cfg.APIKeyEnv)
		}
	}
	for _, prog := range []string{"xdg-open"} {
		_, err := exec.LookPath(prog)
		check(prog, err, "found (used by open_url)")
	}
	return all
}

// checkInput moves the pointer to the target's centre and reads it back, then puts
// it where it was.
func checkInput(ctx context.Context, d *desktop) error {
	was, err := d.cursor()
	if err != nil {
		return fmt.Errorf("read pointer: %w", err)
	}
	c := d.target.Bounds.Min.Add(image.Pt(d.target.Bounds.Dx()/2, d.target.Bounds.Dy()/2))
	if err := d.robot.Move(ctx, actions.Point{X: c.X, Y: c.Y}); err != nil {
		return err
	}
	got, err := d.cursor()
	if err != nil {
		return err
	}
	if got != c {
		return fmt.Errorf("moved the pointer to %v but it is at %v", c, got)
	}
	if was.In(d.target.Bounds) {
		_ = d.robot.Move(ctx, actions.Point{X: was.X, Y: was.Y})
	}
	return nil
}
