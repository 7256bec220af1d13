package wldisplay

import (
	"context"
	"fmt"
	"image/color"

	"golang.org/x/sys/unix"

	"deskpilot/internal/wl"
)

// TestWindow is a window this process shows on a compositor: one solid colour,
// of a fixed size (so a tiling compositor floats it). Own-window tests use it:
// the compositor counts it as the test process's.
type TestWindow struct {
	conn *wl.Conn
	mem  []byte
	fd   int
}

// OpenWindow shows a w x h window titled title on the compositor at socket
// and returns once its first frame is committed.
func OpenWindow(ctx context.Context, socket, title string, w, h int, c color.RGBA) (_ *TestWindow, err error) {
	conn, err := wl.Dial(socket)
	if err != nil {
		return nil, err
	}
	win := &TestWindow{conn: conn, fd: -1}
	defer func() {
		if err != nil {
			win.Close()
		}
	}()
	var comp *wl.WlCompositor
	var shm *wl.WlShm
	var base *wl.XdgWmBase
	reg := &wl.WlRegistry{}
	reg.OnGlobal = func(name uint32, iface string, version uint32) {
		switch iface {
		case wl.WlCompositorInterface:
			comp = &wl.WlCompositor{}
			_ = reg.Bind(name, comp, min(version, 4))
		case wl.WlShmInterface:
			shm = &wl.WlShm{}
			_ = reg.Bind(name, shm, 1)
		case wl.XdgWmBaseInterface:
			base = &wl.XdgWmBase{}
			base.OnPing = func(serial uint32) { _ = base.Pong(serial) }
			_ = reg.Bind(name, base, min(version, 2))
		}
	}
	if err := conn.Display().GetRegistry(reg); err != nil {
		return nil, err
	}
	if err := conn.Sync(ctx); err != nil {
		return nil, err
	}
	if comp == nil || shm == nil || base == nil {
		return nil, fmt.Errorf("wldisplay: the compositor lacks wl_compositor, wl_shm or xdg_wm_base")
	}
	surf := &wl.WlSurface{}
	if err := comp.CreateSurface(surf); err != nil {
		return nil, err
	}
	configured := make(chan struct{})
	var serial uint32
	xs := &wl.XdgSurface{OnConfigure: func(s uint32) {
		serial = s
		select {
		case <-configured:
		default:
			close(configured)
		}
	}}
	if err := base.GetXdgSurface(xs, surf); err != nil {
		return nil, err
	}
	top := &wl.XdgToplevel{}
	if err := xs.GetToplevel(top); err != nil {
		return nil, err
	}
	_ = top.SetTitle(title)
	_ = top.SetAppId("deskpilot-test-window")
	_ = top.SetMinSize(int32(w), int32(h))
	_ = top.SetMaxSize(int32(w), int32(h))
	if err := surf.Commit(); err != nil {
		return nil, err
	}
	if err := conn.Wait(ctx, configured); err != nil {
		return nil, err
	}
	if err := xs.AckConfigure(serial); err != nil {
		return nil, err
	}
	buf, err := win.buffer(shm, w, h, c)
	if err != nil {
		return nil, err
	}
	_ = surf.Attach(buf, 0, 0)
	_ = surf.Damage(0, 0, int32(w), int32(h))
	if err := surf.Commit(); err != nil {
		return nil, err
	}
	return win, conn.Sync(ctx)
}

// buffer makes a shared-memory buffer filled with c.
func (win *TestWindow) buffer(shm *wl.WlShm, w, h int, c color.RGBA) (*wl.WlBuffer, error) {
	size := w * h * 4
	fd, err := unix.MemfdCreate("wldisplay-window", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	win.fd = fd
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		return nil, err
	}
	if win.mem, err = unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED); err != nil {
		return nil, err
	}
	for i := 0; i < size; i += 4 { // XRGB8888: bytes B, G, R, X
		win.mem[i], win.mem[i+1], win.mem[i+2], win.mem[i+3] = c.B, c.G, c.R, 0xff
	}
	pool := &wl.WlShmPool{}
	if err := shm.CreatePool(pool, fd, int32(size)); err != nil {
		return nil, err
	}
	buf := &wl.WlBuffer{}
	if err := pool.CreateBuffer(buf, 0, int32(w), int32(h), int32(4*w), wl.WlShmFormatXrgb8888); err != nil {
		return nil, err
	}
	return buf, nil
}

// Close closes the window.
func (win *TestWindow) Close() error {
	win.conn.Close()
	if win.mem != nil {
		unix.Munmap(win.mem)
	}
	if win.fd >= 0 {
		unix.Close(win.fd)
	}
	return nil
}
