//go:build linux

package eval

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The box's own view of the machine: where the task's home, display authority,
// runtime folder and Python modules are inside it.
const (
	boxHome    = "/home/user"
	boxUser    = "user"
	boxUID     = 1000
	boxRun     = "/run/deskpilot"
	boxXAuth   = boxRun + "/Xauthority"
	boxPython  = boxRun + "/python"
	boxRuntime = "/run/user/1000"
	boxHost    = "deskpilot-box"
	bwrapStart = 30 * time.Second // how long the sandbox may take to come up
)

//go:embed bwrap_init.py
var boxInitSource string

// sandbox is a task's bubblewrap box: a user, mount, PID, IPC and UTS namespace
// (and a network namespace with only a loopback, unless hostNet) where every
// program of the task runs, started by the box's init (bwrap_init.py) at the
// harness's request. Its methods are safe for concurrent use.
type sandbox struct {
	bwrap *exec.Cmd
	ctl   *net.UnixConn // SOCK_SEQPACKET to the init
	done  chan struct{} // closed when bwrap exited
	out   *limitedBuffer

	mu     sync.Mutex // serializes writes on ctl
	closed bool
}

// sandboxSpec says what a box sees of the machine.
type sandboxSpec struct {
	home     string      // the task's home (host path), at /home/user
	xauth    string      // the display's authority file, at boxXAuth
	display  string      // the display's name (":N"): only /tmp/.X11-unix/XN is bound
	sockets  [][2]string // more sockets {host path, path in the box} (the session and AT-SPI buses' proxies at the buses' paths)
	roDirs   []string    // more folders bound read-only at their own path (the task's folder)
	files    string      // host folder for the box's own files (passwd, group, python modules)
	python   string      // host folder of the box's Python modules, at boxPython
	hostNet  bool        // share the host's network instead of a loopback of its own
	tmpfsAll []string    // folders that are empty tmpfs in the box
}

// bwrapArgs is bubblewrap's command line for spec: system folders read-only,
// the secrets in them masked, a private /tmp, /run and /dev, the task's home,
// and one display's socket and cookie.
func bwrapArgs(spec sandboxSpec) []string {
	a := []string{"--unshare-user", "--uid", fmt.Sprint(boxUID), "--gid", fmt.Sprint(boxUID),
		"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--hostname", boxHost,
		"--die-with-parent", "--new-session", "--cap-drop", "ALL"}
	if !spec.hostNet {
		a = append(a, "--unshare-net")
	}
	// /var/lib/dpkg: what is installed, for the box's sudo (box_sudo.py) and
	// the tasks' own dpkg queries.
	for _, d := range []string{"/usr", "/etc", "/opt", "/sys", "/var/lib/dbus", "/var/lib/dpkg", "/var/cache/fontconfig"} {
		if isDir(d) {
			a = append(a, "--ro-bind", d, d)
		}
	}
	for _, l := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		if t, err := os.Readlink(l); err == nil {
			a = append(a, "--symlink", t, l)
		} else if isDir(l) {
			a = append(a, "--ro-bind", l, l)
		}
	}
	// Secrets of the machine the box's user could read through the user
	// namespace's mapping (as root, root's files are the box user's).
	for _, f := range []string{"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers"} {
		if _, err := os.Lstat(f); err == nil {
			a = append(a, "--ro-bind", "/dev/null", f)
		}
	}
	for _, d := range []string{"/etc/ssh", "/etc/ssl/private", "/etc/sudoers.d"} {
		if isDir(d) {
			a = append(a, "--tmpfs", d)
		}
	}
	a = append(a,
		"--ro-bind", filepath.Join(spec.files, "passwd"), "/etc/passwd",
		"--ro-bind", filepath.Join(spec.files, "group"), "/etc/group",
		"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/dev/shm",
		"--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--tmpfs", "/run", "--tmpfs", "/home",
		"--dir", "/tmp/.X11-unix", "--dir", boxRun,
		"--perms", "0700", "--dir", boxRuntime,
		"--bind", spec.home, boxHome,
	)
	if spec.display != "" {
		s := "/tmp/.X11-unix/X" + strings.TrimPrefix(spec.display, ":")
		a = append(a, "--bind", s, s)
	}
	if spec.xauth != "" {
		a = append(a, "--ro-bind", spec.xauth, boxXAuth)
	}
	if spec.python != "" {
		a = append(a, "--ro-bind", spec.python, boxPython)
	}
	for _, d := range [][2]string{{"bin", boxTools}, {"xdg", boxXDG}} {
		if host := filepath.Join(spec.files, d[0]); spec.files != "" && isDir(host) {
			a = append(a, "--ro-bind", host, d[1])
		}
	}
	for _, s := range spec.sockets {
		a = append(a, "--bind", s[0], s[1])
	}
	for _, d := range spec.roDirs {
		a = append(a, "--ro-bind", d, d)
	}
	for _, d := range spec.tmpfsAll {
		a = append(a, "--tmpfs", d)
	}
	return append(a, "--chdir", boxHome, "--info-fd", "4", "--", "python3", "-I", "-c", boxInitSource)
}

// writeBoxAccounts writes the passwd and group files of the box: the
// machine's, where the user "user" (uid 1000) replaces any account of that
// name or id, so that ~user and $USER agree.
func writeBoxAccounts(dir string) error {
	user := fmt.Sprintf("%s:x:%d:%d:%s:%s:/bin/bash", boxUser, boxUID, boxUID, boxUser, boxHome)
	group := fmt.Sprintf("%s:x:%d:", boxUser, boxUID)
	for name, line := range map[string]string{"passwd": user, "group": group} {
		data, _ := os.ReadFile("/etc/" + name)
		var out []string
		for _, l := range strings.Split(string(data), "\n") {
			f := strings.Split(l, ":")
			if l == "" || len(f) < 3 || f[0] == boxUser || f[2] == fmt.Sprint(boxUID) {
				continue
			}
			out = append(out, l)
		}
		out = append(out, line, "")
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(out, "\n")), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// startSandbox starts bubblewrap for spec and waits until its namespaces are
// made. The box lives until close, or until this process dies (the init's
// control socket then closes).
func startSandbox(spec sandboxSpec) (*sandbox, error) {
	bin, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, &NotInstalledError{App: "bwrap (bubblewrap: every task runs in its box)"}
	}
	if err := writeBoxAccounts(spec.files); err != nil {
		return nil, fmt.Errorf("box: %w", err)
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("box: socketpair: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "box-ctl"), os.NewFile(uintptr(fds[1]), "box-init")
	defer theirs.Close()
	infoR, infoW, err := os.Pipe()
	if err != nil {
		ours.Close()
		return nil, fmt.Errorf("box: %w", err)
	}
	defer infoR.Close()
	cmd := exec.Command(bin, bwrapArgs(spec)...)
	// bwrap is PID 1 of the box, whose environ the task can read: it gets none
	// of the harness's variables.
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin"}
	cmd.ExtraFiles = []*os.File{theirs, infoW} // fd 3: the init's control socket; fd 4: --info-fd
	out := &limitedBuffer{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	// No Pdeathsig: Go ties it to the OS thread that started bwrap, which may
	// end before the task does. If this process dies, the init's control socket
	// closes, the init exits, and bwrap's PID 1 ends the box all the same.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	infoW.Close()
	if err != nil {
		ours.Close()
		return nil, fmt.Errorf("box: start bwrap: %w", err)
	}
	s := &sandbox{bwrap: cmd, done: make(chan struct{}), out: out}
	go func() { _ = cmd.Wait(); close(s.done) }()
	fc, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		s.kill()
		return nil, fmt.Errorf("box: %w", err)
	}
	s.ctl = fc.(*net.UnixConn)
	// bwrap writes its info once the namespaces are made; EOF without it means
	// it failed.
	info := make(chan error, 1)
	go func() {
		var v struct {
			Pid int `json:"child-pid"`
		}
		info <- json.NewDecoder(bufio.NewReader(infoR)).Decode(&v)
	}()
	select {
	case err = <-info:
	case <-time.After(bwrapStart):
		err = errors.New("no answer")
	}
	if err != nil {
		s.kill()
		<-s.done
		return nil, fmt.Errorf("box: bwrap did not start (%v): %s", err, strings.TrimSpace(out.String()))
	}
	return s, nil
}

// kill ends the box: bwrap's PID 1 dies with it and the kernel kills every
// process of the box's PID namespace.
func (s *sandbox) kill() {
	if s.ctl != nil {
		_ = s.ctl.Close()
	}
	_ = syscall.Kill(-s.bwrap.Process.Pid, syscall.SIGKILL)
}

// close ends the box and waits for bwrap to exit.
func (s *sandbox) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.kill()
	<-s.done
}

// request sends one request to the init with files attached and returns the
// harness's end of the reply socket.
func (s *sandbox) request(req any, files ...*os.File) (*net.UnixConn, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "box-reply"), os.NewFile(uintptr(fds[1]), "box-reply-init")
	defer theirs.Close()
	rights := []int{int(theirs.Fd())}
	for _, f := range files {
		rights = append(rights, int(f.Fd()))
	}
	msg, err := json.Marshal(req)
	if err != nil {
		ours.Close()
		return nil, err
	}
	s.mu.Lock()
	if s.closed {
		err = errors.New("the task's box is closed")
	} else {
		_, _, err = s.ctl.WriteMsgUnix(msg, syscall.UnixRights(rights...), nil)
	}
	s.mu.Unlock()
	if err != nil {
		ours.Close()
		return nil, fmt.Errorf("box: %w%s", err, s.ended())
	}
	c, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return nil, err
	}
	return c.(*net.UnixConn), nil
}

// ended says, when bwrap has exited, what it printed ("" while it runs).
func (s *sandbox) ended() string {
	select {
	case <-s.done:
		return fmt.Sprintf(" (the box ended: %s)", strings.TrimSpace(s.out.String()))
	default:
		return ""
	}
}

// boxReply is one message of the init.
type boxReply struct {
	Pid      int    `json:"pid"`
	Exit     *int   `json:"exit"`
	OK       bool   `json:"ok"`
	Error    string `json:"error"`
	NotFound bool   `json:"notfound"`
}

func readReply(c *net.UnixConn) (boxReply, []int, error) {
	buf := make([]byte, 64<<10)
	oob := make([]byte, syscall.CmsgSpace(4*4))
	n, oobn, _, _, err := c.ReadMsgUnix(buf, oob)
	if err != nil {
		return boxReply{}, nil, err
	}
	if n == 0 {
		return boxReply{}, nil, io.EOF
	}
	var fds []int
	if oobn > 0 {
		msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
		if err == nil {
			for _, m := range msgs {
				if got, err := syscall.ParseUnixRights(&m); err == nil {
					fds = append(fds, got...)
				}
			}
		}
	}
	var r boxReply
	if err := json.Unmarshal(buf[:n], &r); err != nil {
		for _, fd := range fds {
			syscall.Close(fd)
		}
		return boxReply{}, nil, fmt.Errorf("box: bad reply: %w", err)
	}
	return r, fds, nil
}

// boxProc is a program running in a box.
type boxProc struct {
	Pid   int // in the box's PID namespace
	reply *net.UnixConn
	done  chan struct{}
	code  int
	err   error
	once  sync.Once
}

// start runs argv in the box with env, working in dir, its standard streams
// on the given files (nil: /dev/null), in a session of its own.
func (s *sandbox) start(argv, env []string, dir string, stdin, stdout, stderr *os.File) (*boxProc, error) {
	devNull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer devNull.Close()
	pick := func(f *os.File) *os.File {
		if f == nil {
			return devNull
		}
		return f
	}
	c, err := s.request(map[string]any{"op": "run", "argv": argv, "env": env, "dir": dir}, pick(stdin), pick(stdout), pick(stderr))
	if err != nil {
		return nil, err
	}
	r, _, err := readReply(c)
	switch {
	case err != nil:
		c.Close()
		return nil, fmt.Errorf("box: the box's init did not answer: %w%s", err, s.ended())
	case r.NotFound:
		c.Close()
		return nil, &NotInstalledError{App: filepath.Base(argv[0])}
	case r.Error != "":
		c.Close()
		return nil, errors.New(r.Error)
	}
	p := &boxProc{Pid: r.Pid, reply: c, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		r, _, err := readReply(c)
		switch {
		case err != nil:
			p.code, p.err = -1, fmt.Errorf("box: lost the program (the box ended): %w", err)
		case r.Exit == nil:
			p.code, p.err = -1, errors.New("box: no exit status")
		default:
			p.code = *r.Exit
		}
	}()
	return p, nil
}

// kill kills the program's process group (programs it started in sessions of
// their own live until the box ends).
func (p *boxProc) kill() { p.once.Do(func() { _ = p.reply.Close() }) }

// wait waits for the program to exit and returns its exit code (negative:
// the signal that killed it).
func (p *boxProc) wait() (int, error) {
	<-p.done
	p.kill()
	return p.code, p.err
}

// dial connects to a TCP port on the box's loopback.
func (s *sandbox) dialPort(port int) (net.Conn, error) {
	c, err := s.request(map[string]any{"op": "dial", "port": port})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	r, fds, err := readReply(c)
	if err != nil {
		return nil, fmt.Errorf("box: dial %d: %w", port, err)
	}
	if r.Error != "" || len(fds) != 1 {
		for _, fd := range fds {
			syscall.Close(fd)
		}
		return nil, fmt.Errorf("dial 127.0.0.1:%d in the task's box: %s", port, r.Error)
	}
	f := os.NewFile(uintptr(fds[0]), "box-tcp")
	defer f.Close()
	return net.FileConn(f)
}
