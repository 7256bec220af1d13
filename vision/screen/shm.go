//go:build linux

package screen

import (
	"deskpilot/internal/xconn"
	"fmt"
	"image"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/shm"
	"github.com/jezek/xgb/xproto"
	"golang.org/x/sys/unix"
)

// segment is a SysV shared-memory segment attached by both this process and the X
// server. It is marked for removal as soon as both are attached, so the kernel frees
// it when the last of them detaches or exits, even after a crash.
type segment struct {
	id   shm.Seg
	data []byte
}

// shmAvailable reports whether the server offers MIT-SHM.
func shmAvailable(c *xgb.Conn) bool {
	if err := xconn.Enable(c, xconn.SHM); err != nil {
		return false
	}
	_, err := shm.QueryVersion(c).Reply()
	return err == nil
}

// newSegment creates and attaches a segment of size bytes.
func newSegment(c *xgb.Conn, size int) (*segment, error) {
	shmid, err := unix.SysvShmGet(unix.IPC_PRIVATE, size, unix.IPC_CREAT|0o600)
	if err != nil {
		return nil, fmt.Errorf("shmget %d bytes: %w", size, err)
	}
	// From here on the segment is removed on every path: now on error, or once
	// both sides have attached.
	defer func() { _, _ = unix.SysvShmCtl(shmid, unix.IPC_RMID, nil) }()
	data, err := unix.SysvShmAttach(shmid, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("shmat: %w", err)
	}
	id, err := shm.NewSegId(c)
	if err != nil {
		_ = unix.SysvShmDetach(data)
		return nil, fmt.Errorf("shm segment id: %w", err)
	}
	if err := shm.AttachChecked(c, id, uint32(shmid), false).Check(); err != nil {
		_ = unix.SysvShmDetach(data)
		return nil, fmt.Errorf("shm attach: %w", err)
	}
	return &segment{id: id, data: data}, nil
}

// getImage has the server write rectangle r of d into the segment at offset 0.
func (g *segment) getImage(c *xgb.Conn, d xproto.Drawable, r image.Rectangle) (*shm.GetImageReply, error) {
	reply, err := shm.GetImage(c, d, int16(r.Min.X), int16(r.Min.Y), uint16(r.Dx()), uint16(r.Dy()),
		^uint32(0), xproto.ImageFormatZPixmap, g.id, 0).Reply()
	if err != nil {
		return nil, fmt.Errorf("shm get image: %w", err)
	}
	return reply, nil
}

// release detaches both sides; errors are irrelevant because the segment is already
// marked for removal.
func (g *segment) release(c *xgb.Conn) {
	_ = shm.DetachChecked(c, g.id).Check()
	_ = unix.SysvShmDetach(g.data)
}
