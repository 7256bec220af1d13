package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"deskpilot/agent/script"
	"deskpilot/agent/trace"
	"deskpilot/internal/wiring"
)

func newTracesCmd(s *settings) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "traces",
		Short: "List, show and export recorded runs; turn one into a script",
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
			if len(sums) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "no runs recorded in %s yet: `deskpilot run TASK` or the app records one there (--trace-dir or trace_dir sets the folder)\n", visible(cfg.TraceDir))
				return nil
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "#\tID\tSTARTED\tOUTCOME\tSTEPS\tMODEL\tTASK\tFOLDER")
			for i, t := range sums {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", i+1, t.ID, t.Started.Local().Format("2006-01-02 15:04"),
					orDash(t.Outcome), t.Steps, visible(orDash(t.Model)), visible(clip(t.Task, 50)), visible(filepath.Base(t.Dir)))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			// The numbers shown are what `replay N` means from now on.
			if err := saveListing(cfg.TraceDir, sums); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "the numbers of this listing cannot be kept (%v): give runs by id\n", err)
			}
			return nil
		},
	}
	show := &cobra.Command{
		Use:   "show TRACE",
		Short: "Print a run step by step (TRACE: folder, run id, or number from the last `traces list`)",
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
	cmd.AddCommand(list, show, newExportCmd(s), newScriptCmd(s), newDatasetCmd())
	return cmd
}

func newExportCmd(s *settings) *cobra.Command {
	var format, out string
	var inline, redact bool
	cmd := &cobra.Command{
		Use:   "export TRACE...",
		Short: "Export runs as training data (jsonl; dataset: a Hugging Face image folder) or one run as a report (html)",
		Long: `Exports recorded runs (TRACE: folder, run id, or number from the last ` + "`traces list`" + `).
  --format jsonl    one JSON object per step, to -o FILE or stdout
  --format dataset  a Hugging Face ImageFolder in -o DIR: metadata.jsonl (one row per
                    step), the image each step's model saw, and a dataset card. More
                    traces append to it; a step exported again replaces its row.
  --format html     the report of one run, self-contained: its frames are inlined
Values of DESKPILOT_SECRET_* variables are replaced by [redacted] in every column of
a dataset; --redact also flattens the fields typed secrets went into.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ts []*trace.Trace
			for _, a := range args {
				t, err := openTrace(s, a)
				if err != nil {
					return err
				}
				ts = append(ts, t)
			}
			switch format {
			case "dataset":
				return exportDataset(cmd, ts, out, redact)
			case "jsonl", "html":
				return exportFile(cmd, ts, format, out, inline)
			}
			return &exitError{exitUsage, fmt.Errorf("--format %q: use jsonl, dataset or html", format)}
		},
	}
	cmd.Flags().StringVar(&format, "format", "jsonl", "jsonl (training data), dataset (Hugging Face image folder) or html (report)")
	cmd.Flags().StringVarP(&out, "output", "o", "-", "output file (jsonl, html) or folder (dataset)")
	cmd.Flags().BoolVar(&inline, "inline-images", false, "embed frames as data URLs (jsonl; html always does)")
	cmd.Flags().BoolVar(&redact, "redact", false, "flatten the fields typed secrets went into (dataset)")
	return cmd
}

// exportFile writes the jsonl export of ts, or the report of one trace.
func exportFile(cmd *cobra.Command, ts []*trace.Trace, format, out string, inline bool) error {
	if format == "html" && len(ts) != 1 {
		return &exitError{exitUsage, fmt.Errorf("--format html writes the report of one run; %d were given", len(ts))}
	}
	w := cmd.OutOrStdout()
	if out != "" && out != "-" {
		f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return &exitError{exitFailed, err}
		}
		defer f.Close()
		w = f
	}
	for _, t := range ts {
		var err error
		if format == "html" {
			// An exported report is read away from its trace folder: it carries
			// its frames, wherever it is written.
			err = trace.Report(t, w, trace.InlineFrames())
		} else {
			err = trace.Export(t, w, trace.ExportOptions{InlineImages: inline})
		}
		if err != nil {
			return &exitError{exitFailed, err}
		}
	}
	return nil
}

// exportDataset adds ts to the dataset folder out.
func exportDataset(cmd *cobra.Command, ts []*trace.Trace, out string, redact bool) error {
	if out == "" || out == "-" {
		return &exitError{exitUsage, errors.New("--format dataset writes a folder: give it with -o DIR")}
	}
	secrets := secretValues(wiring.EnvSecrets(os.Environ()))
	rep, err := trace.ExportDataset(out, ts, trace.DatasetOptions{Redact: redact, Secrets: secrets})
	w := cmd.ErrOrStderr()
	for _, sk := range rep.Skipped {
		fmt.Fprintf(w, "skipped %s\n", visible(sk))
	}
	if rep.Card != "" {
		fmt.Fprintf(w, "dataset card: %s\n", visible(rep.Card))
	}
	if err != nil {
		return &exitError{exitFailed, err}
	}
	fmt.Fprintf(w, "%d rows added, %d replaced; %s holds %d rows\n", rep.Added, rep.Replaced, out, rep.Rows)
	return nil
}

func newScriptCmd(s *settings) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "script TRACE",
		Short: "Write the code of a run as one editable Starlark script for `deskpilot play`",
		Long: `Writes the code of a recorded run (TRACE: folder, run id, or number from the last ` + "`traces list`" + `) as
one Starlark file: each step's thought as comments, a checkpoint(N) call where the
screen is compared with the frame step N saw, and its code. The frames stay in the
trace folder, which the script's header names. Edit it, then run it with
` + "`deskpilot play FILE`" + `.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := openTrace(s, args[0])
			if err != nil {
				return err
			}
			dir, err := filepath.Abs(t.Dir)
			if err != nil {
				return &exitError{exitFailed, err}
			}
			if out == "" || out == "-" {
				return trace.WriteScript(cmd.OutOrStdout(), t, dir)
			}
			var b strings.Builder
			if err := trace.WriteScript(&b, t, dir); err != nil {
				return &exitError{exitFailed, err}
			}
			if err := os.WriteFile(out, []byte(b.String()), 0o600); err != nil {
				return &exitError{exitFailed, err}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "-", "the script file")
	return cmd
}

// openTrace reads the trace arg names (see resolveTraceRef).
func openTrace(s *settings, arg string) (*trace.Trace, error) {
	dir := arg
	if !dirExists(arg) {
		cfg, err := s.load()
		if err != nil {
			return nil, err
		}
		if dir, err = resolveTraceRef(cfg.TraceDir, arg); err != nil {
			return nil, &exitError{exitUsage, err}
		}
	}
	t, err := trace.Read(dir)
	if err != nil {
		return nil, &exitError{exitFailed, err}
	}
	t.FillTraits(script.Traits())
	return t, nil
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func printTrace(w io.Writer, t *trace.Trace) {
	fmt.Fprintf(w, "Task: %s\nModel: %s\nFolder: %s\n", visible(t.Start.Task), visible(orDash(t.Start.Model)), visible(t.Dir))
	for _, st := range t.Steps {
		fmt.Fprintf(w, "\n── step %d ──\n", st.Number)
		if st.Thought != "" {
			fmt.Fprintf(w, "%s\n", visible(strings.TrimSpace(st.Thought)))
		}
		if st.Code != "" {
			fmt.Fprintf(w, "code:\n%s\n", indent(visible(st.Code), "  "))
		}
		if st.Observation != nil && st.Observation.Text != "" {
			fmt.Fprintf(w, "observation:\n%s\n", indent(visible(st.Observation.Text), "  "))
		}
	}
	if t.End != nil {
		fmt.Fprintf(w, "\n%s after %d steps", visible(t.End.Outcome), t.End.Steps)
		if t.End.Answer != "" {
			fmt.Fprintf(w, ": %s", visible(t.End.Answer))
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "\n(the run did not finish: the trace ends here)")
	}
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
