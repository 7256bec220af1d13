//go:build !linux

package cli

import (
	"errors"
	"runtime"

	"github.com/spf13/cobra"
)

// newEvalCmd on systems other than Linux only says why there is no eval: the
// harness runs every task on a private Xvfb display.
func newEvalCmd(*settings) *cobra.Command {
	return &cobra.Command{
		Use:                "eval SUITE",
		Short:              "Measure the agent on a suite of tasks (Linux only)",
		DisableFlagParsing: true,
		RunE: func(*cobra.Command, []string) error {
			return &exitError{exitUsage, errors.New("deskpilot eval needs Linux: it runs every task on a private Xvfb display with openbox, and this is " + runtime.GOOS)}
		},
	}
}
