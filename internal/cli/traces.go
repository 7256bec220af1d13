package cli

import (
	"bufio"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"deskpilot/agent"
	"deskpilot/agent/trace"
	"deskpilot/internal/wiring"
	"deskpilot/vision"
)

func newTracesCmd(s *settings) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "traces",
		Short: "List, show and export recorded runs",
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List recorded runs, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := s.load()
			if err != nil {
				return err
			}
			sums, err := trace.List(cfg.TraceDir)
			if err != nil {
				return &exitError{exitFailed, err}
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "#\tSTARTED\tOUTCOME\tSTEPS\tMODEL\tTASK\tFOLDER")
			for i, t := range sums {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\t%s\n", i+1, t.Started.Local().Format("2006-01-02 15:04"),
					orDash(t.Outcome), t.Steps, orDash(t.Model), clip(t.Task, 50), filepath.Base(t.Dir))
			}
			return tw.Flush()
		},
	}
	show := &cobra.Command{
		Use:   "show TRACE",
		Short: "Print a run step by step (TRACE: folder, or number from `traces list`)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := openTrace(s, args[0])
			if err != nil {
				return err
			}
			printTrace(cmd.OutOrStdout(), t)
			return nil
		},
	}
	var format, out string
	var inline bool
	export := &cobra.Command{
		Use:   "export TRACE",
		Short: "Export a run as training data (jsonl: one object per step) or as a report (html)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := openTrace(s, args[0])
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if out != "" && out != "-" {
				f, err := os.Create(out)
				if err != nil {
					return &exitError{exitFailed, err}
				}
				defer f.Close()
				w = f
			}
			switch format {
			case "jsonl":
				err = trace.Export(t, w, trace.ExportOptions{InlineImages: inline})
			case "html":
				err = trace.Report(t, w)
			default:
				return &exitError{exitUsage, fmt.Errorf("--format %q: use jsonl or html", format)}
			}
			if err != nil {
				return &exitError{exitFailed, err}
			}
			return nil
		},
	}
	export.Flags().StringVar(&format, "format", "jsonl", "jsonl (training data) or html (report)")
	export.Flags().StringVarP(&out, "output", "o", "-", "output file")
	export.Flags().BoolVar(&inline, "inline-images", false, "embed frames as data URLs (jsonl)")
	cmd.AddCommand(list, show, export)
	return cmd
}

// openTrace resolves a trace folder or a list number.
func openTrace(s *settings, arg string) (*trace.Trace, error) {
	dir := arg
	if n, err := strconv.Atoi(arg); err == nil && !dirExists(arg) {
		cfg, err := s.load()
		if err != nil {
			return nil, err
		}
		sums, err := trace.List(cfg.TraceDir)
		if err != nil {
			return nil, &exitError{exitFailed, err}
		}
		if n < 1 || n > len(sums) {
			return nil, &exitError{exitUsage, fmt.Errorf("trace %d: there are %d traces in %s", n, len(sums), cfg.TraceDir)}
		}
		dir = sums[n-1].Dir
	}
	t, err := trace.Read(dir)
	if err != nil {
		return nil, &exitError{exitFailed, err}
	}
	return t, nil
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func printTrace(w io.Writer, t *trace.Trace) {
	fmt.Fprintf(w, "Task: %s\nModel: %s\nFolder: %s\n", t.Start.Task, orDash(t.Start.Model), t.Dir)
	for _, st := range t.Steps {
		fmt.Fprintf(w, "\n── step %d ──\n", st.Number)
		if st.Thought != "" {
			fmt.Fprintf(w, "%s\n", strings.TrimSpace(st.Thought))
		}
		if st.Code != "" {
			fmt.Fprintf(w, "code:\n%s\n", indent(st.Code, "  "))
		}
		if st.Observation != nil && st.Observation.Text != "" {
			fmt.Fprintf(w, "observation:\n%s\n", indent(st.Observation.Text, "  "))
		}
	}
	if t.End != nil {
		fmt.Fprintf(w, "\n%s after %d steps", t.End.Outcome, t.End.Steps)
		if t.End.Answer != "" {
			fmt.Fprintf(w, ": %s", t.End.Answer)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "\n(the run did not finish: the trace ends here)")
	}
}

func newReplayCmd(s *settings) *cobra.Command {
	var dry, yes bool
	cmd := &cobra.Command{
		Use:   "replay TRACE",
		Short: "Run the code of a recorded run again on this desktop, step by step, without a model",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := openTrace(s, args[0])
			if err != nil {
				return err
			}
			if dry {
				for _, st := range t.Steps {
					if st.Code != "" {
						fmt.Fprintf(cmd.OutOrStdout(), "# step %d\n%s\n\n", st.Number, st.Code)
					}
				}
				return nil
			}
			cfg, err := s.load()
			if err != nil {
				return err
			}
			ready, err := s.open(cmd.Context(), cfg, wiring.Options{})
			if err != nil {
				return &exitError{exitFailed, err}
			}
			defer ready.Close()
			// The code's points are in the space the run was recorded in.
			if err := recordedSpace(&ready.Agent.Config, t); err != nil {
				return &exitError{exitFailed, err}
			}
			con, err := ready.Agent.NewConsole(cmd.Context(), "replay: "+t.Start.Task)
			if err != nil {
				return &exitError{exitFailed, err}
			}
			defer con.Close()
			in := bufio.NewReader(os.Stdin)
			for _, st := range t.Steps {
				if st.Code == "" {
					continue
				}
				fmt.Fprintf(os.Stderr, "# step %d\n%s\n", st.Number, indent(st.Code, "  "))
				if !yes {
					ans, err := askLine(cmd.Context(), in, os.Stderr, "run this step? [Y/n/q]")
					if err != nil {
						return &exitError{exitInterrupted, err}
					}
					switch strings.ToLower(strings.TrimSpace(ans)) {
					case "n":
						continue
					case "q":
						return nil
					}
				}
				if err := con.Exec(cmd.Context(), st.Code, agent.Hooks{Event: printObservation(os.Stderr, secretsOf(ready.Agent))}); err != nil {
					return &exitError{exitFailed, err}
				}
				if cmd.Context().Err() != nil {
					return &exitError{exitInterrupted, cmd.Context().Err()}
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&dry, "dry-run", false, "print the code of each step and stop")
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "run every step without asking")
	return cmd
}

// recordedSpace sets the coordinate space of ac to the one t was recorded in.
func recordedSpace(ac *agent.Config, t *trace.Trace) error {
	if t.Start.CoordMode != "" {
		m, err := vision.ParseCoordMode(t.Start.CoordMode)
		if err != nil {
			return fmt.Errorf("the trace's coordinate mode: %w", err)
		}
		ac.CoordMode = m
	}
	if t.Start.Image != nil {
		ac.ImageSize = image.Pt(t.Start.Image.W, t.Start.Image.H)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pre)
}
