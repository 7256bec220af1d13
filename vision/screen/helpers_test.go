//go:build linux

package screen

import (
	"context"
	"image"
	"image/color"
	"testing"
	"time"

	"deskpilot/vision/xdisplay"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// patch is a solid rectangle painted on the display as an override-redirect window.
type patch struct {
	r image.Rectangle
	c color.RGBA
}

// paint shows patches on the display named name (later patches on top) through its
// own X connection, and waits until the server has painted them. The windows stay
// until the test ends.
func paint(t testing.TB, name string, patches ...patch) {
	t.Helper()
	conn, err := xgb.NewConnDisplay(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	sc := xproto.Setup(conn).DefaultScreen(conn)
	f, err := rootFormat(xproto.Setup(conn), sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range patches {
		id, err := xproto.NewWindowId(conn)
		if err != nil {
			t.Fatal(err)
		}
		err = xproto.CreateWindowChecked(conn, sc.RootDepth, id, sc.Root,
			int16(p.r.Min.X), int16(p.r.Min.Y), uint16(p.r.Dx()), uint16(p.r.Dy()), 0,
			xproto.WindowClassInputOutput, sc.RootVisual,
			xproto.CwBackPixel|xproto.CwOverrideRedirect,
			[]uint32{f.pixel(p.c), 1}).Check()
		if err != nil {
			t.Fatalf("create window: %v", err)
		}
		if err := xproto.MapWindowChecked(conn, id).Check(); err != nil {
			t.Fatalf("map window: %v", err)
		}
	}
	// A round trip after the maps: the server paints backgrounds while mapping.
	if _, err := xproto.GetInputFocus(conn).Reply(); err != nil {
		t.Fatal(err)
	}
}

// pixel is the inverse of channel.get for colours the format can represent exactly.
func (f pixelFormat) pixel(c color.RGBA) uint32 {
	put := func(ch channel, v uint8) uint32 {
		x := uint32(v)
		if ch.width < 8 {
			x = x * (1<<ch.width - 1) / 255
		} else {
			x <<= ch.width - 8
		}
		return x << ch.shift
	}
	return put(f.r, c.R) | put(f.g, c.G) | put(f.b, c.B)
}

// startDisplay starts a private display for one test.
func startDisplay(t testing.TB, o xdisplay.Options) *xdisplay.Display {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d, err := xdisplay.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	return d
}

// openScreen opens a Screen on a private display, with its XAUTHORITY, and closes it
// when the test ends.
func openScreen(t testing.TB, d *xdisplay.Display) *Screen {
	t.Helper()
	t.Setenv("XAUTHORITY", d.XAuthority)
	s, err := Open(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// checkPixels asserts img's pixel at each image point.
func checkPixels(t *testing.T, img *image.RGBA, want map[image.Point]color.RGBA) {
	t.Helper()
	for p, c := range want {
		if got := img.RGBAAt(p.X, p.Y); got != c {
			t.Errorf("pixel %v = %v, want %v", p, got, c)
		}
	}
}
