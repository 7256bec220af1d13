package script

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// The sandbox protocol: frames of a 4-byte big-endian length and a JSON
// message, over the child's standard input (parent to child) and standard
// output (child to parent). The child never writes anything else there; the Go
// runtime's crash reports go to standard error.

// Frame limits. What the agent sends the code (a tool's result: a page, a
// file's text) may be large; what the code sends the agent (a tool call's
// arguments, a block's result) is bounded by the arguments' limits
// (Param.MaxLen), Options.MaxOutput and maxErrorChars, far below
// maxChildFrame. The agent reads no frame over it: it stops the code's
// process instead, so whatever the code does, the agent holds at most one
// such frame and what decodes from it.
const (
	maxFrame      = 64 << 20 // parent to child
	maxChildFrame = 8 << 20  // child to parent
)

// message is one frame; exactly one field is set.
type message struct {
	Init   *initMsg   `json:"init,omitempty"`   // parent: the tools and limits, first
	Exec   *execMsg   `json:"exec,omitempty"`   // parent: run a block
	Cancel bool       `json:"cancel,omitempty"` // parent: stop the block running
	Reply  *replyMsg  `json:"reply,omitempty"`  // parent: a tool call's result
	Call   *callMsg   `json:"call,omitempty"`   // child: run a tool
	Result *resultMsg `json:"result,omitempty"` // child: a block ended
}

// initMsg sets up the child's executor.
type initMsg struct {
	Tools     []toolSpec    `json:"tools"`
	MaxSteps  uint64        `json:"max_steps"`
	Timeout   time.Duration `json:"timeout"`
	MaxOutput int           `json:"max_output"`
	Memory    int64         `json:"memory"`            // soft memory limit, bytes
	Modules   string        `json:"modules,omitempty"` // name of the module set the child builds
}

// toolSpec is what the child needs to bind a proxy for a tool.
type toolSpec struct {
	Name   string  `json:"name"`
	Params []Param `json:"params"`
	Kind   Kind    `json:"kind"`
}

type execMsg struct {
	Code string `json:"code"`
}

type callMsg struct {
	ID   int64  `json:"id"` // numbers the calls, so a late reply is never taken for a later call's
	Name string `json:"name"`
	// Left is the block's time left when the call was made (0 = no limit):
	// the call runs under that deadline here, its untimed spans aside.
	Left   time.Duration  `json:"left,omitempty"`
	Args   []wireValue    `json:"args,omitempty"`
	Kwargs [][2]wireValue `json:"kwargs,omitempty"`
}

type replyMsg struct {
	ID    int64      `json:"id"`
	Value *wireValue `json:"value,omitempty"`
	Err   string     `json:"err,omitempty"`
	// Timed is how much of the call counts toward the block's time limit: its
	// duration minus the time it spent untimed (a guard's pause, a wait).
	Timed time.Duration `json:"timed"`
	// Stopped says the call ended because the block did: "time" (its
	// deadline) or "cancel" (Stop); "" otherwise.
	Stopped string `json:"stopped,omitempty"`
}

type resultMsg struct {
	Output string `json:"output"`
	Err    *Error `json:"err,omitempty"`
	Final  *Final `json:"final,omitempty"`
	Steps  uint64 `json:"steps"`
	Fatal  string `json:"fatal,omitempty"` // the child cannot go on (a bad init)
	Ready  bool   `json:"ready,omitempty"` // answer to init
}

// conn reads and writes frames; writes are serialised.
type conn struct {
	r      io.Reader
	mu     sync.Mutex
	w      io.Writer
	in     int64        // the largest frame recv reads
	out    int64        // the largest frame send writes
	tooBig atomic.Int64 // the size of the frame over in that recv refused; 0 = none
}

func (c *conn) send(m message) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if int64(len(data)) > c.out {
		return tooLarge(int64(len(data)), c.out)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	if _, err := c.w.Write(n[:]); err != nil {
		return err
	}
	_, err = c.w.Write(data)
	return err
}

// errFrame is a frame over the size limit.
var errFrame = errors.New("sandbox: frame over the size limit")

func (c *conn) recv() (message, error) {
	var n [4]byte
	if _, err := io.ReadFull(c.r, n[:]); err != nil {
		return message{}, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if int64(size) > c.in {
		c.tooBig.Store(int64(size))
		return message{}, errFrame
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(c.r, data); err != nil {
		return message{}, err
	}
	var m message
	if err := json.Unmarshal(data, &m); err != nil {
		return message{}, fmt.Errorf("sandbox: bad frame: %w", err)
	}
	return m, nil
}
