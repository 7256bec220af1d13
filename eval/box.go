//go:build linux

package eval

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/jezek/xgb"

	"deskpilot/vision/xdisplay"
)

// Limits of what a task's commands may take and give.
const (
	commandTimeout = 120 * time.Second // one command, as OSWorld's server allows
	maxOutput      = 1 << 20           // bytes of a command's stdout or stderr kept
	maxLog         = 1 << 20           // bytes of a task's setup.log
	untilPause     = 300 * time.Millisecond
	pipeGrace      = 5 * time.Second // how long a finished command's output may stay open
)

// box is where one task runs: its display, its home and environment, the programs
// its steps launched, and its log. Every program a task starts (its steps'
// commands and launched apps, its getters' commands) runs in the task's
// bubblewrap sandbox (bwrap.go), started on first use: the fresh home at
// /home/user, only this display's socket and cookie, a loopback of its own,
// an environment made from scratch with no variable of the harness's.
type box struct {
	d       *xdisplay.Display
	env     []string // the harness-side environment (the agent's, Job.Env): host paths
	home    string
	taskDir string // the task file's folder: relative paths resolve here
	cache   string // where execute steps' stdout/stderr files go
	files   string // the box's own files (passwd, group, Python modules): host side
	log     *limitedLog
	hostNet bool // the box shares the host's network (--task-network host)

	driveAPI string // Google's API base URL for googledrive steps and getters ("": Google's own)

	mu     sync.Mutex
	apps   []*launched
	sb     *sandbox
	sbErr  error
	ended  bool
	buses  []*busProxy // the display's buses as the box reaches them
	busDir string      // the proxies' sockets
	keys   *xgb.Conn   // the display connection holding the desktop's shortcuts (boxkeys.go)
}

// launched is a program a launch or open step started; stop kills its group.
type launched struct {
	p    *boxProc
	done chan struct{}
}

// newBox prepares the task's folders under dir and its environment.
func newBox(d *xdisplay.Display, dir, taskDir string) (*box, error) {
	b := &box{d: d, home: filepath.Join(dir, "home"), taskDir: taskDir, cache: filepath.Join(dir, "cache"),
		files: filepath.Join(dir, "box")}
	for _, p := range []string{b.home, b.cache, b.files} {
		if err := os.MkdirAll(p, 0o700); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, "setup.log"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	b.log = &limitedLog{f: f, max: maxLog}
	b.env = setEnv(scrubEnv(d.Env()),
		"HOME="+b.home,
		"XDG_CONFIG_HOME="+filepath.Join(b.home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(b.home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(b.home, ".cache"),
		"XDG_STATE_HOME="+filepath.Join(b.home, ".local", "state"),
		"DESKPILOT_TASK_DIR="+taskDir,
		"GSETTINGS_BACKEND=keyfile", // as in the box (boxEnv)
	)
	if err := prepareDesktop(b.home); err != nil {
		return nil, err
	}
	return b, nil
}

// close stops every program the task launched, ends its box (every process
// in it) and closes the log.
func (b *box) close() {
	b.mu.Lock()
	apps, sb, buses, busDir, keys := b.apps, b.sb, b.buses, b.busDir, b.keys
	b.apps, b.buses, b.keys, b.ended = nil, nil, nil, true
	b.mu.Unlock()
	if keys != nil {
		closeX(keys) // no shortcut starts a program once the box closes
	}
	for _, a := range apps {
		a.p.kill()
		<-a.done
	}
	if sb != nil {
		sb.close()
	}
	for _, p := range buses {
		p.close()
	}
	if busDir != "" {
		_ = os.RemoveAll(busDir)
	}
	b.log.close()
}

// argv turns a task's command into the program and arguments to run, as OSWorld's
// server does: with shell, /bin/sh -c SCRIPT ARGS...; "~/" starting an argument of
// a list means the task's home.
func (b *box) argv(c command) []string {
	args := make([]string, len(c.args))
	for i, a := range c.args {
		if c.expandHome && strings.HasPrefix(a, "~/") {
			a = path.Join(boxHome, a[2:])
		}
		args[i] = a
	}
	if c.shell {
		return append([]string{"/bin/sh", "-c"}, args...)
	}
	return args
}

// execResult is what a finished command gave.
type execResult struct {
	stdout, stderr string
	code           int
}

// exec runs a command in the box to its end (at most commandTimeout) and
// returns its output. A command that cannot start or is cut by the timeout is
// an error; a non-zero exit code is not.
func (b *box) exec(ctx context.Context, c command) (execResult, error) {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	argv := b.argv(c)
	var out, errOut limitedBuffer
	out.max, errOut.max = maxOutput, maxOutput
	code, err := b.run(ctx, argv, &out, &errOut)
	res := execResult{stdout: out.String(), stderr: errOut.String(), code: code}
	switch {
	case ctx.Err() != nil:
		err = fmt.Errorf("%s: %w", quoteArgs(argv), ctx.Err())
	case err != nil:
		err = fmt.Errorf("%s: %w", quoteArgs(argv), err)
	}
	if err == nil && (out.cut || errOut.cut) {
		err = fmt.Errorf("%s: output longer than %d bytes", quoteArgs(argv), maxOutput)
	}
	b.log.printf("exec %s: exit %d\n%s%s", quoteArgs(argv), res.code, indent(res.stdout), indent(res.stderr))
	return res, err
}

// run runs argv in the box until it exits or ctx is done (its process group
// is then killed), its output copied to stdout and stderr.
func (b *box) run(ctx context.Context, argv []string, stdout, stderr io.Writer) (int, error) {
	sb, err := b.sandbox()
	if err != nil {
		return -1, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return -1, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return -1, err
	}
	p, err := sb.start(argv, b.boxEnv(), boxHome, nil, outW, errW)
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return -1, err
	}
	var copies sync.WaitGroup
	for r, w := range map[*os.File]io.Writer{outR: stdout, errR: stderr} {
		copies.Go(func() { _, _ = io.Copy(w, r); r.Close() })
	}
	stop := context.AfterFunc(ctx, p.kill)
	defer stop()
	code, err := p.wait()
	drained := make(chan struct{})
	go func() { copies.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-ctx.Done():
	case <-time.After(pipeGrace):
		// A child the command left running in the background holds its
		// output: what it wrote so far is the output.
		b.log.printf("exec %s: its output is still open %s after it exited; not waiting\n", quoteArgs(argv), pipeGrace)
	}
	outR.Close()
	errR.Close()
	<-drained
	if ctx.Err() != nil {
		return code, ctx.Err()
	}
	return code, err
}

// launch starts a program in the box, in the background; it runs until the
// task ends.
func (b *box) launch(_ context.Context, argv []string) error {
	_, err := b.launchProc(argv)
	return err
}

func (b *box) launchProc(argv []string) (*boxProc, error) {
	sb, err := b.sandbox()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p, err := sb.start(argv, b.boxEnv(), boxHome, nil, w, w)
	w.Close()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("%s: %w", quoteArgs(argv), err)
	}
	out := &limitedBuffer{max: 64 << 10}
	a := &launched{p: p, done: make(chan struct{})}
	go func() {
		code, _ := p.wait()
		r.Close() // the program's own children may still hold the pipe
		b.log.printf("launched %s exited (code %d)\n%s", quoteArgs(argv), code, indent(out.String()))
		close(a.done)
	}()
	go func() { _, _ = io.Copy(out, r) }()
	b.mu.Lock()
	b.apps = append(b.apps, a)
	b.mu.Unlock()
	b.log.printf("launch %s: pid %d in the box\n", quoteArgs(argv), p.Pid)
	return p, nil
}

// path resolves a path a task names, as OSWorld's server does
// (os.path.expandvars(os.path.expanduser(p))) with the task's home and
// environment; a relative result is taken from the task file's folder.
func (b *box) path(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = b.home + p[1:]
	}
	p = expandVars(p, b.lookup)
	if !filepath.IsAbs(p) {
		p = filepath.Join(b.taskDir, p)
	}
	return filepath.Clean(p)
}

// lookup finds a variable of the task's environment.
func (b *box) lookup(name string) (string, bool) {
	for i := len(b.env) - 1; i >= 0; i-- {
		if k, v, _ := strings.Cut(b.env[i], "="); k == name {
			return v, true
		}
	}
	return "", false
}

// expandVars is Python's os.path.expandvars: $NAME and ${NAME} are replaced when
// NAME is set and left alone otherwise; NAME is word characters.
func expandVars(s string, lookup func(string) (string, bool)) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '$' {
			b.WriteByte(s[i])
			i++
			continue
		}
		name, end := "", i+1
		if strings.HasPrefix(s[i+1:], "{") {
			if j := strings.IndexByte(s[i+2:], '}'); j >= 0 {
				name, end = s[i+2:i+2+j], i+3+j
			}
		} else {
			j := i + 1
			for j < len(s) {
				r := rune(s[j])
				if r >= 0x80 || !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_') {
					break
				}
				j++
			}
			name, end = s[i+1:j], j
		}
		if v, ok := lookup(name); ok && name != "" {
			b.WriteString(v)
			i = end
			continue
		}
		b.WriteByte('$')
		i++
	}
	return b.String()
}

// setEnv sets variables in env ("K=V" each), replacing earlier values.
func setEnv(env []string, kvs ...string) []string {
	for _, kv := range kvs {
		k, _, _ := strings.Cut(kv, "=")
		env = dropVar(env, k)
		env = append(env, kv)
	}
	return env
}

func dropVar(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	return out
}

// scrubEnv drops variables that look like credentials (a name with a part KEY,
// TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIALS or APIKEY, as in OPENAI_API_KEY or
// GITHUB_TOKEN) and SSH_AUTH_SOCK: a task's programs, and through them the model,
// must not see the evaluator's secrets.
func scrubEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !secretName(k) {
			out = append(out, kv)
		}
	}
	return out
}

func secretName(name string) bool {
	if name == "SSH_AUTH_SOCK" {
		return true
	}
	for _, part := range strings.Split(strings.ToUpper(name), "_") {
		switch part {
		case "KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIALS", "APIKEY":
			return true
		}
	}
	return false
}

// quoteArgs renders argv for logs and errors.
func quoteArgs(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$") {
			a = fmt.Sprintf("%q", a)
		}
		parts[i] = a
	}
	return cut(strings.Join(parts, " "), 300)
}

// cut shortens s to at most n bytes (on a rune boundary), marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	return "    " + strings.ReplaceAll(cut(s, 4096), "\n", "\n    ") + "\n"
}

// limitedBuffer keeps the first max bytes written to it and notes a cut.
type limitedBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
	cut bool
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	room := l.max - len(l.buf)
	if len(p) > room {
		l.cut = true
		l.buf = append(l.buf, p[:max(room, 0)]...)
	} else {
		l.buf = append(l.buf, p...)
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.buf)
}

// limitedLog is a task's setup.log: at most max bytes, safe for concurrent use.
type limitedLog struct {
	mu      sync.Mutex
	f       *os.File
	written int
	max     int
}

func (l *limitedLog) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil || l.written >= l.max {
		return
	}
	s := fmt.Sprintf(format, args...)
	if l.written+len(s) > l.max {
		s = cut(s, l.max-l.written) + "\n[log cut]\n"
	}
	n, _ := l.f.WriteString(s)
	l.written += n
}

func (l *limitedLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
}
