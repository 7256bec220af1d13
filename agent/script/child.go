package script

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.starlark.net/starlark"
)

// sandboxEnv marks a process started as a sandbox child (Sandbox starts the
// running binary again with it set, and nothing else in its environment).
const sandboxEnv = "DESKPILOT_SANDBOX_CHILD"

// ModuleSets builds named module sets (script.Options.Modules) in a sandbox
// child, which knows them only by the name its parent sends (a dialect's).
type ModuleSets func(name string) (func(call func(th *starlark.Thread, tool string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)) starlark.StringDict, error)

// ServeIfChild makes this process a sandbox child when it was started as one:
// it serves its parent over standard input and output and exits; otherwise it
// returns at once. Call it first thing in main (and in the TestMain of tests
// that run a Sandbox: the child is the test binary).
func ServeIfChild(sets ModuleSets) {
	if os.Getenv(sandboxEnv) != "1" {
		return
	}
	os.Exit(serveChild(os.Stdin, os.Stdout, sets))
}

// childMaxStack bounds the interpreter's goroutine stack in the child, so code
// nesting without end (json.decode("[" * 5000000)) crashes the child quickly
// rather than after growing a gigabyte of stack.
const childMaxStack = 64 << 20

// serveChild runs the child's side of the protocol until its input ends.
func serveChild(in io.Reader, out io.Writer, sets ModuleSets) int {
	debug.SetMaxStack(childMaxStack)
	c := &conn{r: in, w: out, in: maxFrame, out: maxChildFrame}
	first, err := c.recv()
	if err != nil || first.Init == nil {
		return 2
	}
	ch := &child{c: c, replies: make(chan replyMsg)}
	e, err := ch.executor(*first.Init, sets)
	if err != nil {
		_ = c.send(message{Result: &resultMsg{Fatal: err.Error()}})
		return 2
	}
	if err := c.send(message{Result: &resultMsg{Ready: true}}); err != nil {
		return 2
	}
	var running sync.WaitGroup
	for {
		m, err := c.recv()
		if err != nil {
			e.Cancel()
			running.Wait()
			return 0
		}
		switch {
		case m.Exec != nil:
			running.Wait()
			running.Add(1)
			go func(code string) {
				defer running.Done()
				res := e.Exec(context.Background(), code)
				err := c.send(message{Result: &resultMsg{Output: res.Output, Err: res.Err, Final: res.Final, Steps: res.Steps}})
				if errors.Is(err, errTooBig) {
					// The parent must hear how the block ended, or it waits.
					_ = c.send(message{Result: &resultMsg{Steps: res.Steps, Err: &Error{Kind: KindLimit,
						Msg: "error: the block's " + err.Error() + " to pass on; print and return less"}}})
				}
			}(m.Exec.Code)
		case m.Cancel:
			e.Cancel()
		case m.Reply != nil && m.Reply.ID == ch.waiting.Load():
			// A reply nobody waits for (to a call cancelled meanwhile) is dropped.
			select {
			case ch.replies <- *m.Reply:
			case <-time.After(time.Second):
			}
		}
	}
}

// child is the sandbox process's state.
type child struct {
	c       *conn
	replies chan replyMsg
	calls   int64        // calls forwarded so far; used on the block's goroutine only
	waiting atomic.Int64 // the call whose reply forward waits for; 0 = none
}

// executor builds the child's executor: a proxy for every tool of the
// parent, the parent's limits, and the named modules.
func (ch *child) executor(init initMsg, sets ModuleSets) (*Executor, error) {
	if init.Memory > 0 {
		debug.SetMemoryLimit(init.Memory)
	}
	opts := Options{MaxSteps: init.MaxSteps, Timeout: init.Timeout, MaxOutput: init.MaxOutput}
	if init.Modules != "" {
		if sets == nil {
			return nil, fmt.Errorf("no module sets here for %q", init.Modules)
		}
		m, err := sets(init.Modules)
		if err != nil {
			return nil, err
		}
		opts.Modules = m
	}
	var tools []Tool
	own := finalAnswerTool()
	for _, s := range init.Tools {
		if s.Name == own.Name {
			continue // the child's own
		}
		tools = append(tools, Tool{Name: s.Name, Params: s.Params, Kind: s.Kind, Fn: ch.forward})
	}
	var e *Executor
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("%v", p)
			}
		}()
		e = New(opts, tools...)
		return nil
	}()
	return e, err
}

// forward runs a tool call in the parent: the arguments go over, the block
// waits (its clock stopped), and the part of the call the parent timed is
// charged to the block's time limit.
func (ch *child) forward(c *Call, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	pos, kw, err := tupleToWire(args, kwargs)
	if err != nil {
		return nil, err
	}
	ch.calls++
	id := ch.calls
	ch.waiting.Store(id)
	defer ch.waiting.Store(0)
	resume := c.Untimed()
	var left time.Duration
	if l, ok := c.TimeLeft(); ok {
		left = max(l, time.Nanosecond)
	}
	if err := ch.c.send(message{Call: &callMsg{ID: id, Name: c.Name, Args: pos, Kwargs: kw, Left: left}}); err != nil {
		resume()
		return nil, fmt.Errorf("the call could not be passed on: %w", err)
	}
	var rep replyMsg
	select {
	case rep = <-ch.replies:
	case <-c.Ctx.Done():
		resume()
		return nil, c.stopped()
	}
	resume()
	c.r.clock.spend(rep.Timed)
	switch rep.Stopped {
	case "time":
		c.r.stop(stopTime)
	case "cancel":
		c.r.stop(stopCancel)
	}
	if rep.Err != "" {
		return nil, errors.New(rep.Err)
	}
	if rep.Value == nil {
		return starlark.None, nil
	}
	return fromWire(*rep.Value, 0)
}
