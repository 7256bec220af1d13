package agent

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"strings"

	"go.starlark.net/starlark"

	"deskpilot/actions"
	"deskpilot/actions/browser"
	"deskpilot/agent/script"
)

// errNoPerson answers ask_user when nobody watches the run.
var errNoPerson = errors.New("no person is available to answer; decide yourself, or call final_answer explaining what you need")

// ErrNoOneToAsk is what a Confirm hook returns when no person can be asked (a
// headless run): the refusal then says no one was asked, and how to allow it.
var ErrNoOneToAsk = errors.New("no one to ask")

// noOneAsked is the refusal of an action no person could be asked about.
func noOneAsked(action string) error {
	return fmt.Errorf("refused: %s needs the person's approval, and no one was asked: this run has no person to ask "+
		"(`deskpilot run --yes` approves such actions, `confirm = []` in the config stops asking); find another way", action)
}

// confirm asks the person to approve an action; no Confirm hook denies it.
func (r *runState) confirm(ctx context.Context, action string) error {
	if r.hooks.Confirm == nil {
		return noOneAsked(action)
	}
	ok, err := r.hooks.Confirm(ctx, r.redact(action))
	if errors.Is(err, ErrNoOneToAsk) {
		return noOneAsked(action)
	}
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
		script.Builtin("ask_user", r.askUser),
		script.Builtin("launch", r.launch),
		script.Builtin("open_url", r.openURL),
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
	reply, err := r.hooks.Ask(c.Ctx, r.redact(q))
	c.Log(actions.Record{Name: c.Name, Args: c.ArgsText(), Start: start, Duration: c.Now().Sub(start), Result: "answered"})
	if err != nil {
		if c.Ctx.Err() != nil {
			return nil, c.Ctx.Err()
		}
		return nil, fmt.Errorf("no answer: %w", err)
	}
	return starlark.String(reply), nil
}

// startProgram runs a launch or open_url call: the guard (takeover and the
// confirmation policy, untimed), then the program, then the log.
func (r *runState) startProgram(c *script.Call, call string, result string, name string, args ...string) error {
	if r.a.Launch == nil {
		return errors.New("starting programs is not available on this desktop")
	}
	start := c.Now()
	resume := c.Untimed()
	err := r.guard(c.Ctx, script.Guarded{Tool: c.Tool(), Call: call})
	resume()
	act := actions.Record{Name: c.Name, Args: c.ArgsText(), Start: start}
	if err != nil {
		act.Result, act.Error, act.Duration = "refused", err.Error(), c.Now().Sub(start)
		c.Log(act)
		return err
	}
	pid, err := r.a.Launch(name, args...)
	act.Duration = c.Now().Sub(start)
	if err != nil {
		act.Result, act.Error = "failed", err.Error()
		c.Log(act)
		return err
	}
	act.Result = fmt.Sprintf(result, pid)
	c.Log(act)
	return nil
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
	if len(line) > script.MaxLaunchLine {
		return nil, fmt.Errorf("launch: the command line is %d bytes long; at most %d", len(line), script.MaxLaunchLine)
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return nil, errors.New("launch: app is empty; give a program name, e.g. launch(\"xterm\")")
	}
	if strings.ContainsAny(line, "|;&$`<>") {
		return nil, errors.New("launch: shell syntax is not supported; give a program and its arguments only")
	}
	if err := r.cfg.Policy.CheckCommand(fields); err != nil {
		return nil, err
	}
	if err := r.checkLaunch(line); err != nil {
		return nil, err
	}
	return starlark.None, r.startProgram(c, "launch("+line+")", "started (pid %d)", fields[0], fields[1:]...)
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
	if err := r.cfg.Policy.CheckURL(u); err != nil {
		return nil, err
	}
	if err := browser.CheckURL(c.Ctx, u, r.cfg.Policy.AllowPrivate); err != nil {
		return nil, fmt.Errorf("open_url: %w", err)
	}
	resume := c.Untimed()
	err = r.policy.checkSend(c.Ctx, u)
	resume()
	if err != nil {
		return nil, err
	}
	err = r.startProgram(c, "open_url("+u.String()+")", "opened (pid %d)", "xdg-open", u.String())
	if errors.Is(err, exec.ErrNotFound) {
		return nil, fmt.Errorf("no program to open web pages (xdg-open) is installed here, so %s was not opened; read it as text with visit_page(%q) instead", u, u.String())
	}
	return starlark.None, err
}
