//go:build linux && cgo

package desktop

import (
	"context"
	"fmt"
	"image"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/vision"
	"deskpilot/vision/wldisplay"
)

// mutterInvisible is how far Mutter's frame window reaches past a window's
// visible edge: its invisible resize borders, input of the window (a press
// there resizes it), so they are masked and refused with it.
const mutterInvisible = 10

// xClientRect is where the X11 client window of process pid is on mutter's
// Xwayland, as xdotool finds it and xwininfo reads it (root coordinates of the client, without
// the window manager's frame); it waits for the window to be mapped.
func xClientRect(t *testing.T, m *wldisplay.Mutter, pid int) image.Rectangle {
	t.Helper()
	return xGeometry(t, m, xWindowOf(t, m, pid))
}

// xWindowOf is the id of the mapped X11 window of process pid, once it is.
func xWindowOf(t *testing.T, m *wldisplay.Mutter, pid int) string {
	t.Helper()
	for _, p := range []string{"xdotool", "xwininfo"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed (make deps installs it)", p)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	ids, err := m.X11Command(ctx, "xdotool", "search", "--sync", "--onlyvisible", "--pid", fmt.Sprint(pid)).Output()
	if err != nil || len(strings.Fields(string(ids))) == 0 {
		t.Fatalf("xdotool found no window of %d: %v", pid, err)
	}
	return strings.Fields(string(ids))[0]
}

// xGeometry is where X11 window id is, root coordinates.
func xGeometry(t *testing.T, m *wldisplay.Mutter, id string) image.Rectangle {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	// xwininfo, not xdotool's getwindowgeometry: that one adds the
	// client's offset in its frame twice.
	out, err := m.X11Command(ctx, "xwininfo", "-id", id).CombinedOutput()
	if err != nil {
		t.Fatalf("xwininfo: %v (%s)", err, out)
	}
	v := map[string]int{}
	for _, line := range strings.Split(string(out), "\n") {
		k, val, ok := strings.Cut(strings.TrimSpace(line), ":")
		var n int
		if _, err := fmt.Sscan(strings.TrimSpace(val), &n); ok && err == nil {
			v[k] = n
		}
	}
	r := image.Rect(v["Absolute upper-left X"], v["Absolute upper-left Y"], v["Absolute upper-left X"]+v["Width"], v["Absolute upper-left Y"]+v["Height"])
	if r.Empty() {
		t.Fatalf("xdotool printed %q", out)
	}
	return r
}

// xMove moves X11 window id to at (xdotool windowmove) and returns where
// it is once Xwayland has it elsewhere.
func xMove(t *testing.T, m *wldisplay.Mutter, id string, at image.Point) image.Rectangle {
	t.Helper()
	before := xGeometry(t, m, id)
	if out, err := m.X11Command(t.Context(), "xdotool", "windowmove", "--sync", id, fmt.Sprint(at.X), fmt.Sprint(at.Y)).CombinedOutput(); err != nil {
		t.Fatalf("xdotool windowmove: %v (%s)", err, out)
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if r := xGeometry(t, m, id); r != before {
			return r
		}
	}
	t.Fatalf("window %s stayed at %v, moved to %v", id, before, at)
	return before
}

// waitPeerFrame waits until d lists one own window that holds visible and reaches
// at most Mutter's invisible borders past it, and returns it.
func waitPeerFrame(t *testing.T, d *Desktop, visible image.Rectangle) image.Rectangle {
	t.Helper()
	var got []image.Rectangle
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		got = d.OwnWindows()
		if len(got) == 1 && visible.In(got[0]) && got[0].In(visible.Inset(-mutterInvisible)) {
			return got[0]
		}
	}
	t.Fatalf("own windows %v, want the peer's window %v alone (its frame at most %d px larger)", got, visible, mutterInvisible)
	return image.Rectangle{}
}

// checkPeerWindows is TestGnomePeerWindows on an open desktop: zenity
// (peer, an X11 client of Xwayland announced as a deskpilot peer) is
// deskpilot's own, the stranger's zenity is not; the screenshot masked as
// the agent masks it hatches the peer's window and nothing of the
// stranger's, and the stranger's OK clicked through the backend's input is
// where Xwayland put it (the layouts agree).
func checkPeerWindows(t *testing.T, m *wldisplay.Mutter, d *Desktop, peer *wldisplay.App, asked *atomic.Int32) {
	t.Helper()
	pc := xClientRect(t, m, peer.PID())
	// The visible window: the client and Mutter's title bar above it (the
	// light box, sampled every 2 px, gives the title bar's top).
	seen := lightBox(t, d, 150)
	if !pc.In(seen.Inset(-2)) {
		t.Fatalf("the peer's client %v is not in the window seen at %v", pc, seen)
	}
	box := image.Rect(pc.Min.X, seen.Min.Y, pc.Max.X, pc.Max.Y)
	stranger, err := m.StartX11("zenity", "--entry", "--text", "a stranger", "--entry-text", "stranger clicked")
	if err != nil {
		t.Fatal(err)
	}
	// Mutter centres it over the peer: the stranger moves it aside.
	sc := xMove(t, m, xWindowOf(t, m, stranger.PID()), image.Pt(60, 80))
	if sc.Overlaps(box) {
		t.Fatalf("mutter put the stranger at %v over the peer at %v", sc, box)
	}
	own := waitPeerFrame(t, d, box)
	n := asked.Load()
	for range 3 {
		d.OwnWindows()
	}
	if asked.Load() != n {
		t.Errorf("the peers were asked %d more times with no new window", asked.Load()-n)
	}

	// The observation: the peer's window hatched, the stranger's not.
	time.Sleep(300 * time.Millisecond) // the stranger's first frame is in the stream
	shot, err := d.Capture(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	vision.MaskRects(shot, d.OwnWindows())
	save(t, shot, "gnome-peer-masked.png")
	covered := 0
	for _, a := range vision.MaskedAreas(shot) {
		in := a.Intersect(box)
		covered += in.Dx() * in.Dy()
		// MaskedAreas grows each run of hatched cells by a 16 px cell each way.
		if in := a.Intersect(sc); in.Dx() > 16 && in.Dy() > 16 {
			t.Errorf("the hatching at %v covers %v of the stranger's window %v", a, in, sc)
		}
	}
	if area := box.Dx() * box.Dy(); covered < area*9/10 {
		t.Errorf("the hatching covers %d of the %d pixels of the peer's window %v", covered, area, box)
	}

	// The peer's OK is in an own window (the guard refuses it); the
	// stranger's is not, and a click there reaches the stranger.
	peerOK, strangerOK := pc.Max.Sub(image.Pt(54, 25)), sc.Max.Sub(image.Pt(54, 25))
	if !peerOK.In(own) || slices.ContainsFunc(d.OwnWindows(), strangerOK.In) {
		t.Fatalf("own windows %v: the peer's OK %v must be in one, the stranger's %v in none", d.OwnWindows(), peerOK, strangerOK)
	}
	if err := d.Input().Click(t.Context(), actions.Point{X: strangerOK.X, Y: strangerOK.Y}, actions.Left, 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if out, err := stranger.Wait(ctx); err != nil || out != "stranger clicked\n" {
		t.Fatalf("the stranger printed %q (%v): the click at %v did not land on its OK (client %v)", out, err, strangerOK, sc)
	}
	if peer.Exited() {
		t.Fatalf("the peer ended: %q", peer.Output())
	}

	// The peer's window closed is gone from the list.
	peer.Stop()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && len(d.OwnWindows()) > 0; time.Sleep(20 * time.Millisecond) {
	}
	if got := d.OwnWindows(); len(got) != 0 {
		t.Errorf("after the peer quit, own windows %v", got)
	}
}

// TestGnomePeerWindows: on GNOME no client can list other windows, but
// deskpilot's app is an X11 client, and Mutter is Xwayland's window manager.
// The gnome backend, told only the session bus, finds Mutter's Xwayland
// (the child of the bus's Mutter) and lists the announced peer's window there,
// in the screen's coordinates, and no other.
func TestGnomePeerWindows(t *testing.T) {
	m := startMutter(t, wldisplay.MutterOptions{X11: true})
	peer, err := m.StartX11("zenity", "--entry", "--text", "the app stands in", "--entry-text", "clicked")
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int32
	d := openTest(t, Options{Backend: "gnome", SessionBus: m.Bus, PipeWire: m.PipeWire, Peers: func() []int {
		asked.Add(1)
		return []int{peer.PID()}
	}})
	checkPeerWindows(t, m, d, peer, &asked)
}

// TestPortalPeerWindows is TestGnomePeerWindows through the portal backend,
// told only the Wayland socket: Xwayland is found as the child of the
// process serving it.
func TestPortalPeerWindows(t *testing.T) {
	m := startMutter(t, wldisplay.MutterOptions{X11: true, Portal: true})
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	var peerPID atomic.Int32
	var asked atomic.Int32
	d := openPortalConsentedWith(t, m, Options{Peers: func() []int {
		asked.Add(1)
		return []int{int(peerPID.Load())}
	}})
	peer, err := m.StartX11("zenity", "--entry", "--text", "the app stands in", "--entry-text", "clicked")
	if err != nil {
		t.Fatal(err)
	}
	peerPID.Store(int32(peer.PID()))
	checkPeerWindows(t, m, d, peer, &asked)
}

// doctor says where the gnome backend finds deskpilot's windows: on
// mutter's Xwayland when it runs one, and on no X display when it does not,
// even with $DISPLAY naming another one (the test binary's private display).
func TestGnomeDoctorFindsXwayland(t *testing.T) {
	for _, x11 := range []bool{true, false} {
		t.Run(fmt.Sprint("x11=", x11), func(t *testing.T) {
			m := startMutter(t, wldisplay.MutterOptions{X11: x11})
			var f *Finding
			for _, got := range DiagnoseWayland(t.Context(), Options{Backend: "gnome", SessionBus: m.Bus, Wayland: m.Socket}, func(string) string { return "" }) {
				if got.Name == "xwayland" {
					f = &got
				}
			}
			switch {
			case f == nil:
				t.Fatal("doctor says nothing of Xwayland")
			case x11 && (!f.OK || !strings.Contains(f.Detail, "Xwayland "+m.XDisplay+":")):
				t.Errorf("with mutter's Xwayland at %s, doctor says %+v", m.XDisplay, *f)
			case !x11 && (f.OK || !strings.Contains(f.Detail, "no Xwayland found")):
				t.Errorf("without Xwayland (DISPLAY=%q here), doctor says %+v", os.Getenv("DISPLAY"), *f)
			}
		})
	}
}

// Mutter keeps Xwayland's stacking as it stacks the windows: a stranger's
// X11 window raised over part of the peer's takes that part out of the own
// windows (its click goes to the stranger), and the rest stays own.
func TestGnomePeerWindowCovered(t *testing.T) {
	m := startMutter(t, wldisplay.MutterOptions{X11: true})
	peer, err := m.StartX11("zenity", "--entry", "--text", "the app stands in", "--entry-text", "clicked")
	if err != nil {
		t.Fatal(err)
	}
	d := openTest(t, Options{Backend: "gnome", SessionBus: m.Bus, PipeWire: m.PipeWire, Peers: func() []int { return []int{peer.PID()} }})
	pc := xClientRect(t, m, peer.PID())
	seen := lightBox(t, d, 150)
	waitPeerFrame(t, d, image.Rect(pc.Min.X, seen.Min.Y, pc.Max.X, pc.Max.Y))
	stranger, err := m.StartX11("zenity", "--entry", "--text", "a stranger", "--entry-text", "stranger clicked")
	if err != nil {
		t.Fatal(err)
	}
	// Over the peer's right half, on top (the newest window has the focus).
	sc := xMove(t, m, xWindowOf(t, m, stranger.PID()), pc.Min.Add(image.Pt(pc.Dx()/2, 60)))
	if !sc.Overlaps(pc) {
		t.Fatalf("the stranger at %v does not cover the peer at %v", sc, pc)
	}
	var got []image.Rectangle
	covered := func() bool {
		got = d.OwnWindows()
		if len(got) == 0 {
			return false
		}
		for _, r := range got {
			if r.Overlaps(sc) {
				return false
			}
		}
		return true
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && !covered(); time.Sleep(20 * time.Millisecond) {
	}
	if !covered() {
		t.Fatalf("own windows %v overlap the stranger's %v on top of the peer's %v", got, sc, pc)
	}
	// The peer's uncovered left part (its Cancel) is still own.
	cancel := image.Pt(pc.Min.X+40, pc.Max.Y-25)
	if cancel.In(sc) || !slices.ContainsFunc(got, cancel.In) {
		t.Errorf("own windows %v: the peer's Cancel at %v (stranger at %v) must be in one", got, cancel, sc)
	}
}
