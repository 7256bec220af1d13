package agent

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"

	"go.starlark.net/starlark"

	"deskpilot/agent/script"
)

// errNoPerson answers ask_user when nobody watches the run.
var errNoPerson = errors.New("no person is available to answer; decide yourself, or call final_answer explaining what you need")

// closingCombos are key combos that close windows or end the session; the policy
// asks before the agent presses them (Config.Confirm "close_combos").
var closingCombos = []string{"alt+f4", "ctrl+q", "ctrl+w", "ctrl+shift+q", "ctrl+alt+delete", "ctrl+alt+backspace", "super+l", "ctrl+alt+l"}

// needsConfirm reports whether the policy asks before this action.
func (r *runState) needsConfirm(kind string) bool {
	return slices.Contains(r.cfg.Confirm, kind)
}

// confirm asks the person to approve an action; no Confirm hook denies it.
func (r *runState) confirm(ctx context.Context, action string) error {
	if r.hooks.Confirm == nil {
		return fmt.Errorf("refused: %s needs the person's approval and nobody is there to give it", action)
	}
	ok, err := r.hooks.Confirm(ctx, action)
	if err != nil {
		return fmt.Errorf("refused: asking for approval of %s failed: %w", action, err)
	}
	if !ok {
		return fmt.Errorf("refused: the person did not allow %s; find another way or ask_user why", action)
	}
	return nil
}

// controlTools are ask_user, launch and open_url.
func (r *runState) controlTools() []script.Tool {
	return []script.Tool{
		{
			Name: "ask_user", Group: "control", Returns: "str",
			Params: []script.Param{{Name: "question", Type: "str", Doc: "what you need to know, in one or two sentences"}},
			Doc:    "Hands the wheel to the person: shows them the question and returns their reply. Use it for choices, missing information or confirmation only they can give.",
			Fn:     r.askUser,
		},
		{
			Name: "launch", Group: "apps",
			Params: []script.Param{{Name: "app", Type: "str", Doc: `program and arguments, e.g. "gedit notes.txt" (no shell syntax)`}},
			Doc:    "Starts a desktop program on this display. The person may be asked to approve it.",
			Fn:     r.launch,
		},
		{
			Name: "open_url", Group: "apps",
			Params: []script.Param{{Name: "url", Type: "str", Doc: "an http or https address"}},
			Doc:    "Opens the address in the desktop's web browser (to read pages as text, use visit_page instead). The person may be asked to approve it.",
			Fn:     r.openURL,
		},
	}
}

func (r *runState) askUser(c *script.Call, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	a, err := c.Bind()
	if err != nil {
		return nil, err
	}
	q := a.String("question")
	if err := a.Err(); err != nil {
		return nil, err
	}
	start := c.Now()
	defer c.Untimed()()
	if r.hooks.Ask == nil {
		return nil, errNoPerson
	}
	reply, err := r.hooks.Ask(c.Ctx, q)
	c.Log(script.Action{Name: "ask_user", Args: c.ArgsText(), Start: start, Duration: c.Now().Sub(start), Result: "answered"})
	if err != nil {
		if c.Ctx.Err() != nil {
			return nil, c.Ctx.Err()
		}
		return nil, fmt.Errorf("no answer: %w", err)
	}
	return starlark.String(reply), nil
}

func (r *runState) launch(c *script.Call, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	a, err := c.Bind()
	if err != nil {
		return nil, err
	}
	line := a.String("app")
	if err := a.Err(); err != nil {
		return nil, err
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return nil, errors.New("launch: app is empty; give a program name, e.g. launch(\"xterm\")")
	}
	if strings.ContainsAny(line, "|;&$`<>") {
		return nil, errors.New("launch: shell syntax is not supported; give a program and its arguments only")
	}
	if err := r.cfg.CheckApp(fields[0]); err != nil {
		return nil, err
	}
	start := c.Now()
	if r.needsConfirm("launch") {
		stop := c.Untimed()
		err := r.confirm(c.Ctx, "launch("+line+")")
		stop()
		if err != nil {
			return nil, err
		}
	}
	pid, err := r.startDetached(fields[0], fields[1:]...)
	act := script.Action{Name: "launch", Args: c.ArgsText(), Start: start, Duration: c.Now().Sub(start)}
	if err != nil {
		act.Error = err.Error()
		c.Log(act)
		return nil, fmt.Errorf("launch: %w", err)
	}
	act.Result = fmt.Sprintf("started (pid %d)", pid)
	c.Log(act)
	return starlark.None, nil
}

func (r *runState) openURL(c *script.Call, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	a, err := c.Bind()
	if err != nil {
		return nil, err
	}
	raw := a.String("url")
	if err := a.Err(); err != nil {
		return nil, err
	}
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("open_url: %q is not an http or https address", raw)
	}
	if err := r.cfg.CheckURL(u); err != nil {
		return nil, err
	}
	start := c.Now()
	if r.needsConfirm("open_url") {
		stop := c.Untimed()
		err := r.confirm(c.Ctx, "open_url("+u.String()+")")
		stop()
		if err != nil {
			return nil, err
		}
	}
	_, err = r.startDetached("xdg-open", u.String())
	act := script.Action{Name: "open_url", Args: c.ArgsText(), Start: start, Duration: c.Now().Sub(start), Result: "opened"}
	if err != nil {
		act.Result, act.Error = "", err.Error()
	}
	c.Log(act)
	if err != nil {
		return nil, fmt.Errorf("open_url: %w", err)
	}
	return starlark.None, nil
}

// startDetached starts a program on the target display in its own session, so it
// outlives the run and never receives the agent's signals.
func (r *runState) startDetached(name string, args ...string) (int, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return 0, fmt.Errorf("%s is not installed (not found on PATH)", name)
	}
	cmd := exec.Command(path, args...)
	cmd.Env = os.Environ()
	if r.cfg.XDisplay != "" {
		cmd.Env = append(cmd.Env, "DISPLAY="+r.cfg.XDisplay)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	go func() { _ = cmd.Wait() }()
	return pid, nil
}
