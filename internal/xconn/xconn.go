// Package xconn opens X11 connections (jezek/xgb) for deskpilot's X edges
// (vision/screen, vision/xdisplay, actions/robot) and enables extensions on them.
//
// It exists because of how xgb registers extensions: every extension's Init writes
// process-wide maps of event and error constructors, which every connection's reader
// goroutine reads whenever an event or error arrives. Calling Init on one connection
// while another is running is a data race. xconn therefore registers every extension
// the project uses exactly once, on a throwaway connection opened before any other
// (Dial does it on first use), and afterwards enables an extension on a connection by
// recording its opcode on that connection only, never touching the shared maps.
//
// It also reads X authority files itself (DialAuth): xgb takes every
// connection's cookie from the one file $XAUTHORITY names, so a process driving
// several private displays, each with a cookie of its own, must hand xgb the
// cookie of each.
package xconn

import (
	"fmt"
	"io"
	"log"
	"net"
	"sync"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/randr"
	"github.com/jezek/xgb/screensaver"
	"github.com/jezek/xgb/shm"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
)

// Extension names accepted by Enable.
const (
	SHM         = "MIT-SHM"
	RandR       = "RANDR"
	XTest       = "XTEST"
	ScreenSaver = "MIT-SCREEN-SAVER"
)

var inits = map[string]func(*xgb.Conn) error{
	SHM: shm.Init, RandR: randr.Init, XTest: xtest.Init, ScreenSaver: screensaver.Init,
}

var (
	mu         sync.Mutex
	registered = map[string]bool{} // extensions whose xgb tables are filled
	prepared   bool
)

// prepare registers every extension once, on a connection of its own that is
// closed (its reader goroutine finished) before any other connection is opened.
// Called with mu held.
func prepare(dial func() (*xgb.Conn, error)) {
	if prepared {
		return
	}
	c, err := dial()
	if err != nil {
		return // the caller's own dial reports the problem; try again next time
	}
	prepared = true
	for name, init := range inits {
		if init(c) == nil {
			registered[name] = true
		}
	}
	Close(c)
}

// Dial connects to display name ("" means $DISPLAY).
func Dial(name string) (*xgb.Conn, error) {
	dial := func() (*xgb.Conn, error) { return xgb.NewConnDisplay(name) }
	mu.Lock()
	prepare(dial)
	mu.Unlock()
	return dial()
}

// DialNet connects over an open socket with a hex MIT-MAGIC-COOKIE-1 (may be "").
// redial opens a fresh socket for the one-time preparation connection.
func DialNet(nc net.Conn, cookieHex string, redial func() (net.Conn, error)) (*xgb.Conn, error) {
	mu.Lock()
	prepare(func() (*xgb.Conn, error) {
		c, err := redial()
		if err != nil {
			return nil, err
		}
		return xgb.NewConnNetWithCookieHex(c, cookieHex)
	})
	mu.Unlock()
	return xgb.NewConnNetWithCookieHex(nc, cookieHex)
}

// Enable makes extension ext usable on c. It fails when the server lacks it.
func Enable(c *xgb.Conn, ext string) error {
	init, ok := inits[ext]
	if !ok {
		return fmt.Errorf("xconn: unknown extension %q", ext)
	}
	mu.Lock()
	first := !registered[ext]
	if first {
		// Not registered at preparation (that server lacked it); registering now
		// is the rare case the race warning above is about.
		err := init(c)
		if err == nil {
			registered[ext] = true
		}
		mu.Unlock()
		if err != nil {
			return fmt.Errorf("xconn: %s: %w", ext, err)
		}
		return nil
	}
	mu.Unlock()
	r, err := xproto.QueryExtension(c, uint16(len(ext)), ext).Reply()
	if err != nil {
		return fmt.Errorf("xconn: query %s: %w", ext, err)
	}
	if !r.Present {
		return fmt.Errorf("xconn: the X server has no %s extension", ext)
	}
	c.ExtLock.Lock()
	c.Extensions[ext] = r.MajorOpcode
	c.ExtLock.Unlock()
	return nil
}

// Close closes c and waits until its reader goroutine is done with the socket.
func Close(c *xgb.Conn) {
	c.Close()
	for {
		if ev, err := c.WaitForEvent(); ev == nil && err == nil {
			return
		}
	}
}

// Quiet stops xgb from logging (it prints to stderr when a display has no
// authority file and when a connection closes). Call it once from main.
func Quiet() { xgb.Logger = log.New(io.Discard, "", 0) }
