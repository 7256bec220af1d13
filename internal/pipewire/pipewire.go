//go:build linux && cgo

// Package pipewire consumes a PipeWire video stream (a screencast node that
// Mutter or a desktop portal made) into RGBA frames, through libpipewire
// loaded at run time: the binary needs PipeWire only when a Wayland backend
// that reads frames from it is used. Frames arrive on PipeWire's own thread
// and are kept, newest only; Frame converts the newest into the caller's
// image without another copy, so a capture costs one conversion and no
// process or round trip.
package pipewire

/*
#cgo CFLAGS: -I/usr/include/pipewire-0.3 -I/usr/include/spa-0.2 -D_REENTRANT -O2
#cgo LDFLAGS: -ldl -lpthread
#include <stdlib.h>
#include "pw.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"image"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unsafe"
)

// Stream is one video stream being consumed. Safe for concurrent use.
type Stream struct {
	mu sync.Mutex
	s  *C.dp_stream
}

// ErrNoFrame is returned by Frame while the stream has sent no frame yet.
var ErrNoFrame = errors.New("pipewire: no frame yet")

func load() error {
	var buf [256]C.char
	if C.dp_load(&buf[0], C.int(len(buf))) != 0 {
		return fmt.Errorf("pipewire: cannot load libpipewire-0.3.so.0 (install pipewire): %s", C.GoString(&buf[0]))
	}
	return nil
}

// SocketPath is the PipeWire daemon's socket: $PIPEWIRE_REMOTE when it is
// absolute, else pipewire-0 (or $PIPEWIRE_REMOTE) in $PIPEWIRE_RUNTIME_DIR or
// $XDG_RUNTIME_DIR.
func SocketPath() string {
	name := os.Getenv("PIPEWIRE_REMOTE")
	if filepath.IsAbs(name) {
		return name
	}
	if name == "" {
		name = "pipewire-0"
	}
	dir := os.Getenv("PIPEWIRE_RUNTIME_DIR")
	if dir == "" {
		dir = os.Getenv("XDG_RUNTIME_DIR")
	}
	return filepath.Join(dir, name)
}

// Dial connects to the daemon at the socket path and returns the connection's
// file descriptor, for Open.
func Dial(path string) (int, error) {
	c, err := net.Dial("unix", path)
	if err != nil {
		return -1, fmt.Errorf("pipewire: %w", err)
	}
	defer c.Close()
	f, err := c.(*net.UnixConn).File()
	if err != nil {
		return -1, fmt.Errorf("pipewire: %w", err)
	}
	fd, err := dupFD(f)
	return fd, err
}

// Open consumes video node `node` over the PipeWire connection fd (taken
// over: from Dial, or from a portal's OpenPipeWireRemote).
func Open(fd int, node uint32) (*Stream, error) {
	if err := load(); err != nil {
		return nil, err
	}
	var buf [256]C.char
	s := C.dp_open(C.int(fd), C.uint32_t(node), &buf[0], C.int(len(buf)))
	if s == nil {
		return nil, fmt.Errorf("pipewire: %s", C.GoString(&buf[0]))
	}
	return &Stream{s: s}, nil
}

// Err is the stream's error (the daemon went away, the node was removed); nil
// while it streams.
func (st *Stream) Err() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.s == nil {
		return errors.New("pipewire: stream closed")
	}
	var buf [256]C.char
	if C.dp_error(st.s, &buf[0], C.int(len(buf))) != 0 {
		return fmt.Errorf("pipewire: %s", C.GoString(&buf[0]))
	}
	return nil
}

// Size is the newest frame's size; false before the first frame.
func (st *Stream) Size() (image.Point, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.s == nil {
		return image.Point{}, false
	}
	var w, h C.int
	ok := C.dp_size(st.s, &w, &h) != 0
	return image.Pt(int(w), int(h)), ok
}

// Cursor is the pointer's position on the stream, from its cursor metadata;
// false when the stream sent none.
func (st *Stream) Cursor() (image.Point, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.s == nil {
		return image.Point{}, false
	}
	var x, y C.int
	ok := C.dp_cursor(st.s, &x, &y) != 0
	return image.Pt(int(x), int(y)), ok
}

// Frame converts the newest frame into dst when it has the frame's size,
// else into a new image, and returns the image and the frame's sequence
// number (which grows with each frame the stream sent).
func (st *Stream) Frame(dst *image.RGBA) (*image.RGBA, uint64, error) {
	size, ok := st.Size()
	if !ok {
		if err := st.Err(); err != nil {
			return nil, 0, err
		}
		return nil, 0, ErrNoFrame
	}
	if dst == nil || dst.Rect.Size() != size || dst.Stride != 4*size.X {
		dst = image.NewRGBA(image.Rectangle{Max: size})
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.s == nil {
		return nil, 0, errors.New("pipewire: stream closed")
	}
	var seq C.uint64_t
	switch C.dp_read(st.s, (*C.uint8_t)(unsafe.Pointer(&dst.Pix[0])), C.int(dst.Stride), C.int(size.X), C.int(size.Y), &seq) {
	case 0:
		return dst, uint64(seq), nil
	case 1:
		return nil, 0, ErrNoFrame
	case 2:
		return nil, 0, errors.New("pipewire: the frame changed size; try again")
	}
	var buf [256]C.char
	C.dp_error(st.s, &buf[0], C.int(len(buf)))
	return nil, 0, fmt.Errorf("pipewire: %s", C.GoString(&buf[0]))
}

// WaitFrame waits until the stream has sent a frame.
func (st *Stream) WaitFrame(ctx context.Context) error {
	for {
		if _, ok := st.Size(); ok {
			return nil
		}
		if err := st.Err(); err != nil {
			return err
		}
		t := time.NewTimer(5 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("pipewire: no frame: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// Close stops the stream. Safe twice.
func (st *Stream) Close() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.s != nil {
		C.dp_close(st.s)
		st.s = nil
	}
	return nil
}
