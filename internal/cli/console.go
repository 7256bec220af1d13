package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"deskpilot/agent"
	"deskpilot/internal/wiring"
)

func newConsoleCmd(s *settings) *cobra.Command {
	return &cobra.Command{
		Use:   "console",
		Short: "Type code actions yourself and run them on the desktop (no model)",
		Long: `Runs the code you type with the same executor, builtins and trace as an agent run.
A line ending in ':' starts a block; an empty line ends it. Coordinates are in the
screenshot space the model would see (see --image-size and --coords). Ctrl+D quits.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := s.load()
			if err != nil {
				return err
			}
			ready, err := s.open(cmd.Context(), cfg, wiring.Options{})
			if err != nil {
				return &exitError{exitFailed, err}
			}
			defer ready.Close()
			con, err := ready.Agent.NewConsole(cmd.Context(), "console")
			if err != nil {
				return &exitError{exitFailed, err}
			}
			defer con.Close()
			out := cmd.OutOrStdout()
			target := ready.Desktop.Target()
			fmt.Fprintf(out, "deskpilot console on %s — screen %dx%d. Try: print(screen_size())\n",
				target.Name, target.Bounds.Dx(), target.Bounds.Dy())
			hooks := agent.Hooks{Event: printObservation(out, secretsOf(ready.Agent))}
			return readBlocks(cmd.InOrStdin(), out, func(code string) error {
				if err := con.Exec(cmd.Context(), code, hooks); err != nil {
					return &exitError{exitFailed, err}
				}
				if cmd.Context().Err() != nil {
					return &exitError{exitInterrupted, cmd.Context().Err()}
				}
				return nil
			})
		},
	}
}

// readBlocks reads code from in, one statement or indented block at a time.
func readBlocks(in io.Reader, prompt io.Writer, run func(code string) error) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var block []string
	fmt.Fprint(prompt, ">>> ")
	for sc.Scan() {
		line := sc.Text()
		switch {
		case len(block) == 0 && strings.TrimSpace(line) == "":
		case len(block) == 0 && !strings.HasSuffix(strings.TrimSpace(line), ":"):
			if err := run(line); err != nil {
				return err
			}
		case strings.TrimSpace(line) == "":
			code := strings.Join(block, "\n")
			block = nil
			if err := run(code); err != nil {
				return err
			}
		default:
			block = append(block, line)
			fmt.Fprint(prompt, "... ")
			continue
		}
		fmt.Fprint(prompt, ">>> ")
	}
	if len(block) > 0 {
		if err := run(strings.Join(block, "\n")); err != nil {
			return err
		}
	}
	fmt.Fprintln(prompt)
	return sc.Err()
}

// printObservation prints the observation text of each step, with control
// characters made visible (printed text comes from pages and files) and
// secrets redacted.
func printObservation(w io.Writer, z sanitizer) func(agent.Event) {
	return func(e agent.Event) {
		switch e := e.(type) {
		case agent.Observed:
			if e.Step > 0 {
				fmt.Fprintln(w, z.clean(strings.TrimSuffix(strings.TrimSpace(e.Text), "This is the screen now:")))
			}
		case agent.ModelReplied:
			fmt.Fprintln(w, z.clean(e.Text))
		}
	}
}

// secretsOf is a sanitizer for what an agent knows to be secret: its
// redactor, the one its runs use.
func secretsOf(a *agent.Agent) sanitizer { return sanitizer{red: a.SecretFilter()} }
