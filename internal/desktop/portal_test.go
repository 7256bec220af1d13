//go:build linux && cgo

package desktop

import (
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/internal/mutter"
	"deskpilot/internal/pipewire"
	"deskpilot/vision/wldisplay"
)

// harness is the test's own Mutter session on the compositor, beside the
// backend's: it sees the screen and clicks the consent dialog, as the person
// would.
type harness struct {
	t  *testing.T
	s  *mutter.Session
	st *pipewire.Stream
}

func newHarness(t *testing.T, m *wldisplay.Mutter) *harness {
	conn, err := mutter.Connect(m.Bus)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	s, err := mutter.Start(ctx, conn, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	fd, err := pipewire.Dial(m.PipeWire)
	if err != nil {
		t.Fatal(err)
	}
	st, err := pipewire.Open(fd, s.Node())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.WaitFrame(ctx); err != nil {
		t.Fatal(err)
	}
	// Mutter drops a new session's first events: spend them on a move.
	s.MoveTo(image.Pt(1, 1))
	s.Sync(ctx)
	time.Sleep(firstKeySettle)
	return &harness{t: t, s: s, st: st}
}

func (h *harness) frame() *image.RGBA {
	f, _, err := h.st.Frame(nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return f
}

func (h *harness) click(p image.Point) {
	if err := h.s.MoveTo(p); err != nil {
		h.t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	h.s.Button(btnLeft, true)
	h.s.Button(btnLeft, false)
	h.s.Sync(h.t.Context())
}

// waitBlue waits until the frame shows GNOME's accent blue (a suggested
// button, a switch turned on) in within (the whole frame when empty), at
// least n pixels of it, and returns the middle of the blue.
func (h *harness) waitBlue(within image.Rectangle, n int, wait time.Duration) image.Point {
	for end := time.Now().Add(wait); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		f := h.frame()
		r := within
		if r.Empty() {
			r = f.Rect
		}
		var box image.Rectangle
		count := 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if c := f.RGBAAt(x, y); c.B > 200 && c.R < 80 && c.G > 110 && c.G < 150 {
					box = box.Union(image.Rect(x, y, x+1, y+1))
					count++
				}
			}
		}
		if count >= n {
			return box.Min.Add(box.Size().Div(2))
		}
	}
	h.t.Fatalf("no blue in %v", within)
	return image.Point{}
}

func save(t *testing.T, f *image.RGBA, name string) {
	if dir := os.Getenv("DESKPILOT_SAVE_FRAMES"); dir != "" {
		out, _ := os.Create(filepath.Join(dir, name))
		png.Encode(out, f)
		out.Close()
	}
}

// openPortalConsented opens the portal backend on m, answering
// portal-gnome's consent dialog as the person would: the harness turns on
// "Allow remote interaction" and clicks Share.
func openPortalConsented(t *testing.T, m *wldisplay.Mutter) *Desktop {
	t.Helper()
	return openPortalConsentedWith(t, m, Options{})
}

// openPortalConsentedWith is openPortalConsented with more options (o's
// backend, bus and Wayland socket are set to m's).
func openPortalConsentedWith(t *testing.T, m *wldisplay.Mutter, o Options) *Desktop {
	t.Helper()
	o.Backend, o.SessionBus, o.Wayland = "portal", m.Bus, m.Socket
	h := newHarness(t, m)
	type opened struct {
		d   *Desktop
		err error
	}
	done := make(chan opened, 1)
	go func() {
		d, err := Open(o)
		done <- opened{d, err}
	}()
	// The dialog is in place once Share (the blue button) stays put.
	share := h.waitBlue(image.Rectangle{}, 40, 20*time.Second)
	for again := h.waitBlue(image.Rectangle{}, 40, 20*time.Second); again != share; again = h.waitBlue(image.Rectangle{}, 40, 20*time.Second) {
		share = again
		time.Sleep(100 * time.Millisecond)
	}
	save(t, h.frame(), "portal-dialog.png")
	// portal-gnome 43's dialog: "Allow remote interaction" is off; its switch
	// sits 200 px below Share and 22 px left of it. Turn it on (it turns
	// blue), then Share.
	toggle := share.Add(image.Pt(-22, 200))
	h.click(toggle)
	h.waitBlue(image.Rectangle{Min: toggle.Sub(image.Pt(30, 15)), Max: toggle.Add(image.Pt(30, 15))}, 10, 20*time.Second)
	h.click(share)
	var got opened
	select {
	case got = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("no answer")
	}
	if got.err != nil {
		t.Fatal(got.err)
	}
	t.Cleanup(func() { got.d.Close() })
	return got.d
}

func TestPortalConsentAndInput(t *testing.T) {
	m := startMutter(t, wldisplay.MutterOptions{Portal: true})
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	d := openPortalConsented(t, m)
	if d.Backend() != "portal" || d.Target().Bounds != image.Rect(0, 0, 1280, 720) {
		t.Fatalf("backend %s, target %v", d.Backend(), d.Target().Bounds)
	}
	// The dialog is gone; zenity comes up, is clicked through the portal and
	// typed into through it.
	a := startIn(t, m, "zenity", "--entry", "--text", "Portal")
	box := lightBox(t, d, 150)
	if err := d.Input().Type(t.Context(), "typed via the portal"); err != nil {
		t.Fatal(err)
	}
	if err := d.Input().Type(t.Context(), "ü"); err == nil {
		t.Error("the portal typed a character it cannot type; it must refuse it")
	}
	ok := actions.Point{X: box.Max.X - 54, Y: box.Max.Y - 25}
	if err := d.Input().Click(t.Context(), ok, actions.Left, 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	out, err := a.Wait(ctx)
	if err != nil || out != "typed via the portal\n" {
		t.Fatalf("zenity printed %q (%v)", out, err)
	}
	// This portal (RemoteDesktop version 1) cannot persist: no token is kept,
	// and the note was left so it is said once.
	if _, err := os.Stat(PortalTokenPath()); err == nil {
		t.Error("a restore token was stored though the portal cannot persist")
	}
	if _, err := os.Stat(PortalTokenPath() + ".no-persist-said"); err != nil {
		t.Errorf("the once-said note: %v", err)
	}
}

func TestPortalTokenIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "deskpilot", "portal-restore-token")
	if err := writePrivate(path, "token-1"); err != nil {
		t.Fatal(err)
	}
	if err := writePrivate(path, "token-2"); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if st.Mode().Perm() != 0o600 || string(b) != "token-2\n" {
		t.Errorf("token file %v holds %q", st.Mode(), b)
	}
	if dir, _ := os.Stat(filepath.Dir(path)); dir.Mode().Perm() != 0o700 {
		t.Errorf("token dir %v", dir.Mode())
	}
}

// TestPortalHolds is TestGnomeHolds through the portal's RemoteDesktop.
func TestPortalHolds(t *testing.T) {
	m := startMutter(t, wldisplay.MutterOptions{Portal: true})
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	d := openPortalConsented(t, m)
	file := filepath.Join(t.TempDir(), "typed.txt")
	foot := startIn(t, m, "foot", "sh", "-c", "cat > "+file)
	lightBox(t, d, 40) // foot's title bar is up
	checkHoldsKeys(t, d, file)
	foot.Stop()
	a := startIn(t, m, "zenity", "--entry", "--text", "Press OK", "--entry-text", "held")
	box := lightBox(t, d, 150)
	checkHoldsButton(t, d, a, actions.Point{X: box.Max.X - 54, Y: box.Max.Y - 25})
}
