//go:build !linux

package screen

import (
	"errors"
	"image"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/shm"
	"github.com/jezek/xgb/xproto"
)

// segment stands in for the SysV shared-memory segment, which this build does
// not use: SysV shared memory with an X server is set up on Linux only.
type segment struct {
	id   shm.Seg
	data []byte
}

// errNoSHM says why captures use plain GetImage here.
var errNoSHM = errors.New("MIT-SHM capture is only built on Linux")

// shmAvailable is false: captures use plain GetImage.
func shmAvailable(*xgb.Conn) bool { return false }

func newSegment(*xgb.Conn, int) (*segment, error) { return nil, errNoSHM }

func (g *segment) getImage(*xgb.Conn, xproto.Drawable, image.Rectangle) (*shm.GetImageReply, error) {
	return nil, errNoSHM
}

func (g *segment) release(*xgb.Conn) {}
