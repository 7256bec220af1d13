package calibrate

import (
	"fmt"
	"image"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"deskpilot/internal/xconn"
)

// Window is the calibration screen: one override-redirect window per
// monitor, above everything, showing that monitor's targets. The X server
// paints it from a pixmap, so it needs no event loop.
type Window struct {
	conn *xgb.Conn
	ids  []xproto.Window
	pix  []xproto.Pixmap
}

// Show opens the calibration screen on X display name ("" = $DISPLAY):
// for each monitor (root coordinates) its picture (Paint).
func Show(name string, monitors []image.Rectangle, pictures []*image.RGBA) (*Window, error) {
	conn, err := xconn.Dial(name)
	if err != nil {
		return nil, fmt.Errorf("calibration window: %w", err)
	}
	w := &Window{conn: conn}
	screen := xproto.Setup(conn).DefaultScreen(conn)
	if screen.RootDepth != 24 {
		_ = w.Close()
		return nil, fmt.Errorf("calibration window: the display has depth %d, want 24", screen.RootDepth)
	}
	for i, m := range monitors {
		if err := w.open(screen, m, pictures[i]); err != nil {
			_ = w.Close()
			return nil, fmt.Errorf("calibration window on %v: %w", m, err)
		}
	}
	// A round trip: every request above has reached the server.
	if _, err := xproto.GetInputFocus(conn).Reply(); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("calibration window: %w", err)
	}
	return w, nil
}

func (w *Window) open(screen *xproto.ScreenInfo, m image.Rectangle, pic *image.RGBA) error {
	pix, err := xproto.NewPixmapId(w.conn)
	if err != nil {
		return err
	}
	if err := xproto.CreatePixmapChecked(w.conn, screen.RootDepth, pix, xproto.Drawable(screen.Root), uint16(m.Dx()), uint16(m.Dy())).Check(); err != nil {
		return err
	}
	w.pix = append(w.pix, pix)
	gc, err := xproto.NewGcontextId(w.conn)
	if err != nil {
		return err
	}
	if err := xproto.CreateGCChecked(w.conn, gc, xproto.Drawable(pix), 0, nil).Check(); err != nil {
		return err
	}
	defer xproto.FreeGC(w.conn, gc)
	if err := w.put(pix, gc, pic); err != nil {
		return err
	}
	id, err := xproto.NewWindowId(w.conn)
	if err != nil {
		return err
	}
	mask := uint32(xproto.CwBackPixmap | xproto.CwOverrideRedirect)
	if err := xproto.CreateWindowChecked(w.conn, screen.RootDepth, id, screen.Root, int16(m.Min.X), int16(m.Min.Y),
		uint16(m.Dx()), uint16(m.Dy()), 0, xproto.WindowClassInputOutput, screen.RootVisual, mask,
		[]uint32{uint32(pix), 1}).Check(); err != nil {
		return err
	}
	w.ids = append(w.ids, id)
	title := "deskpilot calibration"
	xproto.ChangeProperty(w.conn, xproto.PropModeReplace, id, xproto.AtomWmName, xproto.AtomString, 8, uint32(len(title)), []byte(title))
	if err := xproto.MapWindowChecked(w.conn, id).Check(); err != nil {
		return err
	}
	return xproto.ConfigureWindowChecked(w.conn, id, xproto.ConfigWindowStackMode, []uint32{xproto.StackModeAbove}).Check()
}

// put uploads pic into the pixmap in strips that fit one request.
func (w *Window) put(pix xproto.Pixmap, gc xproto.Gcontext, pic *image.RGBA) error {
	width, height := pic.Rect.Dx(), pic.Rect.Dy()
	maxBytes := int(xproto.Setup(w.conn).MaximumRequestLength)*4 - 64
	rows := max(1, maxBytes/(width*4))
	buf := make([]byte, 0, rows*width*4)
	for y0 := 0; y0 < height; y0 += rows {
		n := min(rows, height-y0)
		buf = buf[:0]
		for y := y0; y < y0+n; y++ {
			row := pic.Pix[y*pic.Stride : y*pic.Stride+width*4]
			for x := 0; x < width*4; x += 4 {
				buf = append(buf, row[x+2], row[x+1], row[x], 0) // BGRX
			}
		}
		if err := xproto.PutImageChecked(w.conn, xproto.ImageFormatZPixmap, xproto.Drawable(pix), gc,
			uint16(width), uint16(n), 0, int16(y0), 0, 24, buf).Check(); err != nil {
			return err
		}
	}
	return nil
}

// Close removes the calibration screen.
func (w *Window) Close() error {
	for _, id := range w.ids {
		xproto.DestroyWindow(w.conn, id)
	}
	for _, p := range w.pix {
		xproto.FreePixmap(w.conn, p)
	}
	if len(w.ids) > 0 {
		_, _ = xproto.GetInputFocus(w.conn).Reply()
	}
	w.conn.Close()
	return nil
}
