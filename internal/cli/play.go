package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"go.starlark.net/syntax"

	"deskpilot/agent"
	"deskpilot/agent/script"
	"deskpilot/agent/trace"
)

// maxScriptBytes bounds the script play reads.
const maxScriptBytes = 4 << 20

func newPlayCmd(s *settings) *cobra.Command {
	var f replayFlags
	var tracePath string
	cmd := &cobra.Command{
		Use:   "play SCRIPT",
		Short: "Run a Starlark script (from `traces script`) on the desktop, without a model",
		Long: `Runs a script on the desktop with the sandbox, guard and safety policy of a run,
recording a new trace. A script written by ` + "`deskpilot traces script`" + ` names the
trace it came from; each checkpoint(N) compares the screen with the frame recorded
step N saw and stops before acting when it differs (--force goes on, --adapt clicks
targets found elsewhere where they are now). The code between two checkpoints runs
as one step: the screen settles after it, as after a step of a run.
With --model no model is asked while every checkpoint holds; where one diverges the
model takes over in the run's dialect (the model, --base-url and --dialect as for
run; --model alone uses the configured model, --model=NAME names it), and play goes
on from the next checkpoint that looks as recorded again. --model-steps bounds its
steps per divergence; --update writes its steps into the script in place of the code
they replaced (the original is kept as SCRIPT.bak). The summary line counts the model
calls. Exit codes: 0 done, 1 the script failed, 2 usage, 3 a step hit the time or
step limit (or the model its --model-steps), 4 the screen does not look as recorded,
130 interrupted (also by deskpilot stop).`,
		Args: takeoverArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(cmd); err != nil {
				return &exitError{exitUsage, err}
			}
			src, err := readScript(args[0])
			if err != nil {
				return &exitError{exitUsage, err}
			}
			segs, checks, err := splitScript(filepath.Base(args[0]), src)
			if err != nil {
				return &exitError{exitUsage, err}
			}
			return play(cmd, s, args[0], src, segs, checks, tracePath, f)
		},
	}
	addReplayFlags(cmd, &f)
	cmd.Flags().StringVar(&tracePath, "trace", "", "the trace folder checkpoints compare with (default: the one the script names)")
	cmd.Flags().BoolVar(&f.update, "update", false, "with --model: write the script again with the model's steps in place of the code they replaced (the original is kept as SCRIPT.bak)")
	return cmd
}

// readScript reads a script, bounded, with its newlines as Starlark reads them.
func readScript(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxScriptBytes+1))
	if err != nil {
		return "", err
	}
	if len(data) > maxScriptBytes {
		return "", fmt.Errorf("%s: more than %d bytes; a script is code", path, maxScriptBytes)
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		// Starlark takes NUL for the end of the file: what follows would silently not run.
		return "", fmt.Errorf("%s: a NUL byte at offset %d", path, i)
	}
	return trace.NormalizeNewlines(string(data)), nil
}

// segment is the code of a script that runs as one step: from a top-level
// checkpoint call to the next one. code keeps the file's line numbers (the
// lines before it are blank), so errors point into the file.
type segment struct {
	line int // first line in the file
	end  int // last line of its last statement
	code string
	// check is the recorded step of the checkpoint(N) call it starts with,
	// N a number; 0 when it starts otherwise.
	check int
}

// splitScript parses src and cuts it before each top-level checkpoint(...)
// statement that starts a line, and before each top-level statement that a
// step header comment ("# ── step", as `traces script` and play --update
// write them) precedes. It also reports whether the script calls
// checkpoint anywhere.
func splitScript(name, src string) ([]segment, bool, error) {
	f, err := trace.ScriptFileOptions().Parse(name, src, 0)
	if err != nil {
		return nil, false, err
	}
	checks := false
	syntax.Walk(f, func(n syntax.Node) bool {
		checks = checks || isCheckpointCall(n)
		return true
	})
	lines := strings.SplitAfter(src, "\n")
	var out []segment
	prevEnd := 0
	for _, st := range f.Stmts {
		from, to := st.Span()
		first := int(from.Line)
		fresh := prevEnd < first
		cut := len(out) == 0 || (fresh && (isCheckpointStmt(st) || stepHeader(lines, prevEnd, first)))
		if cut {
			out = append(out, segment{line: first})
			if fresh {
				out[len(out)-1].check = checkpointStep(st)
			}
		}
		out[len(out)-1].end = int(to.Line)
		prevEnd = int(to.Line)
	}
	for i := range out {
		first, last := out[i].line, len(lines)+1
		if i+1 < len(out) {
			last = out[i+1].line
		}
		out[i].code = strings.Repeat("\n", first-1) + strings.Join(lines[first-1:min(last-1, len(lines))], "")
	}
	return out, checks, nil
}

// stepHeaderPrefix starts the comment line that heads a step of a script.
const stepHeaderPrefix = "# ── step"

// stepHeader reports whether a line after line prev and before line next
// (1-based) is a step header.
func stepHeader(lines []string, prev, next int) bool {
	for i := prev; i < next-1 && i < len(lines); i++ {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), stepHeaderPrefix) {
			return true
		}
	}
	return false
}

// checkpointStep is N of a checkpoint(N) statement, N a number; 0 for any
// other statement.
func checkpointStep(st syntax.Stmt) int {
	if !isCheckpointStmt(st) {
		return 0
	}
	c := st.(*syntax.ExprStmt).X.(*syntax.CallExpr)
	if len(c.Args) != 1 {
		return 0
	}
	lit, ok := c.Args[0].(*syntax.Literal)
	if !ok || lit.Token != syntax.INT {
		return 0
	}
	n, ok := lit.Value.(int64)
	if !ok || n < 1 || n > 1<<30 {
		return 0
	}
	return int(n)
}

// segmentChecks are the recorded steps of the segments after segs[i] that
// start with a checkpoint, and the segment of each.
func segmentChecks(segs []segment, i int) ([]int, func(int) int) {
	var next []int
	index := map[int]int{}
	for j := i + 1; j < len(segs); j++ {
		if n := segs[j].check; n > 0 {
			if _, ok := index[n]; !ok {
				next = append(next, n)
				index[n] = j
			}
		}
	}
	return next, func(n int) int { return index[n] }
}

func isCheckpointStmt(st syntax.Stmt) bool {
	e, ok := st.(*syntax.ExprStmt)
	return ok && isCheckpointCall(e.X)
}

func isCheckpointCall(n syntax.Node) bool {
	c, ok := n.(*syntax.CallExpr)
	if !ok {
		return false
	}
	id, ok := c.Fn.(*syntax.Ident)
	return ok && id.Name == script.Checkpoint
}

// play runs the segments of a script.
func play(cmd *cobra.Command, s *settings, path, src string, segs []segment, checks bool, tracePath string, f replayFlags) error {
	head := trace.ReadScriptHeader([]byte(src))
	if tracePath == "" {
		tracePath = head.Trace
	}
	rec, err := scriptRecording(tracePath, checks)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	space := func(ac *agent.Config) error {
		var err error
		if rec.Start.Type != "" {
			err = recordedSpace(ac, rec)
		} else {
			err = applySpace(ac, head.CoordMode, head.Image)
		}
		if err != nil {
			return &exitError{exitUsage, err}
		}
		return nil
	}
	rs, err := openReplay(cmd, s, "play: "+filepath.Base(path), rec, f, space)
	if err != nil {
		return err
	}
	defer rs.close()
	w := cmd.ErrOrStderr()
	task := rec.Start.Task
	if task == "" {
		task = "the task of " + filepath.Base(path)
	}
	tk, err := newTakeover(rs.cfg, f, task, src, w)
	if err != nil {
		rs.con.Finish("", err)
		return err
	}
	answer, err := playSegments(rs.ctx, rs.con, segs, w, rs.hooks, tk)
	if tk != nil {
		fmt.Fprintln(w, tk.summary("play"))
	}
	if err := rs.finish(cmd, answer, err); err != nil {
		return err
	}
	switch {
	case !f.update:
	case len(tk.done) == 0:
		fmt.Fprintln(w, "--update: every checkpoint held; the script is unchanged")
	default:
		bak, err := updateScript(path, src, segs, tk.done)
		if err != nil {
			return &exitError{exitFailed, err}
		}
		fmt.Fprintf(w, "--update: wrote %s with the model's steps (the original is %s)\n", visible(path), visible(bak))
	}
	return nil
}

// scriptRecording reads the trace a script's checkpoints compare with; a
// script without checkpoints needs none.
func scriptRecording(path string, checks bool) (*trace.Trace, error) {
	if path == "" {
		if checks {
			return nil, errors.New("the script calls checkpoint but names no trace to compare with: give its folder with --trace, or delete the checkpoint calls")
		}
		return &trace.Trace{}, nil
	}
	t, err := trace.Read(path)
	if err != nil {
		if checks {
			return nil, fmt.Errorf("the script's checkpoints compare with %s, which cannot be read (%w): give the trace folder with --trace, or delete the checkpoint calls", path, err)
		}
		return &trace.Trace{}, nil
	}
	return t, nil
}

// playSegments runs each segment as a step; it returns the final answer
// when the script gave one. With a takeover, the model does the part where
// a checkpoint diverges and play goes on from the next segment whose
// checkpoint holds.
func playSegments(ctx context.Context, con *agent.Console, segs []segment, w io.Writer, hooks agent.Hooks, tk *takeover) (string, error) {
	for i := 0; i < len(segs); i++ {
		sg := segs[i]
		fmt.Fprintf(w, "# line %d\n", sg.line)
		res, err := con.Run(ctx, sg.code, hooks)
		if tk != nil {
			tk.scriptSteps++
		}
		if div := (*agent.DivergenceError)(nil); tk != nil && errors.As(err, &div) {
			next, at := segmentChecks(segs, i)
			to, answer, answered, err := tk.run(ctx, con, hooks, div, strings.TrimLeft(sg.code, "\n"), i, next, at)
			if err != nil || answered {
				return answer, err
			}
			i = to - 1
			continue
		}
		if err := blockExit(ctx, err); err != nil {
			return "", err
		}
		switch {
		case res.ErrorKind == script.KindCancelled:
			return "", &exitError{exitInterrupted, errors.New(res.Error)}
		case res.ErrorKind == script.KindLimit:
			return "", &exitError{exitStepLimit, fmt.Errorf("the script hit a limit: %s", firstLine(res.Error))}
		case res.Error != "":
			return "", &exitError{exitFailed, fmt.Errorf("the script failed: %s", res.Error)}
		case res.Answered:
			return res.Answer, nil
		}
	}
	return "", nil
}
