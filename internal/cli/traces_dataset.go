package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"deskpilot/agent/script"
	"deskpilot/agent/trace/dataset"
	"deskpilot/internal/wiring"
)

// newDatasetCmd is `deskpilot traces dataset`.
func newDatasetCmd() *cobra.Command {
	var out, format, drop, images string
	var redact, keepDup bool
	cmd := &cobra.Command{
		Use:   "dataset RUNS... --out DIR",
		Short: "Build one training dataset from many runs (hf-parquet, agentnet or openai-chat)",
		Long: `Builds one dataset in a new folder from many runs. RUNS are trace folders, eval
results folders (each task's trace and score), folders holding either, or globs.
  --format hf-parquet   data/train-00000.parquet: one row per trajectory, per-step
                        parallel lists (images as PNG bytes, thoughts, code, actions,
                        observations, effects, labels)
  --format agentnet     agentnet.jsonl + images/: OpenCUA's AgentNet layout, the code as
                        pyautogui calls with 0-1 coordinates
  --format openai-chat  train.jsonl: one fine-tuning chat per step; images as files or
                        data URLs (--images)
Every step is labelled from what deskpilot measured: changed or no_change (the effect
check), repeated (the same code as the step before), refused (guard or policy) and
error; --drop leaves out steps with any of the labels given. Runs that repeat an
earlier run of the same task (the same code on screens that look alike) are kept once.
Values of DESKPILOT_SECRET_* variables are replaced by [redacted] in every text;
--redact also flattens, in every image, the fields typed secrets went into. A dataset
card (README.md) counts what is in the folder.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return &exitError{exitUsage, fmt.Errorf("give the dataset's folder with --out DIR")}
			}
			if !slices.Contains(dataset.Formats, dataset.Format(format)) {
				return &exitError{exitUsage, fmt.Errorf("--format %q: use hf-parquet, agentnet or openai-chat", format)}
			}
			if images != string(dataset.ImagesFiles) && images != string(dataset.ImagesInline) {
				return &exitError{exitUsage, fmt.Errorf("--images %q: use files or inline", images)}
			}
			labels, err := dataset.ParseLabels(drop)
			if err != nil {
				return &exitError{exitUsage, err}
			}
			srcs, err := dataset.Sources(args)
			if err != nil {
				return &exitError{exitUsage, err}
			}
			w := cmd.ErrOrStderr()
			o := dataset.Options{Format: dataset.Format(format), Redact: redact, Drop: labels, KeepDuplicates: keepDup,
				Images: dataset.ImageMode(images), Traits: script.Traits(), Secrets: secretValues(wiring.EnvSecrets(os.Environ()))}
			bar := newProgressBar(w)
			if bar != nil {
				o.Progress = bar.update
			}
			rep, err := dataset.Build(cmd.Context(), out, srcs, o)
			bar.done()
			for _, sk := range rep.Skipped {
				fmt.Fprintf(w, "skipped %s\n", visible(sk))
			}
			if err != nil {
				return &exitError{exitFailed, err}
			}
			fmt.Fprintf(w, "%s: %d trajectories, %d steps (%d duplicate runs left out", visible(out), rep.Trajectories, rep.Steps, rep.Duplicates)
			if n := sumDropped(rep.Dropped); n > 0 {
				fmt.Fprintf(w, ", %d steps dropped", n)
			}
			fmt.Fprintln(w, ")")
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "the dataset's folder (new or empty)")
	f.StringVar(&format, "format", string(dataset.HFParquet), "hf-parquet, agentnet or openai-chat")
	f.StringVar(&drop, "drop", "", "leave out steps with any of these labels, e.g. no_change,repeated,error")
	f.StringVar(&images, "images", string(dataset.ImagesFiles), "openai-chat: images as files or inline (data URLs)")
	f.BoolVar(&redact, "redact", false, "flatten, in every image, the fields typed secrets went into")
	f.BoolVar(&keepDup, "keep-duplicates", false, "keep runs that repeat an earlier run of their task")
	return cmd
}

func sumDropped(m map[dataset.Label]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// progressBar draws how far a build is on a terminal; nil elsewhere (a
// pipe or a file gets no bar).
type progressBar struct {
	w     io.Writer
	drawn bool
}

func newProgressBar(w io.Writer) *progressBar {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return nil
	}
	return &progressBar{w: w}
}

const barWidth = 30

func (b *progressBar) update(p dataset.Progress) {
	n := 0
	if p.TotalRuns > 0 {
		n = p.Runs * barWidth / p.TotalRuns
	}
	fmt.Fprintf(b.w, "\r[%s%s] %d/%d runs, %d steps", strings.Repeat("#", n), strings.Repeat(" ", barWidth-n), p.Runs, p.TotalRuns, p.Steps)
	b.drawn = true
}

func (b *progressBar) done() {
	if b != nil && b.drawn {
		fmt.Fprintln(b.w)
	}
}
