package script

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Sandbox runs the model's code in a child process — the running program
// started again in sandbox mode (ServeIfChild) — and its tools here. The child
// lives for the whole run, so globals survive from block to block; every tool
// call crosses over to this process, where the tools' implementations, the
// guard and the logs are. The boundary is what makes hostile code harmless to
// the agent:
//
//   - a crash of the interpreter (a stack overflow from nesting without end)
//     kills the child, not the agent;
//   - the child's memory is bounded: a watchdog here reads the memory it
//     allocated (its resident anonymous memory, residentBytes) every
//     memoryPoll and kills it past SandboxOptions.Memory, and its Go runtime's
//     soft limit is 90% of that, so its garbage collector works to stay below
//     (memory touched faster than the watchdog reads can overshoot by what
//     the code allocates in one memoryPoll);
//   - Cancel and ctx end a block within CancelGrace even when the code is
//     stuck in one long operation (str() of a huge value): the child is killed;
//   - the child's environment is empty: no secret reaches it.
//
// After the child died, the block's Result says so (its variables were lost)
// and the next Exec starts a fresh one. Exec calls are serialised; Stubs, Kind
// and Cancel are safe from any goroutine.
type Sandbox struct {
	host *Executor // the tools; it never runs code
	o    SandboxOptions
	mu   sync.Mutex // serialises Exec and guards proc
	proc *process

	cancelMu sync.Mutex
	cancel   context.CancelFunc // the running block's
}

// SandboxOptions configure a Sandbox.
type SandboxOptions struct {
	Options // the block limits, enforced in the child; Modules is ignored (see Modules below)
	// Memory caps the memory the child allocates (its resident anonymous
	// memory: the program's own pages, shared with this process, do not
	// count); 0 = DefaultMemory. Less than MinMemory is raised to it.
	Memory int64
	// Modules names the module set the child builds (ModuleSets); "" = none.
	Modules string
	// Command makes the command that starts the child; nil = this program
	// again. Its environment is replaced by the sandbox's.
	Command func() (*exec.Cmd, error)
}

// Limits of the sandbox.
const (
	DefaultMemory = 512 << 20
	// MinMemory is the smallest cap real code runs under (TestMinMemoryRunsRealCode):
	// the child's runtime and interpreter take about 10 MiB of it.
	MinMemory = 64 << 20
	// CancelGrace is how long a cancelled block may take to stop on its own
	// before its process is killed.
	CancelGrace = 300 * time.Millisecond
	// timeGrace is how far past its time limit a block may run without
	// handing control back before its process is killed.
	timeGrace = 2 * time.Second
	// memoryPoll is how often the watchdog reads the child's memory.
	memoryPoll = 25 * time.Millisecond
)

// NewSandbox returns a Sandbox for the tools (plus final_answer). The child
// starts with the first Exec. It panics on a programming error in tools, as
// New does.
func NewSandbox(o SandboxOptions, tools ...Tool) *Sandbox {
	host := o.Options
	host.Modules = nil
	return &Sandbox{host: New(host, tools...), o: o}
}

// Rebind serves the calls of the blocks to come with tools instead of those
// the Sandbox was made with, keeping the child and the globals it holds (a
// follow-up turn continues the code's state with the next run's desktop). It
// reports false, and changes nothing, when the tools differ from the child's
// in names, parameters or kinds. Call it only while nothing else uses the
// Sandbox.
func (s *Sandbox) Rebind(tools ...Tool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	opts := s.o.Options
	opts.Modules = nil
	host := New(opts, tools...)
	if host.Stubs() != s.host.Stubs() || len(host.tools) != len(s.host.tools) {
		return false
	}
	for i, t := range host.tools {
		if o := s.host.tools[i]; t.Name != o.Name || t.Kind != o.Kind {
			return false
		}
	}
	s.host = host
	return true
}

// Alive reports whether the child is running (holding the globals of the
// blocks so far).
func (s *Sandbox) Alive() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc != nil
}

// Stubs returns the tools' stubs (Executor.Stubs).
func (s *Sandbox) Stubs() string { return s.host.Stubs() }

// Kind returns the kind of the tool called name (Executor.Kind).
func (s *Sandbox) Kind(name string) Kind { return s.host.Kind(name) }

// Cancel stops the block running now, if any.
func (s *Sandbox) Cancel() {
	s.cancelMu.Lock()
	defer s.cancelMu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// Close ends the child process. Safe twice.
func (s *Sandbox) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		s.proc.kill("closed")
		<-s.proc.done
		s.proc = nil
	}
	return nil
}

// Exec runs one block in the child, its tool calls here.
func (s *Sandbox) Exec(ctx context.Context, code string) Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ctx.Err() != nil {
		return Result{Err: &Error{Kind: KindCancelled, Msg: "cancelled: the run was stopped before this block started"}}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.cancelMu.Lock()
	s.cancel = cancel
	s.cancelMu.Unlock()
	defer func() {
		s.cancelMu.Lock()
		s.cancel = nil
		s.cancelMu.Unlock()
	}()
	if s.proc == nil {
		p, err := s.start()
		if err != nil {
			return Result{Err: &Error{Kind: KindRuntime, Msg: "error: the code's sandbox could not start: " + err.Error()}}
		}
		s.proc = p
	}
	res, alive := s.run(ctx, code)
	if !alive {
		s.proc = nil
	}
	return res
}

// run sends one block and serves its tool calls until its result comes or the
// child dies; alive reports whether the child can take the next block.
func (s *Sandbox) run(ctx context.Context, code string) (Result, bool) {
	p := s.proc
	r := s.host.hostRun(ctx)
	defer r.cancel(context.Canceled)
	if err := p.c.send(message{Exec: &execMsg{Code: code}}); err != nil {
		p.kill("unreachable")
		return s.lost(r, p, "the code's process does not answer"), false
	}
	timeout := s.host.timeout()
	var childTime time.Duration // time the child worked, tool calls excluded
	lastStart := time.Now()
	var grace <-chan time.Time
	for {
		var backstop <-chan time.Time
		if timeout > 0 {
			backstop = time.After(timeout + timeGrace - childTime - time.Since(lastStart))
		}
		select {
		case m, ok := <-p.msgs:
			if !ok {
				return s.lost(r, p, ""), false
			}
			switch {
			case m.Call != nil:
				childTime += time.Since(lastStart)
				rep := s.call(r, m.Call)
				if err := p.c.send(message{Reply: &rep}); err != nil {
					p.kill("unreachable")
				}
				lastStart = time.Now()
			case m.Result != nil:
				return s.result(r, m.Result), true
			}
		case <-ctx.Done():
			if grace == nil {
				_ = p.c.send(message{Cancel: true})
				grace = time.After(CancelGrace)
			}
		case <-grace:
			p.kill("cancelled")
		case <-backstop:
			p.kill("time")
		}
	}
}

// call runs one tool call of the child's block here.
func (s *Sandbox) call(r *run, m *callMsg) replyMsg {
	rep := replyMsg{ID: m.ID}
	t := s.host.tool(m.Name)
	if t == nil {
		rep.Err = fmt.Sprintf("%s: not a tool", m.Name)
		return rep
	}
	args, kwargs, err := tupleFromWire(m.Args, m.Kwargs)
	if err != nil {
		rep.Err = fmt.Sprintf("%s: %v", m.Name, err)
		return rep
	}
	defer r.beginCall(m.Left)()
	start, paused := time.Now(), r.clock.pausedTotal()
	v, err := invoke(r, t, args, kwargs)
	rep.Timed = time.Since(start) - (r.clock.pausedTotal() - paused)
	switch {
	case r.parent.Err() != nil:
		rep.Stopped = "cancel"
	case errors.Is(context.Cause(r.ctx), errTimeLimit):
		rep.Stopped = "time"
	}
	if err != nil {
		rep.Err = err.Error()
		return rep
	}
	w, err := toWire(v, 0)
	if err != nil {
		rep.Err = fmt.Sprintf("%s: its result cannot be passed back: %v", m.Name, err)
		return rep
	}
	rep.Value = &w
	return rep
}

// result joins the child's account of a block with the actions and images
// its tool calls left here.
func (s *Sandbox) result(r *run, m *resultMsg) Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Result{Output: m.Output, Err: m.Err, Final: m.Final, Steps: m.Steps, Actions: r.actions, Attachments: r.attached}
}

// lost is the Result of a block whose process died; why is the kill reason
// or, for a crash, "".
func (s *Sandbox) lost(r *run, p *process, why string) Result {
	<-p.done
	if why == "" {
		why = p.reason()
	}
	var e Error
	switch why {
	case "memory":
		e = Error{Kind: KindLimit, Msg: fmt.Sprintf("error: the code used more than %d MiB of memory, so its process was stopped and its variables were lost; work with smaller values and define your variables again", s.memory()>>20)}
	case "time":
		e = Error{Kind: KindLimit, Msg: fmt.Sprintf("error: the code ran past the %s time limit inside one operation, so its process was stopped and its variables were lost; define your variables again", s.host.timeout())}
	case "cancelled", "closed":
		e = Error{Kind: KindCancelled, Msg: "cancelled: the run was stopped"}
	case "frame":
		e = Error{Kind: KindLimit, Msg: "error: the code's process sent a " + tooLarge(p.c.tooBig.Load(), maxChildFrame).Error() +
			", so it was stopped and its variables were lost; pass less at a time and define your variables again"}
	default:
		e = Error{Kind: KindRuntime, Msg: "error: the code's process crashed" + p.crashNote() + ": variables were lost; define them again before using them"}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return Result{Err: &e, Actions: r.actions, Attachments: r.attached}
}

func (s *Sandbox) memory() int64 {
	if s.o.Memory > 0 {
		return max(s.o.Memory, MinMemory)
	}
	return DefaultMemory
}

// start starts a child and sends it the tools and limits.
func (s *Sandbox) start() (*process, error) {
	var cmd *exec.Cmd
	if s.o.Command != nil {
		c, err := s.o.Command()
		if err != nil {
			return nil, err
		}
		cmd = c
	} else {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		// The argument is for test binaries: one whose TestMain does not
		// call ServeIfChild runs no tests and exits, instead of running its
		// tests again (and their sandboxes) as a child. deskpilot itself
		// never reads it: ServeIfChild runs before the command line is parsed.
		cmd = exec.Command(self, "-test.run=^$")
	}
	cmd.Env = childEnv()
	p, err := startProcess(cmd, s.memory())
	if err != nil {
		return nil, err
	}
	init := initMsg{MaxSteps: s.host.maxSteps(), Timeout: s.host.timeout(), MaxOutput: s.host.maxOutput(),
		Memory: s.memory() * 9 / 10, Modules: s.o.Modules}
	if init.Timeout == 0 {
		init.Timeout = -1
	}
	if init.MaxOutput == 0 {
		init.MaxOutput = -1
	}
	for _, t := range s.host.tools {
		init.Tools = append(init.Tools, toolSpec{Name: t.Name, Params: t.Params, Kind: t.Kind})
	}
	if err := p.c.send(message{Init: &init}); err != nil {
		p.kill("unreachable")
		return nil, err
	}
	select {
	case m, ok := <-p.msgs:
		switch {
		case ok && m.Result != nil && m.Result.Ready:
			return p, nil
		case ok && m.Result != nil && m.Result.Fatal != "":
			p.kill("setup")
			return nil, errors.New(m.Result.Fatal)
		}
		p.kill("setup")
		<-p.done
		return nil, fmt.Errorf("the sandbox process did not start%s", p.crashNote())
	case <-time.After(20 * time.Second):
		p.kill("setup")
		return nil, errors.New("the sandbox process did not answer")
	}
}

// childEnv is the whole environment of a child: the sandbox marker, and on
// Windows what a Go program needs to start. No secret is in it.
func childEnv() []string {
	env := []string{sandboxEnv + "=1", "GOTRACEBACK=single"}
	if runtime.GOOS == "windows" {
		env = append(env, "SYSTEMROOT="+os.Getenv("SYSTEMROOT"))
	}
	return env
}

// hostRun is the state of a block that runs in a sandbox child, kept here for
// the tools it calls: their context, clock (for untimed spans) and logs.
func (e *Executor) hostRun(ctx context.Context) *run {
	r := &run{exec: e, name: "sandbox", parent: ctx}
	r.ctx, r.cancel = context.WithCancelCause(ctx)
	r.clock = startClock(0, nil)
	return r
}

// beginCall gives the call the child is about to have run here its own
// context and clock: the block's time left (0 = no limit) as its deadline,
// untimed spans aside, and Stop through the block's context. What it returns
// ends them.
func (r *run) beginCall(left time.Duration) (end func()) {
	ctx, cancel := context.WithCancelCause(r.parent)
	var clk *clock
	if left > 0 {
		clk = startClock(left, func() { cancel(errTimeLimit) })
	} else {
		clk = startClock(0, nil)
	}
	blockCtx, blockCancel, blockClock := r.ctx, r.cancel, r.clock
	r.ctx, r.cancel, r.clock = ctx, cancel, clk
	return func() {
		clk.stop()
		cancel(context.Canceled)
		r.ctx, r.cancel, r.clock = blockCtx, blockCancel, blockClock
	}
}

// tool returns the registered tool called name, or nil.
func (e *Executor) tool(name string) *Tool {
	for _, t := range e.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// process is one sandbox child.
type process struct {
	cmd    *exec.Cmd
	c      *conn
	msgs   chan message // from the child; closed when its output ends
	done   chan struct{}
	stderr *head

	mu  sync.Mutex
	why string // why it was killed; "" = it died by itself
}

// startProcess starts cmd with pipes, a reader of its messages and a memory
// watchdog.
func startProcess(cmd *exec.Cmd, memory int64) (*process, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, msgs: make(chan message), done: make(chan struct{}), stderr: &head{max: 4096}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.c = &conn{r: stdout, w: stdin, in: maxChildFrame, out: maxFrame}
	go func() {
		defer close(p.msgs)
		for {
			m, err := p.c.recv()
			if err != nil {
				if errors.Is(err, errFrame) {
					p.kill("frame")
				}
				return
			}
			select {
			case p.msgs <- m:
			case <-p.done:
				return
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	go p.watchMemory(memory)
	return p, nil
}

// watchMemory kills the child once the memory it allocated passes limit.
func (p *process) watchMemory(limit int64) {
	t := time.NewTicker(memoryPoll)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			if rss, ok := residentBytes(p.cmd.Process.Pid); ok && rss > limit {
				p.kill("memory")
				return
			}
		}
	}
}

// kill ends the child for a reason (the first reason is kept).
func (p *process) kill(why string) {
	p.mu.Lock()
	if p.why == "" {
		p.why = why
	}
	p.mu.Unlock()
	_ = p.cmd.Process.Kill()
}

func (p *process) reason() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.why
}

// crashNote is the first useful line the child wrote before dying, as
// " (…)", or "".
func (p *process) crashNote() string {
	for _, line := range strings.Split(p.stderr.String(), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "goroutine ") {
			if len(line) > 200 {
				line = line[:200]
			}
			return " (" + line + ")"
		}
	}
	return ""
}

// head keeps the first max bytes written to it: a crash report's first lines
// say what happened, the thousands of stack lines after them do not.
type head struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (h *head) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.max - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

func (h *head) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return string(h.b)
}
