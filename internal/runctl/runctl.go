// Package runctl owns the per-user control sockets of deskpilot's runs and
// MCP sessions: each one going on listens on a Unix socket in
// $XDG_RUNTIME_DIR/deskpilot/ctl, so `deskpilot stop`, the global hotkey and
// the app's strip can stop, pause or watch it from another process. The
// folder is the user's own (0700); a socket whose process is gone is removed
// by the next List.
//
// The protocol is one line each way: the client writes a command ("status",
// "stop", "pause", "resume"), the listener answers its Status as JSON (after
// acting on the command) and closes the connection.
package runctl

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The kinds of entries.
const (
	KindRun  = "run"  // a run of deskpilot's own agent (app, CLI)
	KindMCP  = "mcp"  // an MCP session: a host drives deskpilot
	KindEval = "eval" // a `deskpilot eval` of a suite, every task it runs
)

// Commands a listener understands.
const (
	CmdStatus = "status"
	CmdStop   = "stop"
	CmdPause  = "pause"
	CmdResume = "resume"
)

// Status is what an entry reports about itself.
type Status struct {
	ID      string    `json:"id"`             // the socket's name, unique on this machine for this user
	PID     int       `json:"pid"`            // the process
	Kind    string    `json:"kind"`           // KindRun, KindMCP or KindEval
	Host    string    `json:"host,omitempty"` // an MCP session's host (its clientInfo name)
	Task    string    `json:"task,omitempty"`
	Tool    string    `json:"tool,omitempty"` // the tool an MCP host is calling now; "" = idle
	Paused  bool      `json:"paused,omitempty"`
	Started time.Time `json:"started"`
}

// Controls are what an entry does on a command; nil fields ignore it.
type Controls struct {
	Stop, Pause, Resume func()
}

// maxLine bounds a command or an answer.
const maxLine = 64 << 10

// ioTimeout bounds one exchange with a listener (a hung process does not
// hold up `deskpilot stop`).
const ioTimeout = 2 * time.Second

// Dir is the control folder: $XDG_RUNTIME_DIR/deskpilot/ctl, or, without
// XDG_RUNTIME_DIR, deskpilot-<uid>/ctl in the temporary folder. getenv nil =
// os.Getenv. It is made (0700) when missing and refused when another user
// owns it or others may write to it.
func Dir(getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	base := getenv("XDG_RUNTIME_DIR")
	var dir string
	if base != "" {
		dir = filepath.Join(base, "deskpilot", "ctl")
	} else {
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("deskpilot-%d", os.Getuid()), "ctl")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("control folder: %w", err)
	}
	if err := checkOwn(filepath.Dir(dir)); err != nil {
		return "", err
	}
	if err := checkOwn(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// checkOwn refuses a folder that is not this user's alone.
func checkOwn(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("control folder: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("control folder %s is not a folder", dir)
	}
	if uid, ok := ownerOf(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("control folder %s belongs to another user", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("control folder %s is open to others: %w", dir, err)
		}
	}
	return nil
}

// Registry registers a process's entries in one folder and tells how many are
// open (the Stop key is grabbed while any is).
type Registry struct {
	// Dir is the control folder (Dir()).
	Dir string
	// Active, when set, is called with the number of the registry's open
	// entries after each Register and Close, one call at a time.
	Active func(n int)

	mu   sync.Mutex
	open int
}

func (g *Registry) changed(delta int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open += delta
	if g.Active != nil {
		g.Active(g.open)
	}
}

// Register starts listening for st in the registry's folder (Register).
func (g *Registry) Register(st Status, c Controls) (*Entry, error) {
	e, err := Register(g.Dir, st, c)
	if err != nil {
		return nil, err
	}
	e.reg = g
	g.changed(1)
	return e, nil
}

// Entry is one registered run or session, listening until Close.
type Entry struct {
	reg  *Registry
	ln   net.Listener
	path string
	c    Controls

	mu sync.Mutex
	st Status

	closed atomic.Bool
	done   chan struct{}
}

// Register starts listening for st (its ID and PID are set here) in dir and
// acting on commands with c.
func Register(dir string, st Status, c Controls) (*Entry, error) {
	st.PID = os.Getpid()
	var b [6]byte
	_, _ = rand.Read(b[:])
	st.ID = fmt.Sprintf("%d-%s", st.PID, hex.EncodeToString(b[:]))
	if st.Started.IsZero() {
		st.Started = time.Now()
	}
	path := filepath.Join(dir, st.ID+".sock")
	_ = os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	_ = os.Chmod(path, 0o600)
	e := &Entry{ln: ln, path: path, c: c, st: st, done: make(chan struct{})}
	go e.serve()
	return e, nil
}

// Update changes the status the entry reports (the tool now called, paused).
// Safe from any goroutine.
func (e *Entry) Update(f func(*Status)) {
	e.mu.Lock()
	f(&e.st)
	e.mu.Unlock()
}

// Status is the entry's status now.
func (e *Entry) Status() Status {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.st
}

// Close stops listening and removes the socket. Safe twice.
func (e *Entry) Close() error {
	if !e.closed.CompareAndSwap(false, true) {
		return nil
	}
	err := e.ln.Close()
	<-e.done
	_ = os.Remove(e.path)
	if e.reg != nil {
		e.reg.changed(-1)
	}
	return err
}

func (e *Entry) serve() {
	defer close(e.done)
	for {
		conn, err := e.ln.Accept()
		if err != nil {
			return
		}
		go e.answer(conn)
	}
}

// answer reads one command, acts on it and writes the status.
func (e *Entry) answer(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(ioTimeout))
	line, err := bufio.NewReaderSize(&limited{r: conn, n: maxLine}, 512).ReadString('\n')
	if err != nil && line == "" {
		return
	}
	var act func()
	switch strings.TrimSpace(line) {
	case CmdStatus:
	case CmdStop:
		act = e.c.Stop
	case CmdPause:
		act = e.c.Pause
	case CmdResume:
		act = e.c.Resume
	default:
		fmt.Fprintln(conn, `{"error":"unknown command"}`)
		return
	}
	if act != nil {
		act()
	}
	data, _ := json.Marshal(e.Status())
	_, _ = conn.Write(append(data, '\n'))
}

// limited reads at most n bytes.
type limited struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

func (l *limited) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errors.New("line too long")
	}
	if len(p) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= n
	return n, err
}

// Send sends cmd to the entry id in dir and returns its status.
func Send(ctx context.Context, dir, id, cmd string) (Status, error) {
	var d net.Dialer
	ctx, cancel := context.WithTimeout(ctx, ioTimeout)
	defer cancel()
	conn, err := d.DialContext(ctx, "unix", filepath.Join(dir, id+".sock"))
	if err != nil {
		return Status{}, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if _, err := fmt.Fprintln(conn, cmd); err != nil {
		return Status{}, err
	}
	line, err := bufio.NewReaderSize(&limited{r: conn, n: maxLine}, 4096).ReadString('\n')
	if err != nil && line == "" {
		return Status{}, fmt.Errorf("control %s: %w", id, err)
	}
	var st Status
	if err := json.Unmarshal([]byte(line), &st); err != nil {
		return Status{}, fmt.Errorf("control %s: bad answer: %w", id, err)
	}
	if st.ID == "" {
		return Status{}, fmt.Errorf("control %s: %s", id, strings.TrimSpace(line))
	}
	return st, nil
}

// List returns the entries listening in dir, oldest first. A socket nobody
// listens on any more (its process died) is removed.
func List(ctx context.Context, dir string) ([]Status, error) {
	names, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("control folder: %w", err)
	}
	var out []Status
	for _, n := range names {
		id, ok := strings.CutSuffix(n.Name(), ".sock")
		if !ok {
			continue
		}
		st, err := Send(ctx, dir, id, CmdStatus)
		if err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, os.ErrNotExist) {
				_ = os.Remove(filepath.Join(dir, n.Name()))
			}
			continue
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out, nil
}

// StopAll stops every entry in dir and returns the ones it stopped.
func StopAll(ctx context.Context, dir string) ([]Status, error) {
	all, err := List(ctx, dir)
	if err != nil {
		return nil, err
	}
	var stopped []Status
	var errs []error
	for _, st := range all {
		if _, err := Send(ctx, dir, st.ID, CmdStop); err != nil {
			errs = append(errs, err)
			continue
		}
		stopped = append(stopped, st)
	}
	return stopped, errors.Join(errs...)
}
