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
Exit codes: 0 done, 1 the script failed, 2 usage, 3 a step hit the time or
step limit, 4 the screen does not look as recorded, 130 interrupted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
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
	code string
}

// splitScript parses src and cuts it before each top-level checkpoint(...)
// statement that starts a line. It also reports whether the script calls
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
	var starts []int // first line of each segment with statements
	prevEnd := 0
	for _, st := range f.Stmts {
		from, to := st.Span()
		cut := len(starts) == 0 || (prevEnd < int(from.Line) && isCheckpointStmt(st))
		if cut {
			starts = append(starts, int(from.Line))
		}
		prevEnd = int(to.Line)
	}
	var out []segment
	for i, first := range starts {
		last := len(lines) + 1
		if i+1 < len(starts) {
			last = starts[i+1]
		}
		code := strings.Repeat("\n", first-1) + strings.Join(lines[first-1:min(last-1, len(lines))], "")
		out = append(out, segment{line: first, code: code})
	}
	return out, checks, nil
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
	ctx := cmd.Context()
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
	answer, err := playSegments(ctx, rs.con, segs, cmd.ErrOrStderr(), rs.hooks)
	return rs.finish(cmd, answer, err)
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
// when the script gave one.
func playSegments(ctx context.Context, con *agent.Console, segs []segment, w io.Writer, hooks agent.Hooks) (string, error) {
	for _, sg := range segs {
		fmt.Fprintf(w, "# line %d\n", sg.line)
		res, err := con.Run(ctx, sg.code, hooks)
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
