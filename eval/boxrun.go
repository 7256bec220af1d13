//go:build linux

package eval

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"deskpilot/eval/pyautogui"
)

// sandbox returns the task's box, starting it on first use.
func (b *box) sandbox() (*sandbox, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.ended:
		return nil, errors.New("the task's box is closed")
	case b.sb != nil || b.sbErr != nil:
		return b.sb, b.sbErr
	}
	spec := sandboxSpec{home: b.home, xauth: b.d.XAuthority, display: b.d.Name, files: b.files,
		python: filepath.Join(b.files, "python"), hostNet: b.hostNet}
	for _, addr := range []string{b.d.SessionBus, b.d.AccessibilityBus} {
		if p := unixPath(addr); p != "" {
			proxy, err := b.busProxy(p)
			if err != nil {
				b.sbErr = fmt.Errorf("box: the display's bus %s: %w", p, err)
				return nil, b.sbErr
			}
			spec.sockets = append(spec.sockets, [2]string{proxy, p})
		}
	}
	if b.taskDir != "" && b.taskDir != "/" && isDir(b.taskDir) {
		spec.roDirs = append(spec.roDirs, b.taskDir)
	}
	if err := pyautogui.Write(spec.python); err != nil {
		b.sbErr = err
		return nil, err
	}
	if err := writeBoxFiles(b.files); err != nil {
		b.sbErr = fmt.Errorf("box: %w", err)
		return nil, b.sbErr
	}
	b.sb, b.sbErr = startSandbox(spec)
	if b.sbErr == nil {
		b.log.printf("box: started (network: %s)\n", map[bool]string{true: "host", false: "loopback only"}[b.hostNet])
	}
	return b.sb, b.sbErr
}

// busProxy starts a busProxy to the bus socket target and returns its socket,
// which the box binds at target. Called with b.mu held.
func (b *box) busProxy(target string) (string, error) {
	if b.busDir == "" {
		// A short folder of its own: a socket path has at most 107 bytes.
		dir, err := os.MkdirTemp("", "deskpilot-bus-")
		if err != nil {
			return "", err
		}
		b.busDir = dir
	}
	p, err := startBusProxy(filepath.Join(b.busDir, strconv.Itoa(len(b.buses))), target)
	if err != nil {
		return "", err
	}
	b.buses = append(b.buses, p)
	return p.path, nil
}

// unixPath is the socket path of a D-Bus address "unix:path=P,guid=…"; "" for
// any other kind.
func unixPath(addr string) string {
	rest, ok := strings.CutPrefix(addr, "unix:")
	if !ok {
		return ""
	}
	for _, kv := range strings.Split(rest, ",") {
		if p, ok := strings.CutPrefix(kv, "path="); ok {
			return p
		}
	}
	return ""
}

// boxEnv is the environment of the task's programs, made from scratch: the
// display's few variables the harness's environment has (DISPLAY, the session
// bus, the locale), and the home, user and folders as the box has them.
// Nothing else of the harness's environment reaches the box.
func (b *box) boxEnv() []string {
	env := []string{
		"HOME=" + boxHome, "USER=" + boxUser, "LOGNAME=" + boxUser, "SHELL=/bin/bash",
		"PATH=" + boxHome + "/.local/bin:" + boxTools + ":" + strings.Join(boxSystemPath, ":"),
		"XDG_CONFIG_HOME=" + boxHome + "/.config",
		"XDG_DATA_HOME=" + boxHome + "/.local/share",
		"XDG_CACHE_HOME=" + boxHome + "/.cache",
		"XDG_STATE_HOME=" + boxHome + "/.local/state",
		"XDG_RUNTIME_DIR=" + boxRuntime,
		"XDG_CONFIG_DIRS=" + boxXDG + ":/etc/xdg",
		"XAUTHORITY=" + boxXAuth,
		"PYTHONPATH=" + boxPython,
		// GSettings in the home (desktop.go), not through a D-Bus service
		// that runs outside the box.
		"GSETTINGS_BACKEND=keyfile",
		"DESKPILOT_TASK_DIR=" + b.taskDir,
	}
	if b.d.SessionBus != "" {
		// The display's own bus (its socket is in the box), never the
		// harness's session bus.
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+b.d.SessionBus)
	}
	if _, ok := b.lookup("LANG"); !ok {
		env = append(env, "LANG=C.UTF-8")
	}
	for _, kv := range b.d.Env() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "DISPLAY", k == "LANG", k == "LANGUAGE", k == "TZ",
			strings.HasPrefix(k, "LC_"), k == "QT_LINUX_ACCESSIBILITY_ALWAYS_ON", k == "GNOME_ACCESSIBILITY":
			env = append(env, kv)
		}
	}
	return env
}

// boxPath is where a path of the harness's side is in the box: the task's
// home is /home/user there; other paths (the task's folder) are the same.
func (b *box) boxPath(p string) string {
	if rel, err := filepath.Rel(b.home, p); err == nil && filepath.IsLocal(rel) {
		return path.Join(boxHome, filepath.ToSlash(rel))
	}
	if p == b.home {
		return boxHome
	}
	return p
}

// dial connects to a TCP port on the task box's loopback (with a host
// network, the host's).
func (b *box) dial(ctx context.Context, port int) (net.Conn, error) {
	sb, err := b.sandbox()
	if err != nil {
		return nil, err
	}
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := sb.dialPort(port)
		ch <- result{c, err}
	}()
	select {
	case r := <-ch:
		return r.c, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.c != nil {
				r.c.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// agentLaunch starts a program the agent launches in the box, until the task
// ends. Arguments naming a path of the task's home are given as the harness
// sees it (Job.Home): they are the box's /home/user paths there.
func (b *box) agentLaunch(name string, args ...string) (int, error) {
	argv := []string{name}
	for _, a := range args {
		if filepath.IsAbs(a) {
			a = b.boxPath(a)
		}
		argv = append(argv, a)
	}
	p, err := b.launchProc(argv)
	if err != nil {
		return 0, err
	}
	return p.Pid, nil
}
