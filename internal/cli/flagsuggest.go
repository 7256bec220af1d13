package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"deskpilot/internal/editdist"
)

// suggestFlags makes a mistyped flag's error name the closest flag the command has
// ("unknown flag: --max-step; did you mean --max-steps?").
func suggestFlags(root *cobra.Command) {
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		const prefix = "unknown flag: --"
		msg := err.Error()
		if !strings.HasPrefix(msg, prefix) {
			return &exitError{exitUsage, err}
		}
		typed := strings.SplitN(strings.TrimPrefix(msg, prefix), "=", 2)[0]
		if best := closestFlag(cmd, typed); best != "" {
			return &exitError{exitUsage, fmt.Errorf("%w; did you mean --%s?", err, best)}
		}
		return &exitError{exitUsage, fmt.Errorf("%w (`deskpilot %s --help` lists the flags)", err, cmd.Name())}
	})
}

// closestFlag is the flag of cmd (its own and inherited) nearest to typed, when
// near enough to be a typo: at most a third of its letters apart, or typed is
// the start of one flag alone.
func closestFlag(cmd *cobra.Command, typed string) string {
	best, bestD := "", 0
	var prefixed []string
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if strings.HasPrefix(f.Name, typed) {
			prefixed = append(prefixed, f.Name)
		}
		d := editdist.Distance(typed, f.Name)
		if d <= max(1, len(f.Name)/3) && (best == "" || d < bestD) {
			best, bestD = f.Name, d
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	if best == "" && len(prefixed) == 1 {
		return prefixed[0]
	}
	return best
}
