//go:build linux

package eval

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"time"
)

// A busProxy lets the box's programs use one of the display's D-Bus buses
// (the session bus, the AT-SPI bus), which run outside the box.
//
// Binding the bus's socket into the box is not enough: the box's uid 1000 is
// the harness's uid outside, so the bus daemon sees the harness's uid on the
// socket while the client claims 1000 in its EXTERNAL authentication, and
// refuses it. Every GTK, Qt and LibreOffice program of the task then stays off
// the accessibility bus, and the accessibility_tree getter (and the agent's
// element finder) sees none of them.
//
// The proxy listens on a socket of its own, bound in the box at the bus's
// path, and relays each connection to the bus. In the authentication phase it
// rewrites the EXTERNAL identity to the harness's uid (the one the daemon
// sees: the box is this uid outside) and answers NEGOTIATE_UNIX_FD itself
// with ERROR (a byte relay carries no file descriptors); after BEGIN it
// copies bytes both ways unchanged.
type busProxy struct {
	ln     *net.UnixListener
	path   string // the proxy's socket (harness side)
	target string // the bus's socket

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Bounds of the authentication phase: its lines, their number and its time.
const (
	busAuthLine  = 16 << 10
	busAuthLines = 64
	busAuthTime  = 10 * time.Second
	busMaxConns  = 256
)

// startBusProxy listens on path and relays to the bus socket target.
func startBusProxy(path, target string) (*busProxy, error) {
	_ = os.Remove(path)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, err
	}
	p := &busProxy{ln: ln, path: path, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

func (p *busProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.AcceptUnix()
		if err != nil {
			return
		}
		if !p.track(c) {
			c.Close()
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.untrack(c)
			p.relay(c)
		}()
	}
}

// track records an open connection; false when closed or at busMaxConns.
func (p *busProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.conns) >= busMaxConns {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *busProxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

// close stops listening, ends every relayed connection and waits for them.
func (p *busProxy) close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.ln.Close()
	p.wg.Wait()
	_ = os.Remove(p.path)
}

// relay serves one client connection.
func (p *busProxy) relay(client *net.UnixConn) {
	bus, err := net.DialTimeout("unix", p.target, busAuthTime)
	if err != nil {
		return
	}
	defer bus.Close()
	if !p.track(bus) {
		return
	}
	defer p.untrack(bus)
	deadline := time.Now().Add(busAuthTime)
	_ = client.SetDeadline(deadline)
	_ = bus.SetDeadline(deadline)
	in := bufio.NewReaderSize(client, busAuthLine)
	out, err := busAuth(in, client, bus)
	if err != nil {
		return
	}
	_ = client.SetDeadline(time.Time{})
	_ = bus.SetDeadline(time.Time{})
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(bus, in); done <- struct{}{} }()
	go func() { _, _ = io.Copy(client, out); done <- struct{}{} }()
	<-done // either side ended: end both
}

// busAuth relays the authentication phase from the client (in, reply) to bus
// and the bus's answers back, up to and including the client's BEGIN. It
// returns the reader of what the bus sends next.
func busAuth(in *bufio.Reader, reply io.Writer, bus io.ReadWriter) (*bufio.Reader, error) {
	nul, err := in.ReadByte()
	if err != nil {
		return nil, err
	}
	if nul != 0 {
		return nil, errors.New("no credentials byte")
	}
	if _, err := bus.Write([]byte{0}); err != nil {
		return nil, err
	}
	answers := bufio.NewReaderSize(bus, busAuthLine)
	uid := []byte(hex.EncodeToString([]byte(strconv.Itoa(os.Getuid()))))
	external := false
	for range busAuthLines {
		line, err := in.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		cmd := bytes.TrimRight(line, "\r\n")
		word, _, _ := bytes.Cut(cmd, []byte(" "))
		switch string(word) {
		case "AUTH":
			f := bytes.Fields(cmd)
			external = len(f) >= 2 && string(f[1]) == "EXTERNAL"
			if external && len(f) == 3 {
				line = []byte("AUTH EXTERNAL " + string(uid) + "\r\n")
			}
		case "DATA":
			if external {
				line = []byte("DATA " + string(uid) + "\r\n")
			}
		case "NEGOTIATE_UNIX_FD":
			if _, err := reply.Write([]byte("ERROR file descriptor passing is not available\r\n")); err != nil {
				return nil, err
			}
			continue
		case "BEGIN":
			_, err := bus.Write(line)
			return answers, err
		}
		if _, err := bus.Write(line); err != nil {
			return nil, err
		}
		answer, err := answers.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		if _, err := reply.Write(answer); err != nil {
			return nil, err
		}
	}
	return nil, errors.New("authentication did not end")
}
