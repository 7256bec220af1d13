package wlroots

import (
	"context"
	"fmt"
	"image"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"deskpilot/internal/wl"
)

// shot is a shared-memory buffer the compositor copies an output into,
// mapped once and reused while the output keeps its size and format.
type shot struct {
	fd                    int
	mem                   []byte
	pool                  *wl.WlShmPool
	buf                   *wl.WlBuffer
	format                uint32
	width, height, stride int
}

func (s *shot) fits(format uint32, w, h, stride int) bool {
	return s != nil && s.format == format && s.width == w && s.height == h && s.stride == stride
}

func (s *shot) release() {
	if s == nil {
		return
	}
	_ = s.buf.Destroy()
	_ = s.pool.Destroy()
	_ = unix.Munmap(s.mem)
	_ = unix.Close(s.fd)
}

// newShot makes a buffer for one frame of the given layout.
func (c *Client) newShot(format uint32, w, h, stride int) (*shot, error) {
	size := stride * h
	fd, err := unix.MemfdCreate("deskpilot-screencopy", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("wayland capture: memfd: %w", err)
	}
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("wayland capture: size the buffer: %w", err)
	}
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("wayland capture: map the buffer: %w", err)
	}
	s := &shot{fd: fd, mem: mem, format: format, width: w, height: h, stride: stride,
		pool: &wl.WlShmPool{}, buf: &wl.WlBuffer{}}
	if err := c.shm.CreatePool(s.pool, fd, int32(size)); err != nil {
		s.release()
		return nil, err
	}
	if err := s.pool.CreateBuffer(s.buf, 0, int32(w), int32(h), int32(stride), format); err != nil {
		s.release()
		return nil, err
	}
	return s, nil
}

// frameInfo is what the compositor says about one screencopy frame.
type frameInfo struct {
	format                uint32
	width, height, stride int
	shm                   bool
	flags                 uint32
	failed                bool
}

// Capture copies the output named out into dst when dst has the output's
// pixel size, else into a new image, and returns it. The cursor is left out
// (the observer draws its own). Where the compositor offers copies with
// damage (screencopy version 2+), the output is streamed (stream.go) and a
// capture converts the newest frame; otherwise each capture asks for the
// next frame (CaptureNext).
func (c *Client) Capture(ctx context.Context, out string, dst *image.RGBA) (*image.RGBA, error) {
	if c.copier == nil || c.shm == nil {
		return nil, errMissing(needScreencopy, "capture the screen")
	}
	o, err := c.outputNamed(out)
	if err != nil {
		return nil, err
	}
	if c.copierVersion() >= 2 {
		return c.streamOf(o).capture(ctx, dst)
	}
	return c.captureNext(ctx, o, out, dst)
}

// CaptureNext is Capture waiting for the compositor's next frame: each
// call costs up to a frame period (16.7 ms at 60 Hz), which the stream saves.
func (c *Client) CaptureNext(ctx context.Context, out string, dst *image.RGBA) (*image.RGBA, error) {
	if c.copier == nil || c.shm == nil {
		return nil, errMissing(needScreencopy, "capture the screen")
	}
	o, err := c.outputNamed(out)
	if err != nil {
		return nil, err
	}
	return c.captureNext(ctx, o, out, dst)
}

func (c *Client) captureNext(ctx context.Context, o *output, out string, dst *image.RGBA) (*image.RGBA, error) {
	c.capMu.Lock()
	defer c.capMu.Unlock()
	var info frameInfo
	described, finished := make(chan struct{}), make(chan struct{})
	frame := &wl.ZwlrScreencopyFrameV1{
		OnBuffer: func(format, w, h, stride uint32) {
			info.format, info.width, info.height, info.stride, info.shm = format, int(w), int(h), int(stride), true
		},
		OnBufferDone: func() { close(described) },
		OnFlags:      func(f uint32) { info.flags = f },
		OnReady:      func(uint32, uint32, uint32) { close(finished) },
		OnFailed:     func() { info.failed = true; close(finished) },
	}
	if err := c.copier.CaptureOutput(frame, 0, o.wl); err != nil {
		return nil, err
	}
	defer frame.Destroy()
	// Version 1 and 2 compositors send no buffer_done: the buffer event is all.
	if c.copierVersion() < 3 {
		if err := c.conn.Sync(ctx); err != nil {
			return nil, err
		}
	} else if err := c.conn.Wait(ctx, described); err != nil {
		return nil, fmt.Errorf("wayland capture of %s: %w", out, err)
	}
	if !info.shm {
		return nil, fmt.Errorf("wayland capture of %s: the compositor offers no shared-memory buffer", out)
	}
	if !o.cap.fits(info.format, info.width, info.height, info.stride) {
		o.cap.release()
		o.cap = nil
		s, err := c.newShot(info.format, info.width, info.height, info.stride)
		if err != nil {
			return nil, err
		}
		o.cap = s
	}
	if err := frame.Copy(o.cap.buf); err != nil {
		return nil, err
	}
	if err := c.conn.Wait(ctx, finished); err != nil {
		return nil, fmt.Errorf("wayland capture of %s: %w", out, err)
	}
	if info.failed {
		return nil, fmt.Errorf("wayland capture of %s: the compositor failed the copy", out)
	}
	if dst == nil || dst.Rect.Dx() != info.width || dst.Rect.Dy() != info.height {
		dst = image.NewRGBA(image.Rect(0, 0, info.width, info.height))
	}
	if err := toRGBA(dst, o.cap, info.flags&wl.ZwlrScreencopyFrameV1FlagsYInvert != 0); err != nil {
		return nil, err
	}
	return dst, nil
}

func (c *Client) copierVersion() uint32 {
	for _, g := range c.Globals() {
		if g.Interface == needScreencopy {
			return g.Version
		}
	}
	return 0
}

// toRGBA converts the shared buffer into dst (same size), flipping it when
// the compositor copied it bottom-up. Rows are split between the CPUs, and
// each row is converted two pixels at a time.
func toRGBA(dst *image.RGBA, s *shot, flip bool) error {
	var swap bool
	switch s.format {
	case wl.WlShmFormatXrgb8888, wl.WlShmFormatArgb8888: // bytes B, G, R, X
		swap = true
	case wl.WlShmFormatXbgr8888, wl.WlShmFormatAbgr8888: // bytes R, G, B, X
	default:
		return fmt.Errorf("wayland capture: unsupported pixel format %#x", s.format)
	}
	parts := min(runtime.GOMAXPROCS(0), 4)
	var wg sync.WaitGroup
	for p := range parts {
		y0, y1 := s.height*p/parts, s.height*(p+1)/parts
		wg.Go(func() {
			for y := y0; y < y1; y++ {
				sy := y
				if flip {
					sy = s.height - 1 - y
				}
				convertRow(dst.Pix[y*dst.Stride:y*dst.Stride+4*s.width], s.mem[sy*s.stride:sy*s.stride+4*s.width], swap)
			}
		})
	}
	wg.Wait()
	return nil
}

// convertRow writes the row src (32-bit little-endian pixels) into out as
// RGBA, opaque: with swap the red and blue bytes trade places.
func convertRow(out, src []byte, swap bool) {
	n := len(src) / 8
	in64 := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(src))), n)
	out64 := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(out))), n)
	const alpha, green, low = 0xff000000_ff000000, 0x0000ff00_0000ff00, 0x000000ff_000000ff
	if swap {
		for i, v := range in64 {
			out64[i] = alpha | v&green | (v&low)<<16 | (v>>16)&low
		}
	} else {
		for i, v := range in64 {
			out64[i] = alpha | v
		}
	}
	if len(src)%8 != 0 { // an odd width: the last pixel alone
		i := len(src) - 4
		if swap {
			out[i], out[i+1], out[i+2], out[i+3] = src[i+2], src[i+1], src[i], 0xff
		} else {
			out[i], out[i+1], out[i+2], out[i+3] = src[i], src[i+1], src[i+2], 0xff
		}
	}
}
