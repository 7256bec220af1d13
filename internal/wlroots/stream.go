package wlroots

import (
	"context"
	"fmt"
	"image"
	"sync"

	"deskpilot/internal/wl"
)

// stream keeps the newest frame of one output: one plain copy for a start
// (it makes the compositor draw a frame), then always one copy_with_damage
// request in flight, which the compositor fills only when it draws a frame
// that changed something. So the newest filled buffer is what the output
// shows (give or take the few microseconds of a copy being delivered), a
// still screen costs nothing, and a capture is a conversion, not a wait for
// the next frame. Three buffers take turns: the newest, the one in flight,
// and one free while a capture still reads an older one.
type stream struct {
	c *Client
	o *output

	mu       sync.Mutex
	bufs     [3]*shot
	flags    [3]uint32
	reading  [3]int
	latest   int // index of the newest filled buffer; -1 before the first
	inflight int // index of the buffer being filled; -1 when none
	owed     bool
	failures int
	err      error
	update   chan struct{} // closed (and replaced) at each new frame or error
}

// streamOf is o's stream, started on first use.
func (c *Client) streamOf(o *output) *stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	if o.stream == nil {
		o.stream = &stream{c: c, o: o, latest: -1, inflight: -1, update: make(chan struct{})}
		o.stream.mu.Lock()
		o.stream.requestLocked(false)
		o.stream.mu.Unlock()
	}
	return o.stream
}

// free is a buffer index neither newest, in flight nor being read; -1 when none.
func (s *stream) free() int {
	for i := range s.bufs {
		if i != s.latest && i != s.inflight && s.reading[i] == 0 {
			return i
		}
	}
	return -1
}

func (s *stream) notifyLocked() {
	close(s.update)
	s.update = make(chan struct{})
}

func (s *stream) failLocked(err error) {
	if s.err == nil {
		s.err = err
	}
	s.notifyLocked()
}

// requestLocked asks for the next frame into a free buffer (a damage copy
// unless first); with none free it is owed until a capture lets one go.
func (s *stream) requestLocked(damage bool) {
	if s.err != nil || s.inflight >= 0 {
		return
	}
	idx := s.free()
	if idx < 0 {
		s.owed = true
		return
	}
	s.owed, s.inflight = false, idx
	var info frameInfo
	frame := &wl.ZwlrScreencopyFrameV1{}
	copyInto := func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !info.shm {
			s.failLocked(fmt.Errorf("wayland capture of %s: the compositor offers no shared-memory buffer", s.o.info.Name))
			return
		}
		if !s.bufs[idx].fits(info.format, info.width, info.height, info.stride) {
			s.bufs[idx].release()
			b, err := s.c.newShot(info.format, info.width, info.height, info.stride)
			if err != nil {
				s.bufs[idx] = nil
				s.failLocked(err)
				return
			}
			s.bufs[idx] = b
		}
		var err error
		if damage {
			err = frame.CopyWithDamage(s.bufs[idx].buf)
		} else {
			err = frame.Copy(s.bufs[idx].buf)
		}
		if err != nil {
			s.failLocked(err)
		}
	}
	frame.OnBuffer = func(format, w, h, stride uint32) {
		info.format, info.width, info.height, info.stride, info.shm = format, int(w), int(h), int(stride), true
		if s.c.copierVersion() < 3 { // no buffer_done before version 3
			copyInto()
		}
	}
	frame.OnBufferDone = copyInto
	frame.OnFlags = func(f uint32) { info.flags = f }
	frame.OnReady = func(uint32, uint32, uint32) {
		_ = frame.Destroy()
		s.mu.Lock()
		defer s.mu.Unlock()
		s.flags[idx], s.latest, s.inflight, s.failures = info.flags, idx, -1, 0
		s.notifyLocked()
		s.requestLocked(true)
	}
	frame.OnFailed = func() {
		_ = frame.Destroy()
		s.mu.Lock()
		defer s.mu.Unlock()
		s.inflight = -1
		if s.failures++; s.failures >= 3 {
			s.failLocked(fmt.Errorf("wayland capture of %s: the compositor failed the copy", s.o.info.Name))
			return
		}
		s.requestLocked(s.latest >= 0)
	}
	if err := s.c.copier.CaptureOutput(frame, 0, s.o.wl); err != nil {
		s.inflight = -1
		s.failLocked(err)
	}
}

// capture converts the newest frame into dst (a new image when dst has
// another size), waiting for the first one.
func (s *stream) capture(ctx context.Context, dst *image.RGBA) (*image.RGBA, error) {
	s.mu.Lock()
	for s.latest < 0 && s.err == nil {
		ch := s.update
		s.mu.Unlock()
		if err := s.c.conn.Wait(ctx, ch); err != nil {
			return nil, fmt.Errorf("wayland capture of %s: %w", s.o.info.Name, err)
		}
		s.mu.Lock()
	}
	if s.err != nil {
		err := s.err
		s.mu.Unlock()
		return nil, err
	}
	if err := s.c.conn.Err(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	idx := s.latest
	s.reading[idx]++
	b, flip := s.bufs[idx], s.flags[idx]&wl.ZwlrScreencopyFrameV1FlagsYInvert != 0
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.reading[idx]--
		if s.owed {
			s.requestLocked(true)
		}
		s.mu.Unlock()
	}()
	if dst == nil || dst.Rect.Dx() != b.width || dst.Rect.Dy() != b.height {
		dst = image.NewRGBA(image.Rect(0, 0, b.width, b.height))
	}
	if err := toRGBA(dst, b, flip); err != nil {
		return nil, err
	}
	return dst, nil
}
