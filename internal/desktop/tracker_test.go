//go:build linux

package desktop

import (
	"context"
	"fmt"
	"image"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"deskpilot/internal/testapps"
	"deskpilot/internal/xconn"
	"deskpilot/vision/screen"
	"deskpilot/vision/xdisplay"
)

// xwin is a top-level window this test process creates with xgb.
type xwin struct {
	c  *xgb.Conn
	id xproto.Window
}

// newXWindow creates (unmapped) a window titled title at r, with _NET_WM_PID
// pid and a position the window manager keeps.
func newXWindow(t testing.TB, c *xgb.Conn, title string, r image.Rectangle, pid int) *xwin {
	t.Helper()
	id, err := xproto.NewWindowId(c)
	if err != nil {
		t.Fatal(err)
	}
	s := xproto.Setup(c).DefaultScreen(c)
	if err := xproto.CreateWindowChecked(c, 0, id, s.Root, int16(r.Min.X), int16(r.Min.Y),
		uint16(r.Dx()), uint16(r.Dy()), 0, xproto.WindowClassInputOutput, 0,
		xproto.CwBackPixel, []uint32{0x3366aa}).Check(); err != nil {
		t.Fatal(err)
	}
	setProp(t, c, id, "WM_NAME", xproto.AtomString, 8, []byte(title))
	setProp(t, c, id, "_NET_WM_PID", xproto.AtomCardinal, 32, u32(uint32(pid)))
	// WM_NORMAL_HINTS: user-specified position and size, so openbox keeps them.
	hints := make([]uint32, 18)
	hints[0] = 1 | 4 // USPosition, PPosition
	hints[1], hints[2], hints[3], hints[4] = uint32(r.Min.X), uint32(r.Min.Y), uint32(r.Dx()), uint32(r.Dy())
	setProp(t, c, id, "WM_NORMAL_HINTS", atomOf(t, c, "WM_SIZE_HINTS"), 32, u32(hints...))
	w := &xwin{c: c, id: id}
	t.Cleanup(func() { xproto.DestroyWindow(c, id); roundTrip(c) })
	return w
}

func (w *xwin) mapped(on bool) {
	if on {
		xproto.MapWindow(w.c, w.id)
	} else {
		xproto.UnmapWindow(w.c, w.id)
	}
	roundTrip(w.c)
}

func (w *xwin) move(x, y int) {
	xproto.ConfigureWindow(w.c, w.id, xproto.ConfigWindowX|xproto.ConfigWindowY, []uint32{uint32(x), uint32(y)})
	roundTrip(w.c)
}

// raise asks the window manager to activate (raise and focus) the window,
// as a pager would.
func (w *xwin) raise(t testing.TB) {
	s := xproto.Setup(w.c).DefaultScreen(w.c)
	ev := xproto.ClientMessageEvent{Format: 32, Window: w.id, Type: atomOf(t, w.c, "_NET_ACTIVE_WINDOW"),
		Data: xproto.ClientMessageDataUnionData32New([]uint32{2, xproto.TimeCurrentTime, 0, 0, 0})}
	xproto.SendEvent(w.c, false, s.Root, xproto.EventMaskSubstructureRedirect|xproto.EventMaskSubstructureNotify, string(ev.Bytes()))
	roundTrip(w.c)
}

func setProp(t testing.TB, c *xgb.Conn, w xproto.Window, name string, typ xproto.Atom, format byte, data []byte) {
	t.Helper()
	xproto.ChangeProperty(c, xproto.PropModeReplace, w, atomOf(t, c, name), typ, format,
		uint32(len(data)/int(format/8)), data)
}

func atomOf(t testing.TB, c *xgb.Conn, name string) xproto.Atom {
	t.Helper()
	r, err := xproto.InternAtom(c, false, uint16(len(name)), name).Reply()
	if err != nil {
		t.Fatal(err)
	}
	return r.Atom
}

func u32(vs ...uint32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		xgb.Put32(b[4*i:], v)
	}
	return b
}

func roundTrip(c *xgb.Conn) { _, _ = xproto.GetInputFocus(c).Reply() }

// show maps w and returns its frame once the window manager shows it (see
// frameOf). A window mapped while openbox is still starting can end up
// unmanaged and unmapped (seen when a test process's first window came right
// after xdisplay.Main: openbox framed it, then withdrew it); show maps it
// again then.
func (w *xwin) show(t testing.TB, x *xdisplay.Display, title string) image.Rectangle {
	t.Helper()
	w.mapped(true)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for {
		try, stop := context.WithTimeout(ctx, 2*time.Second)
		_, err := x.WaitWindow(try, title)
		stop()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("window %q never shown: %v", title, err)
		}
		a, err := xproto.GetWindowAttributes(w.c, w.id).Reply()
		if err != nil {
			t.Fatal(err)
		}
		if a.MapState == xproto.MapStateUnmapped {
			w.mapped(true)
		}
	}
	return frameOf(t, x, title)
}

// frameOf waits until the window manager shows the window titled title and
// its frame has kept one place for 300 ms, and returns that frame.
func frameOf(t testing.TB, x *xdisplay.Display, title string) image.Rectangle {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var last image.Rectangle
	for stable := 0; stable < 6; {
		w, err := x.WaitWindow(ctx, title)
		if err != nil {
			t.Fatal(err)
		}
		if w.Frame == last {
			stable++
		} else {
			last, stable = w.Frame, 0
		}
		time.Sleep(50 * time.Millisecond)
	}
	return last
}

// waitOwn polls the tracker until ok accepts what it reports.
func waitOwn(t testing.TB, tr *windowTracker, what string, ok func([]image.Rectangle) bool) []image.Rectangle {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rs, err := tr.ownWindows()
		if err != nil {
			t.Fatal(err)
		}
		if ok(rs) {
			return rs
		}
		if time.Now().After(deadline) {
			t.Fatalf("own windows never became %s; last %v", what, rs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func equal(want ...image.Rectangle) func([]image.Rectangle) bool {
	return func(got []image.Rectangle) bool { return slices.Equal(got, want) }
}

// coverage says, pixel by pixel over area, whether rs covers exactly the
// pixels of shown that are not in hidden.
func coverage(area, shown, hidden image.Rectangle) func([]image.Rectangle) bool {
	return func(rs []image.Rectangle) bool {
		for y := area.Min.Y; y < area.Max.Y; y += 3 {
			for x := area.Min.X; x < area.Max.X; x += 3 {
				p := image.Pt(x, y)
				want := p.In(shown) && !p.In(hidden)
				if in(p, rs) != want {
					return false
				}
			}
		}
		return true
	}
}

// TestTracker follows a window of this process through map, move, being
// covered by another program's window, raise, unmap and destroy.
func TestTracker(t *testing.T) {
	x := attach(t)
	tr, err := trackWindows("", "", os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.close)
	c, err := xconn.Dial("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { xconn.Close(c) })
	sc, err := screen.Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close() })

	waitOwn(t, tr, "empty before any window", equal())
	own := newXWindow(t, c, "tracker-own", image.Rect(40, 40, 340, 240), os.Getpid())
	other := newXWindow(t, c, "tracker-other-pid", image.Rect(700, 500, 900, 600), os.Getpid()+100000)
	other.show(t, x, "tracker-other-pid")
	f1 := own.show(t, x, "tracker-own")
	waitOwn(t, tr, "the mapped window", equal(f1))
	if scan, err := sc.WindowsOfPID(os.Getpid()); err != nil || !slices.Equal(scan, []image.Rectangle{f1}) {
		t.Errorf("the full scan sees %v (%v), the tracker %v", scan, err, f1)
	}

	own.move(60, 70)
	f2 := frameOf(t, x, "tracker-own")
	if f2 == f1 {
		t.Fatalf("the window did not move: %v", f2)
	}
	waitOwn(t, tr, "the moved window", equal(f2))

	// Another program's window opens above and covers part of ours.
	testapps.StartForm(t, x)
	form := frameOf(t, x, testapps.FormTitle)
	if !form.Overlaps(f2) {
		t.Fatalf("the form %v does not overlap the window %v", form, f2)
	}
	area := f2.Union(form).Inset(-5)
	waitOwn(t, tr, "the window minus the form", coverage(area, f2, form))

	own.raise(t)
	waitOwn(t, tr, "the raised window whole", equal(f2))

	own.mapped(false)
	waitOwn(t, tr, "empty after unmap", equal())
	f3 := own.show(t, x, "tracker-own")
	waitOwn(t, tr, "the window mapped again", equal(f3))

	xproto.DestroyWindow(c, own.id)
	roundTrip(c)
	waitOwn(t, tr, "empty after destroy", equal())
}

// TestDesktopOwnWindows: only a desktop opened with HasWindow looks for its
// windows, on every backend.
func TestDesktopOwnWindows(t *testing.T) {
	x := attach(t)
	c, err := xconn.Dial("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { xconn.Close(c) })
	w := newXWindow(t, c, "desktop-own", image.Rect(400, 300, 600, 420), os.Getpid())
	f := w.show(t, x, "desktop-own")
	for _, backend := range testBackends {
		t.Run(backend, func(t *testing.T) {
			cli := openTest(t, Options{Backend: backend})
			if got := cli.OwnWindows(); got != nil {
				t.Errorf("a desktop without a window of its own lists %v", got)
			}
			cli.Close()
			app := openTest(t, Options{Backend: backend, HasWindow: true})
			deadline := time.Now().Add(30 * time.Second)
			for !slices.Contains(app.OwnWindows(), f) {
				if time.Now().After(deadline) {
					t.Fatalf("OwnWindows = %v, want it to hold %v", app.OwnWindows(), f)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// BenchmarkOwnWindows compares listing deskpilot's windows by walking the
// window tree (what every input action did) with the tracker, on a display
// with 30 top-level windows, 3 of them this process's.
func BenchmarkOwnWindows(b *testing.B) {
	x, err := xdisplay.Attach("")
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	c, err := xconn.Dial("")
	if err != nil {
		b.Fatal(err)
	}
	defer xconn.Close(c)
	for i := range 30 {
		pid := os.Getpid() + 100000
		if i%10 == 0 {
			pid = os.Getpid()
		}
		r := image.Rect(20+i*30, 20+i*20, 220+i*30, 170+i*20)
		title := fmt.Sprintf("bench-%d", i)
		newXWindow(b, c, title, r, pid).show(b, x, title)
	}
	sc, err := screen.Open("")
	if err != nil {
		b.Fatal(err)
	}
	defer sc.Close()
	tr, err := trackWindows("", "", os.Getpid())
	if err != nil {
		b.Fatal(err)
	}
	defer tr.close()
	scan, _ := sc.WindowsOfPID(os.Getpid())
	if len(scan) != 3 {
		b.Fatalf("the scan found %d windows of this process, want 3", len(scan))
	}
	// The tracker reads each window's owner the first time it is listed, as
	// the app's first step would; the loop measures every later call.
	waitOwn(b, tr, "the 3 windows of this process", func(rs []image.Rectangle) bool { return len(rs) >= 3 })
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			if _, err := sc.WindowsOfPID(os.Getpid()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tracker", func(b *testing.B) {
		for b.Loop() {
			if _, err := tr.ownWindows(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
