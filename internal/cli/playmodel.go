package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"deskpilot/agent"
	"deskpilot/agent/trace"
	"deskpilot/internal/config"
)

// modelConfigured is --model given without a name: the configured model
// takes over (pflag's NoOptDefVal; no model name has spaces).
const modelConfigured = "the configured model"

// addTakeoverFlags adds --model and --model-steps to play and replay. Their
// --model shadows the root's (the model's name, which run and eval take):
// here it turns the takeover on, and --model=NAME also names the model.
func addTakeoverFlags(cmd *cobra.Command, f *replayFlags) {
	cmd.Flags().StringVar(&f.model, "model", "", "where a checkpoint does not look as recorded, let the model take over (in the configured dialect, --base-url, --dialect as for run) until a later checkpoint holds; --model alone uses the configured model, --model=NAME names it")
	cmd.Flags().Lookup("model").NoOptDefVal = modelConfigured
	cmd.Flags().IntVar(&f.modelSteps, "model-steps", agent.DefaultTakeoverSteps, "with --model: the most steps the model may take for one divergence before the play fails (exit 3)")
}

// takeoverArgs is cobra's ExactArgs(1) that explains --model NAME.
func takeoverArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 2 && cmd.Flags().Changed("model") {
		return fmt.Errorf("%s takes one argument; --model takes the model's name after '=' (--model=%s), or alone uses the configured one", cmd.Name(), args[1])
	}
	return cobra.ExactArgs(1)(cmd, args)
}

// checkTakeover checks the takeover flags and passes --model=NAME on to the
// settings (the root's --model).
func (f *replayFlags) checkTakeover(cmd *cobra.Command) error {
	if f.model == "" {
		if cmd.Flags().Changed("model-steps") || f.update {
			return errors.New("--model-steps and --update go with --model: without it no model is asked")
		}
		return nil
	}
	if f.force {
		return errors.New("--model and --force: with --force no checkpoint stops the play, so the model never takes over; give one of them")
	}
	if f.modelSteps < 1 || f.modelSteps > 100 {
		return fmt.Errorf("--model-steps %d: give 1 to 100 (default %d)", f.modelSteps, agent.DefaultTakeoverSteps)
	}
	if f.model != modelConfigured {
		if err := cmd.Root().PersistentFlags().Set("model", f.model); err != nil {
			return err
		}
	}
	return nil
}

// takeover is --model: where a checkpoint diverges, the model does that
// part and the replay goes on from the next recorded step that holds. It
// counts what came from where.
type takeover struct {
	task   string // the recorded task
	script string // the recording as code, as the model reads it
	max    int    // --model-steps
	w      io.Writer

	scriptSteps, modelSteps, calls int
	done                           []takeoverDone
}

// takeoverDone is one takeover: the diverged block (a script's segment or
// a trace's step, by index), the one play went on from (len = none), and
// what the model did.
type takeoverDone struct {
	from, to int
	step     int // the diverged recorded step
	res      agent.TakeoverResult
}

// newTakeover is the takeover of a replay of task, or nil without --model.
func newTakeover(cfg config.Config, f replayFlags, task, script string, w io.Writer) (*takeover, error) {
	if f.model == "" {
		return nil, nil
	}
	if !cfg.HasModel() {
		return nil, &exitError{exitUsage, errors.New("--model: " + config.ErrNoModel)}
	}
	return &takeover{task: task, script: script, max: f.modelSteps, w: w}, nil
}

// run lets the model take over where div stopped block from of the replay;
// next are the recorded steps after it (step numbers) and at maps one to
// its block. It returns the block to go on from (len(blocks) when the
// model answered) and the answer.
func (tk *takeover) run(ctx context.Context, con *agent.Console, h agent.Hooks, div *agent.DivergenceError, code string, from int, next []int, at func(step int) int) (int, string, bool, error) {
	fmt.Fprintf(tk.w, "step %d does not look as recorded: the model takes over\n", div.Check.Step)
	res, err := con.TakeOver(ctx, agent.Takeover{Task: tk.task, Script: tk.script, Diverged: div.Check, Code: code, Next: next, MaxSteps: tk.max}, h)
	tk.modelSteps += len(res.Steps)
	tk.calls += res.Calls
	var limit *agent.TakeoverLimitError
	switch {
	case errors.As(err, &limit):
		return 0, "", false, &exitError{exitStepLimit, err}
	case ctx.Err() != nil:
		return 0, "", false, &exitError{exitInterrupted, ctx.Err()}
	case err != nil:
		return 0, "", false, &exitError{exitFailed, fmt.Errorf("the model's takeover at step %d: %w", div.Check.Step, err)}
	}
	d := takeoverDone{from: from, step: div.Check.Step, res: res}
	if res.Answered {
		d.to = -1
		tk.done = append(tk.done, d)
		return -1, res.Answer, true, nil
	}
	d.to = at(res.Resume)
	tk.done = append(tk.done, d)
	fmt.Fprintf(tk.w, "step %d looks as recorded again: the replay goes on without the model\n", res.Resume)
	return d.to, "", false, nil
}

// summary is the line that ends a play or replay with --model.
func (tk *takeover) summary(what string) string {
	calls := "calls"
	if tk.calls == 1 {
		calls = "call"
	}
	return fmt.Sprintf("%s: %d steps from the script, %d from the model; %d model %s", what, tk.scriptSteps, tk.modelSteps, tk.calls, calls)
}

// updateScript writes the script at path again with the model's steps in
// place of the blocks they replaced (play --update): each takeover's
// blocks, from the diverged one to the one before the block play went on
// from, become the model's steps, each under a step header (so each plays
// as a step of its own), with the replaced code kept as comments. The file
// is written to a temporary file and renamed over the script, after the
// original is copied to path.bak: an error leaves the original in place.
func updateScript(path, src string, segs []segment, done []takeoverDone) (string, error) {
	lines := strings.SplitAfter(src, "\n")
	var b strings.Builder
	next := 1 // the next line of src to copy
	for _, d := range done {
		to := d.to
		if to < 0 {
			to = len(segs)
		}
		switch {
		case !d.res.SameSpace:
			return "", errors.New("--update: the model's points are in its dialect's coordinate space, not the script's: give --dialect code (or the dialect the script was recorded in) to update it")
		case segs[d.from].check != d.step:
			return "", fmt.Errorf("--update: step %d diverged inside a block that does not start with its checkpoint: the code before it ran, so the block cannot be replaced whole", d.step)
		}
		first, last := segs[d.from].line, segs[to-1].end
		for ; next < first; next++ {
			b.WriteString(lines[next-1])
		}
		var replaced []string
		for ; next <= last && next <= len(lines); next++ {
			replaced = append(replaced, strings.TrimRight(lines[next-1], "\n"))
		}
		writeModelSteps(&b, d, strings.Join(replaced, "\n"))
	}
	for ; next <= len(lines); next++ {
		b.WriteString(lines[next-1])
	}
	out := b.String()
	if _, _, err := splitScript(filepath.Base(path), out); err != nil {
		return "", fmt.Errorf("--update: the updated script does not parse (%w); the script was not changed", err)
	}
	return writeWithBackup(path, []byte(out))
}

// writeModelSteps writes one takeover's steps, under step headers.
func writeModelSteps(b *strings.Builder, d takeoverDone, replaced string) {
	bw := bufio.NewWriter(b)
	fmt.Fprintf(bw, "%s: the model's, where step %d did not look as recorded (play --update) ──\n", stepHeaderPrefix, d.step)
	comment(bw, "The recorded code it replaced:")
	for _, l := range strings.Split(replaced, "\n") {
		comment(bw, "    "+l)
	}
	n := 0
	for _, st := range d.res.Steps {
		if strings.TrimSpace(st.Code) == "" {
			continue
		}
		if n > 0 {
			fmt.Fprintf(bw, "%s: the model's ──\n", stepHeaderPrefix)
		}
		n++
		code, why := trace.ScriptCode(st.Code, st.Error)
		if why != "" {
			trace.WriteCommentedCode(bw, why, code)
			continue
		}
		bw.WriteString(code)
		bw.WriteByte('\n')
	}
	if n == 0 {
		comment(bw, "(the model ran no code)")
	}
	bw.WriteByte('\n')
	_ = bw.Flush()
}

// comment writes one comment line, escaped as trace.VisibleLine does.
func comment(bw *bufio.Writer, text string) {
	bw.WriteString("# " + trace.VisibleLine(text) + "\n")
}

// writeWithBackup copies the file at path to path.bak, then writes data to
// a temporary file beside it and renames it over path (a symbolic link's
// target). It returns the backup's path.
func writeWithBackup(path string, data []byte) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("--update: %w", err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("--update: %w", err)
	}
	orig, err := os.ReadFile(real)
	if err != nil {
		return "", fmt.Errorf("--update: %w", err)
	}
	bak := real + ".bak"
	if err := writeAtomic(bak, orig, fi.Mode().Perm()); err != nil {
		return "", fmt.Errorf("--update: the backup %s: %w; the script was not changed", bak, err)
	}
	if err := writeAtomic(real, data, fi.Mode().Perm()); err != nil {
		return "", fmt.Errorf("--update: %w; the script was not changed", err)
	}
	return bak, nil
}

// writeAtomic writes data to a temporary file in path's folder, syncs it
// and renames it to path.
func writeAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a rename, there is nothing left to remove
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
