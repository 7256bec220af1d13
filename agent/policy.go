package agent

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"deskpilot/actions"
	"deskpilot/actions/inspect"
	"deskpilot/agent/script"
	"deskpilot/agent/secret"
)

// Policy is the safety policy of a run: which actions the person approves, and
// the allow/deny lists by domain and by program. It applies to open_url, launch
// and every page the text browser visits (each redirect hop too). A domain
// pattern "example.com" matches that host and its subdomains; a leading "*." is
// accepted and means the same. The zero value asks before launch, open_url and
// closing key combos and allows every domain and program.
type Policy struct {
	// Confirm lists the confirmation entries (script.RiskLaunch, RiskOpenURL,
	// RiskCloseCombos, RiskSendAfterRead) the person approves; nil = all,
	// empty = none.
	Confirm []string
	// AllowPrivate lets open_url and the browser reach private and loopback
	// addresses.
	AllowPrivate bool
	AllowDomains []string // when set, only these domains are reached
	DenyDomains  []string // domains never reached
	DenyApps     []string // programs launch refuses
}

// asks reports whether the policy asks the person before actions of risk.
func (p Policy) asks(risk string) bool {
	if p.Confirm == nil {
		return true
	}
	return slices.Contains(p.Confirm, risk)
}

// CheckURL refuses an address whose host is in DenyDomains, or not in AllowDomains
// when that list is not empty.
func (p Policy) CheckURL(u *url.URL) error {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	for _, d := range p.DenyDomains {
		if domainMatch(host, d) {
			return fmt.Errorf("refused by policy: %s is in deny_domains (%s)", host, d)
		}
	}
	if len(p.AllowDomains) > 0 && !slices.ContainsFunc(p.AllowDomains, func(d string) bool { return domainMatch(host, d) }) {
		return fmt.Errorf("refused by policy: %s is not in allow_domains (%s)", host, strings.Join(p.AllowDomains, ", "))
	}
	return nil
}

// CheckApp refuses a program named in DenyApps (by its base name).
func (p Policy) CheckApp(program string) error {
	base := filepath.Base(program)
	for _, d := range p.DenyApps {
		if strings.EqualFold(base, filepath.Base(d)) {
			return fmt.Errorf("refused by policy: %s is in deny_apps", base)
		}
	}
	return nil
}

// CheckCommand refuses a command line (program and arguments, as launch gets
// them) when a program it would run is in DenyApps. It looks through the
// wrappers that run another program — env, nohup, timeout, nice, setsid,
// xargs, find -exec, busybox and the like — and, while any app is denied,
// refuses shells and interpreters given code to run (sh -c, python3 -c, perl
// -e, ...), since that code could start anything.
//
// What it cannot promise: a denied program copied or linked under another
// name, a script file that starts it, or a program that starts it on its own
// (a file manager, a terminal's menu). deny_apps keeps the agent from
// starting a program by name; it is not a sandbox.
func (p Policy) CheckCommand(argv []string) error {
	if len(p.DenyApps) == 0 {
		return nil
	}
	if len(argv) > maxCheckedArgs {
		return fmt.Errorf("refused by policy: a command line of %d words is too long to check against deny_apps (at most %d)", len(argv), maxCheckedArgs)
	}
	for _, prog := range programsRun(argv) {
		if prog.inline {
			return fmt.Errorf("refused by policy: %s with code to run (%s) could start any program, and deny_apps is set", prog.name, prog.flag)
		}
		if err := p.CheckApp(prog.name); err != nil {
			return err
		}
	}
	return nil
}

// maxCheckedArgs bounds the work of CheckCommand, which looks at every word
// after a wrapper as a possible program.
const maxCheckedArgs = 256

// program is one program a command line runs.
type program struct {
	name   string
	inline bool   // a shell or interpreter given code to run
	flag   string // the flag that gives it (-c, -e)
}

// wrappers are the programs that run (part of) the rest of their arguments as
// a command. Their own options vary, some taking values ("timeout -s KILL 5
// cmd", "nice -n 5 cmd"), so every argument after a wrapper that could be a
// program is looked at as one: a denied name anywhere there is refused.
func wrappers() []string {
	return []string{"env", "nohup", "setsid", "nice", "ionice", "stdbuf", "time", "sudo", "doas", "exec",
		"command", "chrt", "taskset", "timeout", "xargs", "unshare", "flock", "chroot", "runuser",
		"dbus-launch", "dbus-run-session", "xvfb-run", "firejail", "strace", "ltrace", "watch", "script",
		"busybox", "find", "parallel", "systemd-run", "flatpak-spawn", "gtk-launch", "exo-open", "x-terminal-emulator",
		"xterm", "gnome-terminal", "konsole", "xfce4-terminal", "terminator", "tilix", "kitty", "alacritty"}
}

// inlineFlags are the shells and interpreters that run code given on the
// command line, with the flags that give it.
func inlineFlags() map[string][]string {
	shell := []string{"-c"}
	return map[string][]string{
		"sh": shell, "bash": shell, "dash": shell, "zsh": shell, "ksh": shell, "mksh": shell, "fish": shell,
		"csh": shell, "tcsh": shell, "ash": shell, "busybox": shell,
		"python": {"-c"}, "python3": {"-c"}, "python2": {"-c"}, "perl": {"-e", "-E"}, "ruby": {"-e"},
		"node": {"-e", "--eval", "-p"}, "php": {"-r"}, "lua": {"-e"}, "tclsh": nil, "wish": nil,
		"awk": nil, "gawk": nil, "osascript": {"-e"}, "pwsh": {"-c", "-Command"}, "powershell": {"-c", "-Command"},
	}
}

// programsRun lists the programs argv may run: its program and, when that is
// a wrapper, every later argument that could name a program (wrappers nest:
// "nohup env timeout 5 sh -c ..." — one pass over the arguments covers them all).
func programsRun(argv []string) []program {
	if len(argv) == 0 {
		return nil
	}
	out := []program{inspectProgram(argv)}
	if !slices.Contains(wrappers(), out[0].name) {
		return out
	}
	for i, a := range argv[1:] {
		if a != "" && !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
			out = append(out, inspectProgram(argv[1+i:]))
		}
	}
	return out
}

// inspectProgram reads argv[0] as a program: its name, and whether it is a
// shell or interpreter given code to run.
func inspectProgram(argv []string) program {
	p := program{name: strings.ToLower(filepath.Base(argv[0]))}
	for _, a := range argv[1:] {
		for _, f := range inlineFlags()[p.name] {
			short := len(f) == 2 && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], f[1:])
			if a == f || short {
				p.inline, p.flag = true, f
				return p
			}
		}
	}
	return p
}

func domainMatch(host, pattern string) bool {
	d := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(pattern), "*."), "."))
	if d == "" {
		return false
	}
	return host == d || strings.HasSuffix(host, "."+d)
}

// CheckSend is asked before data leaves for u (every page the text browser
// visits, each redirect hop, a web search, open_url): the domain policy, then,
// once a run has read a file under the home folder, the person's approval for
// every domain the run has not reached before. Safe from any goroutine.
func (a *Agent) CheckSend(ctx context.Context, u *url.URL) error {
	r := a.current.Load()
	var policy Policy
	if r != nil {
		policy = r.cfg.Policy
	} else {
		policy = a.Config.Policy
	}
	if err := policy.CheckURL(u); err != nil {
		return err
	}
	if err := a.SecretFilter().CheckURL(u); err != nil {
		return err
	}
	if r == nil {
		return nil
	}
	return r.policy.checkSend(ctx, u)
}

// NoteRead records that the run read a file, for CheckSend. Safe from any
// goroutine.
func (a *Agent) NoteRead(res inspect.Result) {
	if r := a.current.Load(); r != nil && res.UnderHome {
		r.policy.readHome.Store(true)
	}
}

// runPolicy is the safety policy as one run applies it: the confirmations a
// builtin's Risk names (approve), and what send_after_read remembers (a file
// under the home folder was read; the hosts data went to). The run's
// constructor wires it. Safe from any goroutine.
type runPolicy struct {
	cfg     Config                                         // Policy
	confirm func(ctx context.Context, action string) error // asks the person (runState.confirm)
	red     *secret.Redactor                               // refuses what would send a secret

	readHome atomic.Bool     // inspect_file read a file under the home folder
	sentMu   sync.Mutex      // guards sentTo
	sentTo   map[string]bool // hosts data went to (or was approved for)
}

// approve asks the person before a guarded primitive whose Risk the policy
// confirms; for script.RiskCloseCombos only a combo that closes windows or
// ends the session is asked about.
func (r *runPolicy) approve(ctx context.Context, g script.Guarded) error {
	if risk := g.Tool.Risk; risk != "" && r.cfg.Policy.asks(risk) {
		if risk != script.RiskCloseCombos || (g.Combo != nil && isClosingCombo(*g.Combo)) {
			return r.confirm(ctx, g.Call)
		}
	}
	return nil
}

// checkSend asks before data leaves for a new domain after a home file was read.
func (r *runPolicy) checkSend(ctx context.Context, u *url.URL) error {
	if err := r.red.CheckURL(u); err != nil {
		return err
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	r.sentMu.Lock()
	known := r.sentTo[host]
	r.sentMu.Unlock()
	if known || !r.readHome.Load() || !r.cfg.Policy.asks(script.RiskSendAfterRead) {
		r.noteSent(host)
		return nil
	}
	if err := r.confirm(ctx, fmt.Sprintf("sending data to %s after reading files in your home folder (%s)", host, u.Redacted())); err != nil {
		return err
	}
	r.noteSent(host)
	return nil
}

func (r *runPolicy) noteSent(host string) {
	r.sentMu.Lock()
	defer r.sentMu.Unlock()
	if r.sentTo == nil {
		r.sentTo = map[string]bool{}
	}
	r.sentTo[host] = true
}

// closingCombos are the key combos that close windows or end the session
// (script.RiskCloseCombos).
func closingCombos() []string {
	return []string{"alt+f4", "ctrl+q", "ctrl+w", "ctrl+shift+q", "ctrl+shift+w", "super+q",
		"ctrl+alt+delete", "ctrl+alt+backspace", "super+l", "ctrl+alt+l"}
}

// isClosingCombo reports whether c closes windows or ends the session.
func isClosingCombo(c actions.Combo) bool {
	for _, s := range closingCombos() {
		if cc, err := actions.ParseCombo(s); err == nil && cc.String() == c.String() {
			return true
		}
	}
	return false
}
