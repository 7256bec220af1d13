//go:build linux

package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"net"
	"path/filepath"
	"strings"

	"deskpilot/a11y"
	"deskpilot/a11y/atspi"
	"deskpilot/eval/checks"
)

// checkEnv is a task's box as the getters of package checks see it.
type checkEnv struct {
	b      *box
	answer string
}

var _ checks.Env = (*checkEnv)(nil)

func (b *box) checkEnv(answer string) *checkEnv { return &checkEnv{b: b, answer: answer} }

// Path resolves a path the task names in the task's files (/home/user and ~
// are the task's home). A path outside the task's home, folder and cache, or
// inside them with symbolic links leading out, resolves to nothing (the getter
// then sees a missing file): a task must not make a check read the
// evaluator's files.
func (e *checkEnv) Path(p string) string {
	full := e.b.taskPath(p)
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return full // missing: the getter sees that
	}
	inside := func(root, q string) bool {
		r, err := filepath.EvalSymlinks(root)
		if err != nil {
			return false
		}
		rel, err := filepath.Rel(r, q)
		return err == nil && filepath.IsLocal(rel)
	}
	for _, root := range []string{e.b.home, e.b.taskDir, e.b.cache} {
		if inside(root, full) || strings.HasPrefix(full, root+string(filepath.Separator)) {
			if !inside(root, real) {
				return filepath.Join(e.b.cache, ".outside") // never created
			}
			return real
		}
	}
	return filepath.Join(e.b.cache, ".outside")
}

// CacheDir is the task's cache folder.
func (e *checkEnv) CacheDir() string { return e.b.cache }

// CloudFile is the cached download of url.
func (e *checkEnv) CloudFile(ctx context.Context, url string) (string, error) {
	return e.b.cloudFile(ctx, url)
}

// Exec runs a command as OSWorld's /execute does, in the task's box.
func (e *checkEnv) Exec(ctx context.Context, command any, shell bool) (checks.ExecResult, error) {
	raw, err := json.Marshal(command)
	if err != nil {
		return checks.ExecResult{}, err
	}
	sh, _ := json.Marshal(shell)
	c, err := decodeCommand(map[string]json.RawMessage{"command": raw, "shell": sh}, false)
	if err != nil {
		return checks.ExecResult{}, err
	}
	res, err := e.b.exec(ctx, c)
	if err != nil {
		return checks.ExecResult{}, err
	}
	return checks.ExecResult{Stdout: res.stdout, Stderr: res.stderr, Code: res.code}, nil
}

// Dial connects to a port on the box's loopback.
func (e *checkEnv) Dial(ctx context.Context, port int) (net.Conn, error) {
	return e.b.dial(ctx, port)
}

// AccessibilityTree reads the display's AT-SPI tree and renders it as OSWorld's
// server does.
func (e *checkEnv) AccessibilityTree(ctx context.Context) (string, error) {
	c, err := atspi.Connect(ctx, treeWalk(atspi.Options{XDisplay: e.b.d.Name, XAuthority: e.b.d.XAuthority, BusAddress: e.b.d.SessionBus, IgnoreEnv: true}))
	if err != nil {
		return "", fmt.Errorf("%w: %v", checks.ErrUnavailable, err)
	}
	defer c.Close()
	els, _, err := c.Elements(ctx, a11y.Query{})
	if err != nil {
		return "", fmt.Errorf("%w: %v", checks.ErrUnavailable, err)
	}
	info, err := checks.A11yDetails(ctx, e.b.d.AccessibilityBus, els)
	if err != nil {
		info = nil // the tree without attr:* and cp:parentcoord rather than no tree
	}
	return checks.TreeXML(els, info), nil
}

// Accessibility connects to the display's AT-SPI tree for a getter.
func (e *checkEnv) Accessibility(ctx context.Context) (checks.A11yReader, error) {
	if e.b.d.SessionBus == "" {
		return nil, errors.New("the task's display has no accessibility bus")
	}
	c, err := atspi.Connect(ctx, atspi.Options{XDisplay: e.b.d.Name, XAuthority: e.b.d.XAuthority, BusAddress: e.b.d.SessionBus, IgnoreEnv: true})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Windows lists the display's windows with their WM_CLASS, read by xprop in
// the box.
func (e *checkEnv) Windows(ctx context.Context) ([]checks.Window, error) {
	wins, err := e.b.d.Windows(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]checks.Window, 0, len(wins))
	for _, w := range wins {
		cw := checks.Window{Title: w.Title, Size: w.Bounds.Size()}
		res, err := e.Exec(ctx, []any{"xprop", "-id", fmt.Sprint(w.ID), "WM_CLASS"}, false)
		if err == nil {
			cw.Class = wmClass(res.Stdout)
		}
		out = append(out, cw)
	}
	return out, nil
}

// wmClass reads xprop's `WM_CLASS(STRING) = "vlc", "Vlc"`.
func wmClass(s string) []string {
	_, v, ok := strings.Cut(s, "=")
	if !ok {
		return nil
	}
	var out []string
	for _, part := range strings.Split(v, ",") {
		if p := strings.Trim(strings.TrimSpace(part), `"`); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Screen is the display's size.
func (e *checkEnv) Screen() image.Point { return image.Pt(e.b.d.Width, e.b.d.Height) }

// Infeasible reports whether the run's final answer is the one every dialect
// gives for OSWorld's FAIL ("The task could not be done. ...").
func (e *checkEnv) Infeasible() bool { return declaredInfeasible(e.answer) }

// declaredInfeasible recognises the answer of an agent that gave up on a task
// as infeasible.
func declaredInfeasible(answer string) bool {
	return strings.HasPrefix(strings.TrimSpace(answer), "The task could not be done.")
}

// treeWalk sets on o the walk of the accessibility_tree getter: containers
// kept, object by object, within checks' bounds (checks.TreeMaxDepth).
func treeWalk(o atspi.Options) atspi.Options {
	o.Containers, o.NoCache = true, true
	o.MaxDepth, o.MaxNodes, o.MaxTime = checks.TreeMaxDepth, checks.TreeMaxNodes, checks.TreeMaxTime
	return o
}
