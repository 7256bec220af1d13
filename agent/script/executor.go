package script

import (
	"deskpilot/actions"

	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.starlark.net/lib/json"
	"go.starlark.net/lib/math"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Defaults of Options.
const (
	DefaultMaxSteps  = 10_000_000
	DefaultTimeout   = 30 * time.Second
	DefaultMaxOutput = 50_000
)

// Options are the per-block limits of an Executor. The zero value is the
// defaults.
type Options struct {
	// MaxSteps caps the Starlark execution steps of one block; 0 means
	// DefaultMaxSteps (10,000,000).
	MaxSteps uint64
	// Timeout caps the running time of one block, not counting time in
	// Call.Sleep (wait) or Call.Untimed; 0 means DefaultTimeout (30 s), a
	// negative value no limit.
	Timeout time.Duration
	// MaxOutput caps the printed output kept per block, in characters
	// (runes); beyond it the middle is cut out with a notice. 0 means
	// DefaultMaxOutput (50,000), a negative value no limit.
	MaxOutput int
	// Now stamps actions (Call.Now); nil means time.Now.
	Now func() time.Time
	// Redact, when set, filters every text a tool hands the code: each
	// string in its result, and its error (the agent's secret.Redactor, so
	// code never holds a secret read back from the screen or a file).
	Redact func(string) string
	// Modules, when set, returns extra modules for the code's globals (a
	// dialect's pyautogui), built over call, which runs one of the Executor's
	// tools by name as the code would (guard, logging and limits included).
	// Their names are protected like the tools'.
	Modules func(call func(th *starlark.Thread, tool string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)) starlark.StringDict
}

// Result is what one block did. Output and Actions are kept whatever the
// outcome; at most one of Err and Final is set.
type Result struct {
	Output      string           // printed text, middle-truncated past Options.MaxOutput
	Err         *Error           // why the block stopped early; nil when it ran to the end or answered
	Final       *Final           // set when the block called final_answer
	Actions     []actions.Record // primitives the tools executed, in order
	Attachments []Attachment     // images for the next observation, in order
	Steps       uint64           // Starlark execution steps used
}

// Error kinds.
const (
	KindSyntax    = "syntax"    // the block did not compile: parse, name or assignment errors; nothing ran
	KindRuntime   = "runtime"   // a statement failed; the statements before it ran
	KindLimit     = "limit"     // the block hit the step or time limit
	KindCancelled = "cancelled" // the block was cancelled (ctx or Executor.Cancel)
)

// Error is why a block stopped early, written for the model: Msg holds the
// position, the message, the failing source line, the innermost frame and a
// hint where one helps.
type Error struct {
	Kind string // KindSyntax, KindRuntime, KindLimit or KindCancelled
	Line int    // 1-based line in the block; 0 when unknown
	Col  int    // 1-based column; 0 when unknown
	Msg  string
}

// Error returns Msg.
func (e *Error) Error() string { return e.Msg }

// Final is the answer given to final_answer: a string as-is, any other value
// as its str().
type Final struct{ Value string }

// Executor runs the model's code blocks in one persistent Starlark
// environment: globals and functions of one block are there in the next.
// Exec calls are serialised; Stubs and Cancel are safe from any goroutine.
type Executor struct {
	opts      Options
	fileOpts  *syntax.FileOptions
	tools     []*Tool
	protected map[string]string // name -> "tool" | "module"
	defaults  map[string][]starlark.Value
	stubs     string

	mu      sync.Mutex // serialises Exec; guards the fields below
	globals starlark.StringDict
	defs    defTable
	blocks  int

	cur atomic.Pointer[run] // the block running now, for Cancel
}

// New returns an Executor with the given tools plus final_answer, and the
// modules math and json. It panics on a programming error in tools: a
// duplicate or invalid name, a bad parameter list or Default, a nil Fn.
func New(o Options, tools ...Tool) *Executor {
	e := &Executor{
		opts: o,
		fileOpts: &syntax.FileOptions{
			While: true, Recursion: true, Set: true, GlobalReassign: true, TopLevelControl: true,
		},
		protected: map[string]string{"math": "module", "json": "module"},
		defaults:  map[string][]starlark.Value{},
		globals:   starlark.StringDict{"math": math.Module, "json": json.Module},
	}
	all := append(append([]Tool(nil), tools...), finalAnswerTool())
	for i := range all {
		t := &all[i]
		if err := e.register(t); err != nil {
			panic(fmt.Sprintf("script: %v", err))
		}
	}
	if o.Modules != nil {
		for name, m := range o.Modules(e.callTool) {
			if e.protected[name] != "" {
				panic(fmt.Sprintf("script: module %q would hide a tool or module of that name", name))
			}
			e.protected[name] = "module"
			e.globals[name] = m
		}
	}
	e.stubs = renderStubs(e.tools)
	return e
}

// callTool runs the registered tool called name on th, as a call from the code.
func (e *Executor) callTool(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if e.protected[name] != "tool" {
		return nil, fmt.Errorf("%s is not a tool", name)
	}
	return starlark.Call(th, e.globals[name], args, kwargs)
}

// Close does nothing: an Executor holds no process (Sandbox does).
func (e *Executor) Close() error { return nil }

// Kind returns the kind of the registered tool called name; "" for any other name.
func (e *Executor) Kind(name string) Kind {
	if t := e.tool(name); t != nil {
		return t.Kind
	}
	return ""
}

// Stubs returns every tool as a Python-style stub with a docstring, grouped,
// followed by notes on the modules and the language; the system prompt uses
// it verbatim.
func (e *Executor) Stubs() string { return e.stubs }

// Cancel stops the block running now, if any, promptly (including one in
// wait); its Result has Kind cancelled. Later blocks are not affected. Safe
// from any goroutine.
func (e *Executor) Cancel() {
	if r := e.cur.Load(); r != nil {
		r.stop(stopCancel)
	}
}

// Exec parses and runs one block of code, keeping its globals for the next
// block. Failures the model can fix come back in Result.Err; Exec itself
// never fails. It blocks until the block ends; cancelling ctx ends it
// promptly.
func (e *Executor) Exec(ctx context.Context, code string) Result {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.blocks++
	name := fmt.Sprintf("block%d", e.blocks)
	if ctx.Err() != nil {
		return Result{Err: &Error{Kind: KindCancelled, Msg: "cancelled: the run was stopped before this block started"}}
	}
	f, err := e.fileOpts.Parse(name, code, 0)
	if err != nil {
		return Result{Err: syntaxError(err, code)}
	}
	if err := e.check(f, code); err != nil {
		return Result{Err: err}
	}
	merged, err := e.defs.prepend(e.fileOpts, f)
	if err != nil {
		merged = f // a stale definition no longer parses: run the block alone
	}

	r := e.newRun(ctx, name)
	e.cur.Store(r)
	err = execChunk(merged, r.thread, e.globals)
	if merged != f && resolveFailedOutside(err, name) {
		// A refreshed definition failed to resolve, so nothing ran: run the
		// block without the refresh.
		f, _ = e.fileOpts.Parse(name, code, 0)
		merged = f
		err = execChunk(f, r.thread, e.globals)
	}
	e.cur.Store(nil)
	r.end()
	e.defs.update(merged, name, code, e.globals)
	return e.result(r, err, code)
}

// execChunk runs f, turning a panic inside the interpreter into an error so
// a bad block can never crash the app.
func execChunk(f *syntax.File, th *starlark.Thread, globals starlark.StringDict) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error in the interpreter: %v", p)
		}
	}()
	return starlark.ExecREPLChunk(f, th, globals)
}

// stopKind says why a block was stopped before its end.
type stopKind int32

const (
	running stopKind = iota
	stopFinal
	stopTime
	stopSteps
	stopCancel
	stopDone // the block ended on its own; later stops are ignored
)

var (
	errFinal     = errors.New("final_answer called")
	errTimeLimit = errors.New("time limit reached")
	errStepLimit = errors.New("step limit reached")
	errCancelled = errors.New("cancelled")
)

func (k stopKind) cause() error {
	switch k {
	case stopFinal:
		return errFinal
	case stopTime:
		return errTimeLimit
	case stopSteps:
		return errStepLimit
	}
	return errCancelled
}

// run is the state of one Exec.
type run struct {
	exec     *Executor
	name     string // file name of the block, "blockN"
	thread   *starlark.Thread
	parent   context.Context // Exec's ctx
	ctx      context.Context // parent + stop; Call.Ctx
	cancel   context.CancelCauseFunc
	clock    *clock
	stopCtx  func() bool // unregisters the ctx watcher
	reason   atomic.Int32
	out      output // written on the thread's goroutine only
	mu       sync.Mutex
	final    *Final
	actions  []actions.Record
	attached []Attachment
}

const runKey = "deskpilot/agent/script.run"

func (e *Executor) newRun(ctx context.Context, name string) *run {
	r := &run{exec: e, name: name, parent: ctx, out: output{limit: e.maxOutput()}}
	r.ctx, r.cancel = context.WithCancelCause(ctx)
	r.thread = &starlark.Thread{
		Name:  name,
		Print: func(_ *starlark.Thread, msg string) { r.out.write(msg + "\n") },
		Load: func(*starlark.Thread, string) (starlark.StringDict, error) {
			return nil, errors.New(loadRefusal)
		},
		OnMaxSteps: func(*starlark.Thread) { r.stop(stopSteps) },
	}
	r.thread.SetMaxExecutionSteps(e.maxSteps())
	r.thread.SetLocal(runKey, r)
	r.stopCtx = context.AfterFunc(ctx, func() { r.stop(stopCancel) })
	r.clock = startClock(e.timeout(), func() { r.stop(stopTime) })
	return r
}

// stop ends the block for reason k; the first reason wins. Safe from any
// goroutine.
func (r *run) stop(k stopKind) {
	if !r.reason.CompareAndSwap(int32(running), int32(k)) {
		return
	}
	if r.thread != nil {
		r.thread.Cancel(k.cause().Error())
	}
	r.cancel(k.cause())
}

// end releases the block's timer and context after the thread returned.
func (r *run) end() {
	r.clock.stop()
	r.stopCtx()
	if r.parent.Err() != nil {
		r.reason.CompareAndSwap(int32(running), int32(stopCancel)) // ctx ended before its watcher ran
	}
	r.reason.CompareAndSwap(int32(running), int32(stopDone))
	r.cancel(context.Canceled)
}

func (r *run) now() time.Time {
	if r.exec.opts.Now != nil {
		return r.exec.opts.Now()
	}
	return time.Now()
}

func (e *Executor) result(r *run, err error, src string) Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := Result{
		Output:      r.out.String(),
		Final:       r.final,
		Actions:     r.actions,
		Attachments: r.attached,
		Steps:       r.thread.ExecutionSteps(),
	}
	if res.Final != nil || err == nil {
		return res
	}
	res.Err = e.classify(r, err, src)
	res.Err.Msg = capText(res.Err.Msg, maxErrorChars)
	return res
}

// maxErrorChars bounds a block's error message, in bytes: fail() of a huge
// value would otherwise carry all of it to the model.
const maxErrorChars = 16_000

// capText middle-cuts s to about n bytes, saying how much was left out.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := cutUTF8(s, n/2), s[len(s)-n/2:]
	for len(tail) > 0 && !startsRune(tail) {
		tail = tail[1:]
	}
	return fmt.Sprintf("%s\n…[%s bytes left out]…\n%s", head, thousands(len(s)-len(head)-len(tail)), tail)
}

func (e *Executor) maxSteps() uint64 {
	if e.opts.MaxSteps == 0 {
		return DefaultMaxSteps
	}
	return e.opts.MaxSteps
}

func (e *Executor) timeout() time.Duration {
	switch {
	case e.opts.Timeout == 0:
		return DefaultTimeout
	case e.opts.Timeout < 0:
		return 0
	}
	return e.opts.Timeout
}

func (e *Executor) maxOutput() int {
	switch {
	case e.opts.MaxOutput == 0:
		return DefaultMaxOutput
	case e.opts.MaxOutput < 0:
		return 0
	}
	return e.opts.MaxOutput
}
