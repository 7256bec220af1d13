// Package wl is a small Wayland client: the wire protocol over a Unix socket
// (messages, file descriptors passed alongside, object ids) and proxies for
// the interfaces deskpilot uses, generated from the protocols' XML by wlgen
// (protocols.go). It has no C in it and links no libwayland.
//
// One reader goroutine per connection reads the compositor's events and calls
// the proxies' handlers in order, so handlers must be quick and must not wait
// for another event; requests may be sent from any goroutine. Waiting for a
// reply is a Sync (wl_display.sync) or a channel a handler closes.
package wl

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Object is a Wayland object on the client side.
type Object interface {
	// ID is the object's id on its connection; 0 before it is registered.
	ID() uint32
	// Interface is the wire name of the object's interface.
	Interface() string
	// Dispatch decodes event op and calls the object's handler.
	Dispatch(op uint16, e *Event)
	proxy() *Proxy
}

// Proxy is the part every generated object shares: its connection and id.
type Proxy struct {
	conn *Conn
	id   uint32
}

// ID is the object's id; 0 before it is registered.
func (p *Proxy) ID() uint32 { return p.id }

// Conn is the object's connection; nil before it is registered.
func (p *Proxy) Conn() *Conn { return p.conn }

func (p *Proxy) proxy() *Proxy { return p }

func (p *Proxy) message() *Message { return &Message{} }

func (p *Proxy) send(op uint16, m *Message) error {
	if p.conn == nil {
		return errors.New("wayland: request on an unregistered object")
	}
	return p.conn.send(p.id, op, m)
}

// Fixed is Wayland's 24.8 signed fixed-point number.
type Fixed int32

// FixedFrom returns the Fixed nearest to f.
func FixedFrom(f float64) Fixed { return Fixed(math.Round(f * 256)) }

// Float returns f as a float64.
func (f Fixed) Float() float64 { return float64(f) / 256 }

// Message is a request being encoded: its argument bytes and the file
// descriptors that go with it.
type Message struct {
	b      []byte
	fds    []int
	newObj Object // registered when the request is sent
	newAt  int    // offset of its id in b
}

// PutUint appends a uint argument.
func (m *Message) PutUint(v uint32) { m.b = binary.LittleEndian.AppendUint32(m.b, v) }

// PutInt appends an int argument.
func (m *Message) PutInt(v int32) { m.PutUint(uint32(v)) }

// PutFixed appends a fixed argument.
func (m *Message) PutFixed(v Fixed) { m.PutUint(uint32(v)) }

// PutString appends a string argument (length with the NUL, padded to 4).
func (m *Message) PutString(s string) {
	m.PutUint(uint32(len(s) + 1))
	m.b = append(m.b, s...)
	m.b = append(m.b, 0)
	m.pad()
}

// PutArray appends an array argument.
func (m *Message) PutArray(a []byte) {
	m.PutUint(uint32(len(a)))
	m.b = append(m.b, a...)
	m.pad()
}

// PutNew appends a new_id argument: o gets its id when the request is sent,
// so that ids reach the compositor in the order they were given out.
func (m *Message) PutNew(o Object) {
	m.newObj, m.newAt = o, len(m.b)
	m.PutUint(0)
}

// PutFD attaches a file descriptor; the compositor receives a duplicate.
func (m *Message) PutFD(fd int) { m.fds = append(m.fds, fd) }

// PutObject appends an object argument (0 for nil).
func (m *Message) PutObject(o Object) {
	if o == nil || o.proxy() == nil {
		m.PutUint(0)
		return
	}
	m.PutUint(o.ID())
}

func (m *Message) pad() {
	for len(m.b)%4 != 0 {
		m.b = append(m.b, 0)
	}
}

// Event is an event being decoded. After a malformed argument every further
// read returns a zero value and Err reports the problem.
type Event struct {
	c   *Conn
	b   []byte
	fds *[]int
	err error
}

// Err reports a malformed event.
func (e *Event) Err() error { return e.err }

func (e *Event) fail(what string) {
	if e.err == nil {
		e.err = fmt.Errorf("wayland: short event reading %s", what)
	}
}

// Uint reads a uint argument.
func (e *Event) Uint() uint32 {
	if e.err != nil || len(e.b) < 4 {
		e.fail("a uint")
		return 0
	}
	v := binary.LittleEndian.Uint32(e.b)
	e.b = e.b[4:]
	return v
}

// Int reads an int argument.
func (e *Event) Int() int32 { return int32(e.Uint()) }

// Fixed reads a fixed argument.
func (e *Event) Fixed() Fixed { return Fixed(e.Uint()) }

// Array reads an array argument (a copy).
func (e *Event) Array() []byte {
	n := int(e.Uint())
	padded := (n + 3) &^ 3
	if e.err != nil || n < 0 || padded > len(e.b) {
		e.fail("an array")
		return nil
	}
	out := append([]byte(nil), e.b[:n]...)
	e.b = e.b[padded:]
	return out
}

// String reads a string argument.
func (e *Event) String() string {
	a := e.Array()
	if len(a) > 0 && a[len(a)-1] == 0 {
		a = a[:len(a)-1]
	}
	return string(a)
}

// FD takes the next file descriptor that came with the events; -1 when none
// did. The handler owns it and must close it.
func (e *Event) FD() int {
	if e.err != nil || len(*e.fds) == 0 {
		e.fail("a file descriptor")
		return -1
	}
	fd := (*e.fds)[0]
	*e.fds = (*e.fds)[1:]
	return fd
}

// Object reads an object argument: the live object with that id, or nil.
func (e *Event) Object() Object {
	id := e.Uint()
	if id == 0 {
		return nil
	}
	return e.c.lookup(id)
}

// NewObject reads a new_id argument and registers o under the id the
// compositor chose.
func (e *Event) NewObject(o Object) {
	id := e.Uint()
	if e.err != nil {
		return
	}
	e.c.mu.Lock()
	defer e.c.mu.Unlock()
	p := o.proxy()
	p.conn, p.id = e.c, id
	e.c.objs[id] = o
}

// Conn is a connection to a Wayland compositor. Safe for concurrent use.
type Conn struct {
	sock    *net.UnixConn
	wmu     sync.Mutex // serialises writes
	mu      sync.Mutex // guards objs, free, next, err
	objs    map[uint32]Object
	free    []uint32
	next    uint32
	err     error
	done    chan struct{}
	display *WlDisplay
}

// SocketPath returns the compositor's socket for name (as in
// $WAYLAND_DISPLAY: absolute, or relative to $XDG_RUNTIME_DIR); name ""
// means $WAYLAND_DISPLAY, else "wayland-0".
func SocketPath(name string) (string, error) {
	if name == "" {
		name = os.Getenv("WAYLAND_DISPLAY")
	}
	if name == "" {
		name = "wayland-0"
	}
	if filepath.IsAbs(name) {
		return name, nil
	}
	rt := os.Getenv("XDG_RUNTIME_DIR")
	if rt == "" {
		return "", errors.New("wayland: XDG_RUNTIME_DIR is not set, so the compositor's socket cannot be found")
	}
	return filepath.Join(rt, name), nil
}

// Dial connects to the compositor at the socket path and starts reading its
// events.
func Dial(path string) (*Conn, error) {
	sock, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("wayland: connect to %s: %w", path, err)
	}
	return newConn(sock), nil
}

// newConn starts a client on a connected socket.
func newConn(sock *net.UnixConn) *Conn {
	c := &Conn{sock: sock, objs: map[uint32]Object{}, next: 2, done: make(chan struct{})}
	d := &WlDisplay{}
	d.conn, d.id = c, 1
	c.objs[1] = d
	c.display = d
	d.OnError = func(obj Object, code uint32, msg string) {
		name := "unknown object"
		if obj != nil {
			name = fmt.Sprintf("%s@%d", obj.Interface(), obj.ID())
		}
		c.fail(&ProtocolError{Object: name, Code: code, Message: msg})
	}
	d.OnDeleteId = func(id uint32) {
		c.mu.Lock()
		delete(c.objs, id)
		if id < 0xff000000 {
			c.free = append(c.free, id)
		}
		c.mu.Unlock()
	}
	go c.read()
	return c
}

// ProtocolError is a fatal error the compositor reported (wl_display.error).
type ProtocolError struct {
	Object  string
	Code    uint32
	Message string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("wayland: protocol error on %s (code %d): %s", e.Object, e.Code, e.Message)
}

// ErrClosed is the error of a connection closed by Close.
var ErrClosed = errors.New("wayland: connection closed")

// Display is the connection's wl_display.
func (c *Conn) Display() *WlDisplay { return c.display }

// Done is closed when the connection has failed or was closed.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the connection ended; nil while it is up.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the connection. Safe twice.
func (c *Conn) Close() error {
	c.fail(ErrClosed)
	return nil
}

func (c *Conn) fail(err error) {
	c.mu.Lock()
	first := c.err == nil
	if first {
		c.err = err
	}
	c.mu.Unlock()
	if first {
		c.sock.Close()
		close(c.done)
	}
}

// Register gives o a fresh id on this connection.
func (c *Conn) Register(o Object) error {
	p := o.proxy()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	if p.conn != nil {
		return fmt.Errorf("wayland: %s is already registered", o.Interface())
	}
	var id uint32
	if n := len(c.free); n > 0 {
		id, c.free = c.free[n-1], c.free[:n-1]
	} else {
		id = c.next
		c.next++
	}
	p.conn, p.id = c, id
	c.objs[id] = o
	return nil
}

func (c *Conn) lookup(id uint32) Object {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.objs[id]
}

// send writes one request.
func (c *Conn) send(id uint32, op uint16, m *Message) error {
	size := 8 + len(m.b)
	if size > 0xffff {
		return fmt.Errorf("wayland: request of %d bytes is too long", size)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if m.newObj != nil {
		if err := c.Register(m.newObj); err != nil {
			return err
		}
		binary.LittleEndian.PutUint32(m.b[m.newAt:], m.newObj.ID())
	}
	buf := make([]byte, 8, size)
	binary.LittleEndian.PutUint32(buf, id)
	binary.LittleEndian.PutUint32(buf[4:], uint32(size)<<16|uint32(op))
	buf = append(buf, m.b...)
	var oob []byte
	if len(m.fds) > 0 {
		oob = syscall.UnixRights(m.fds...)
	}
	if err := c.Err(); err != nil {
		return err
	}
	if _, _, err := c.sock.WriteMsgUnix(buf, oob, nil); err != nil {
		c.fail(fmt.Errorf("wayland: write: %w", err))
		return c.Err()
	}
	return nil
}

// maxFDs bounds the file descriptors kept for events still to come.
const maxFDs = 64

// read reads events until the connection fails, dispatching each to its object.
func (c *Conn) read() {
	buf := make([]byte, 0, 1<<16)
	chunk := make([]byte, 1<<16)
	oob := make([]byte, syscall.CmsgSpace(28*4))
	var fds []int
	for {
		n, oobn, _, _, err := c.sock.ReadMsgUnix(chunk, oob)
		if err != nil {
			c.fail(fmt.Errorf("wayland: the compositor closed the connection (it quit or crashed): %w", err))
			closeAll(fds)
			return
		}
		if oobn > 0 {
			fds = append(fds, parseRights(oob[:oobn])...)
			if len(fds) > maxFDs { // sent and never claimed by an event
				closeAll(fds[:len(fds)-maxFDs])
				fds = fds[len(fds)-maxFDs:]
			}
		}
		buf = append(buf, chunk[:n]...)
		off := 0
		for len(buf)-off >= 8 {
			id := binary.LittleEndian.Uint32(buf[off:])
			w := binary.LittleEndian.Uint32(buf[off+4:])
			size, op := int(w>>16), uint16(w)
			if size < 8 {
				c.fail(fmt.Errorf("wayland: malformed event of %d bytes", size))
				closeAll(fds)
				return
			}
			if len(buf)-off < size {
				break
			}
			e := &Event{c: c, b: buf[off+8 : off+size], fds: &fds}
			if o := c.lookup(id); o != nil {
				o.Dispatch(op, e)
			}
			off += size
		}
		buf = buf[:copy(buf, buf[off:])] // the unread tail moves to the front
	}
}

func parseRights(oob []byte) []int {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var out []int
	for _, m := range msgs {
		if fds, err := syscall.ParseUnixRights(&m); err == nil {
			out = append(out, fds...)
		}
	}
	return out
}

func closeAll(fds []int) {
	for _, fd := range fds {
		syscall.Close(fd)
	}
}

// Sync waits until the compositor has handled every request sent before it
// (and the events they caused were dispatched).
func (c *Conn) Sync(ctx context.Context) error {
	done := make(chan struct{})
	cb := &WlCallback{OnDone: func(uint32) { close(done) }}
	if err := c.display.Sync(cb); err != nil {
		return err
	}
	return c.Wait(ctx, done)
}

// Wait waits until ch is closed, ctx ends or the connection fails.
func (c *Conn) Wait(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.done:
		select {
		case <-ch:
			return nil
		default:
		}
		return c.Err()
	}
}
