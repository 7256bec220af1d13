//go:build linux

package desktop

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/vision/wldisplay"
)

// startSway starts a private headless sway for one test, or skips naming
// the missing package.
func startSway(t *testing.T, o wldisplay.SwayOptions) *wldisplay.Sway {
	t.Helper()
	s, err := wldisplay.StartSway(t.Context(), o)
	if wldisplay.IsMissing(err) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func openWlrootsTest(t *testing.T, s *wldisplay.Sway, own bool) *Desktop {
	t.Helper()
	return openTest(t, Options{Backend: "wlroots", Wayland: s.Socket, HasWindow: own})
}

// startOn starts a program on s and waits for its focused window.
func startOn(t *testing.T, s *wldisplay.Sway, name string, args ...string) (*wldisplay.App, wldisplay.Window) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed (make deps installs it)", name)
	}
	a, err := s.Start(name, args...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := s.WaitWindow(ctx, a.PID())
	if err != nil {
		t.Fatalf("%v\n%s said: %s", err, name, a.Output())
	}
	return a, w
}

// waitFileHolds waits until file holds want (at most 10 s) and returns what it holds.
func waitFileHolds(t *testing.T, file, want string) string {
	t.Helper()
	var got string
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(file)
		if got = string(b); got == want {
			break
		}
	}
	return got
}

// rootOf turns a logical point of sway's layout into root pixels at scale.
func rootOf(p image.Point, scale float64) actions.Point {
	return actions.Point{X: int(float64(p.X)*scale + 0.5), Y: int(float64(p.Y)*scale + 0.5)}
}

func TestWlrootsClickZenity(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scale float64
	}{{"1920x1080", 1}, {"scale 2", 2}} {
		t.Run(tc.name, func(t *testing.T) {
			s := startSway(t, wldisplay.SwayOptions{Width: 1920, Height: 1080, Scale: tc.scale})
			a, w := startOn(t, s, "zenity", "--entry", "--text", "Click OK", "--entry-text", "clicked ok")
			d := openWlrootsTest(t, s, false)
			if got := d.Target().Bounds; got != image.Rect(0, 0, 1920, 1080) {
				t.Fatalf("target %v, want the output's pixels", got)
			}
			// GTK 3's dialog puts OK in the bottom-right corner: 54 x 25 logical
			// pixels in from the window's corner, whatever the scale.
			ok := rootOf(w.Rect.Max.Sub(image.Pt(54, 25)), tc.scale)
			if err := d.Input().Click(t.Context(), ok, actions.Left, 1); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			out, err := a.Wait(ctx)
			if err != nil || out != "clicked ok\n" {
				t.Fatalf("zenity printed %q (%v); the click at %v did not land on OK", out, err, ok)
			}
		})
	}
}

func TestWlrootsTypeUnicode(t *testing.T) {
	s := startSway(t, wldisplay.SwayOptions{Width: 1280, Height: 720})
	file := filepath.Join(t.TempDir(), "typed.txt")
	startOn(t, s, "foot", "-o", "font=monospace:size=10", "sh", "-c", "cat > "+file)
	// Each desktop brings a new virtual keyboard, which the seat had not:
	// the first key typed through it must arrive all the same.
	var want strings.Builder
	for i := range 3 {
		d := openWlrootsTest(t, s, false)
		line := fmt.Sprintf("run %d: Grüße, 世界! ✓ € 😀 \"quotes\" {braces} ~tilde\tTab\n", i)
		if err := d.Input().Type(t.Context(), line); err != nil {
			t.Fatal(err)
		}
		want.WriteString(line)
		if got := waitFileHolds(t, file, want.String()); got != want.String() {
			t.Fatalf("the file holds %q, want %q", got, want.String())
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWlrootsPressCombo(t *testing.T) {
	s := startSway(t, wldisplay.SwayOptions{})
	file := filepath.Join(t.TempDir(), "typed.txt")
	startOn(t, s, "foot", "sh", "-c", "cat > "+file)
	d := openWlrootsTest(t, s, false)
	in := d.Input()
	if err := in.Type(t.Context(), "abc"); err != nil {
		t.Fatal(err)
	}
	// ctrl+u in the terminal's line discipline erases the line typed so far;
	// shift+x types a capital.
	for _, c := range []string{"ctrl+u", "shift+x", "enter"} {
		if err := in.Press(t.Context(), combo(t, c)); err != nil {
			t.Fatal(err)
		}
	}
	if got := waitFileHolds(t, file, "X\n"); got != "X\n" {
		t.Errorf("the file holds %q, want %q", got, "X\n")
	}
}

func TestWlrootsCaptureMatchesGrim(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scale float64
	}{{"1920x1080", 1}, {"scale 2", 2}} {
		t.Run(tc.name, func(t *testing.T) {
			s := startSway(t, wldisplay.SwayOptions{Width: 1920, Height: 1080, Scale: tc.scale})
			startOn(t, s, "foot", "sh", "-c", "printf 'capture test %s\\n' "+strings.ReplaceAll(tc.name, " ", "_")+"; exec cat")
			d := openWlrootsTest(t, s, false)
			// Compare grim's PNG with captures taken just before and after it
			// that agree, so a window still drawing cannot make them differ.
			spare := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
			path := filepath.Join(t.TempDir(), "grim.png")
			for try := 0; ; try++ {
				before, err := d.Capture(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Grim(t.Context(), "", path); err != nil {
					t.Fatal(err)
				}
				got, err := d.CaptureInto(t.Context(), spare)
				if err != nil {
					t.Fatal(err)
				}
				if got != spare {
					t.Fatal("CaptureInto did not reuse the spare frame")
				}
				if !bytes.Equal(before.Pix, got.Pix) && try < 10 {
					continue
				}
				if n := diffPNG(t, path, got); n != 0 {
					t.Errorf("%d pixels differ from grim's PNG", n)
				}
				return
			}
		})
	}
}

// diffPNG counts the pixels of the PNG at path that differ from img.
func diffPNG(t *testing.T, path string, img *image.RGBA) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if want.Bounds() != img.Bounds() {
		t.Fatalf("grim %v, capture %v", want.Bounds(), img.Bounds())
	}
	n := 0
	for y := range img.Rect.Dy() {
		for x := range img.Rect.Dx() {
			r, g, b, _ := want.At(x, y).RGBA()
			c := img.RGBAAt(x, y)
			if uint8(r>>8) != c.R || uint8(g>>8) != c.G || uint8(b>>8) != c.B {
				n++
			}
		}
	}
	return n
}

func TestWlrootsOwnWindows(t *testing.T) {
	s := startSway(t, wldisplay.SwayOptions{Width: 1920, Height: 1080, Scale: 2})
	d := openWlrootsTest(t, s, true)
	win, err := wldisplay.OpenWindow(t.Context(), s.Socket, "deskpilot own", 300, 200, color.RGBA{R: 200, A: 255})
	if err != nil {
		t.Fatal(err)
	}
	defer win.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	w, err := s.WaitWindow(ctx, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	want := image.Rect(w.Rect.Min.X*2, w.Rect.Min.Y*2, w.Rect.Max.X*2, w.Rect.Max.Y*2)
	if want.Dx() != 600 || want.Dy() != 400 {
		t.Fatalf("sway shows the window at %v (logical)", w.Rect)
	}
	var got []image.Rectangle
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if got = d.OwnWindows(); len(got) == 1 && got[0] == want {
			break
		}
	}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("own windows %v, want [%v]", got, want)
	}
	// The frame shows it there, once sway has drawn it.
	var c color.RGBA
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		f, err := d.Capture(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if c = f.RGBAAt(want.Min.X+5, want.Min.Y+5); c.R == 200 && c.G == 0 {
			break
		}
	}
	if c.R != 200 || c.G != 0 {
		t.Errorf("inside the own window the frame is %v", c)
	}
	// Clicking it is refused by the agent's guard, which reads OwnWindows;
	// what the desktop must do is find it, which it did. The window closed
	// is gone from the list.
	win.Close()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end) && len(d.OwnWindows()) > 0; time.Sleep(20 * time.Millisecond) {
	}
	if got := d.OwnWindows(); len(got) != 0 {
		t.Errorf("after closing, own windows %v", got)
	}
}

func TestWlrootsIdle(t *testing.T) {
	s := startSway(t, wldisplay.SwayOptions{})
	d := openWlrootsTest(t, s, false)
	if err := d.Input().Move(t.Context(), actions.Point{X: 10, Y: 10}); err != nil {
		t.Fatal(err)
	}
	moved := time.Now()
	idle, err := d.Idle()
	if err != nil {
		t.Fatal(err)
	}
	if idle > time.Since(moved)+200*time.Millisecond {
		t.Errorf("idle %v right after a move", idle)
	}
	// Without input the idle time grows with the clock.
	var later time.Duration
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if later, _ = d.Idle(); later >= 600*time.Millisecond {
			break
		}
	}
	if later < 600*time.Millisecond || later > time.Since(moved)+200*time.Millisecond {
		t.Errorf("idle %v, %v after the last input", later, time.Since(moved))
	}
}

func TestChoose(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		o    Options
		want string
	}{
		{map[string]string{"DISPLAY": ":0"}, Options{}, "x11"},
		{map[string]string{"WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "sway"}, Options{}, "wlroots"},
		{map[string]string{"WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "Hyprland"}, Options{}, "wlroots"},
		{map[string]string{"WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "ubuntu:GNOME", "DISPLAY": ":0"}, Options{}, "gnome"},
		{map[string]string{"WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "KDE"}, Options{}, "portal"},
		{map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, Options{}, "wlroots"},
		{map[string]string{"WAYLAND_DISPLAY": "wayland-0", "XDG_CURRENT_DESKTOP": "GNOME"}, Options{XDisplay: ":3"}, "x11"},
		{map[string]string{"XDG_SESSION_TYPE": "wayland", "XDG_CURRENT_DESKTOP": "GNOME"}, Options{}, "gnome"},
		{map[string]string{"XDG_SESSION_TYPE": "wayland", "DISPLAY": ":1"}, Options{}, "x11"},
		{map[string]string{}, Options{Wayland: "/tmp/x/wayland-1"}, "wlroots"},
	} {
		got, why := Choose(tc.o, func(k string) string { return tc.env[k] })
		if got != tc.want || why == "" {
			t.Errorf("Choose(%v, %v) = %q (%s), want %q", tc.o, tc.env, got, why, tc.want)
		}
	}
}

func TestWlrootsScroll(t *testing.T) {
	s := startSway(t, wldisplay.SwayOptions{})
	startOn(t, s, "foot", "sh", "-c", "seq 1 2000; exec cat")
	d := openWlrootsTest(t, s, false)
	still := func() *image.RGBA {
		var prev *image.RGBA
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			f, err := d.Capture(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if prev != nil && bytes.Equal(prev.Pix, f.Pix) {
				return f
			}
			prev = f
		}
		return prev
	}
	// The pointer first, so all three frames show it at the same place (a
	// compositor drawing the cursor in software puts it into every copy).
	mid := actions.Point{X: 640, Y: 360}
	if err := d.Input().Move(t.Context(), mid); err != nil {
		t.Fatal(err)
	}
	bottom := still()
	if err := d.Input().Scroll(t.Context(), mid, actions.ScrollUp, 10); err != nil {
		t.Fatal(err)
	}
	up := still()
	if bytes.Equal(up.Pix, bottom.Pix) {
		t.Fatal("scrolling up did not move foot's scrollback")
	}
	if err := d.Input().Scroll(t.Context(), mid, actions.ScrollDown, 30); err != nil { // more than enough: the bottom stops it
		t.Fatal(err)
	}
	if back := still(); !bytes.Equal(back.Pix, bottom.Pix) {
		saveFrames(t, bottom, back)
		t.Error("scrolling down did not come back to the bottom")
	}
}

func TestWlrootsMousepadSavesUnicode(t *testing.T) {
	s := startSway(t, wldisplay.SwayOptions{Width: 1280, Height: 720})
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	startOn(t, s, "mousepad", file)
	d := openWlrootsTest(t, s, false)
	text := "Grüße aus Wayland ✓ 日本語\nzweite Zeile: €100 «ok»\n"
	if err := d.Input().Type(t.Context(), text); err != nil {
		t.Fatal(err)
	}
	if err := d.Input().Press(t.Context(), combo(t, "ctrl+s")); err != nil {
		t.Fatal(err)
	}
	if got := waitFileHolds(t, file, text); got != text {
		t.Errorf("mousepad saved %q, want %q", got, text)
	}
}

func TestWlrootsTwoCompositorsSideBySide(t *testing.T) {
	type one struct {
		s    *wldisplay.Sway
		file string
		d    *Desktop
	}
	var all []one
	for range 2 {
		s := startSway(t, wldisplay.SwayOptions{})
		file := filepath.Join(t.TempDir(), "typed.txt")
		startOn(t, s, "foot", "sh", "-c", "cat > "+file)
		all = append(all, one{s, file, openWlrootsTest(t, s, false)})
	}
	for i, o := range all {
		if err := o.d.Input().Type(t.Context(), fmt.Sprintf("only compositor %d\n", i)); err != nil {
			t.Fatal(err)
		}
	}
	for i, o := range all {
		want := fmt.Sprintf("only compositor %d\n", i)
		if got := waitFileHolds(t, o.file, want); got != want {
			t.Errorf("compositor %d's foot got %q, want %q", i, got, want)
		}
	}
}

// saveFrames writes frames to $DESKPILOT_ARTIFACTS for a failed comparison.
func saveFrames(t *testing.T, frames ...*image.RGBA) {
	dir := os.Getenv("DESKPILOT_ARTIFACTS")
	if dir == "" {
		return
	}
	for i, f := range frames {
		out, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%d.png", strings.ReplaceAll(t.Name(), "/", "-"), i)))
		if err != nil {
			continue
		}
		png.Encode(out, f)
		out.Close()
	}
}

// The wlroots backend's input is an actions.Holder: shift held by KeyDown
// stays down across the next key press until KeyUp, and a button pressed by
// ButtonDown stays down (GTK's OK acts on the release) until ButtonUp.
func TestWlrootsHolds(t *testing.T) {
	s := startSway(t, wldisplay.SwayOptions{Width: 1280, Height: 720})
	file := filepath.Join(t.TempDir(), "typed.txt")
	startOn(t, s, "foot", "sh", "-c", "cat > "+file)
	d := openWlrootsTest(t, s, false)
	checkHoldsKeys(t, d, file)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	a, w := startOn(t, s, "zenity", "--entry", "--text", "Press OK", "--entry-text", "held")
	checkHoldsButton(t, openWlrootsTest(t, s, false), a, rootOf(w.Rect.Max.Sub(image.Pt(54, 25)), 1))
}

// TestWlrootsPeerWindows: a desktop told of a peer (another deskpilot
// process that shows windows; zenity stands in for the app) finds the
// peer's window through sway's tree and counts it as its own, and not the
// window of a process that is no peer. The peers are asked only when a
// window is new.
func TestWlrootsPeerWindows(t *testing.T) {
	s := startSway(t, wldisplay.SwayOptions{Width: 1280, Height: 720})
	peer, _ := startOn(t, s, "zenity", "--entry", "--text", "the app stands in")
	stranger, _ := startOn(t, s, "foot")
	var asked atomic.Int32
	d := openTest(t, Options{Backend: "wlroots", Wayland: s.Socket, Peers: func() []int {
		asked.Add(1)
		return []int{peer.PID()}
	}})
	ws, err := s.Windows(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var pw, sw image.Rectangle
	for _, w := range ws {
		switch w.PID {
		case peer.PID():
			pw = w.Rect
		case stranger.PID():
			sw = w.Rect
		}
	}
	if pw.Empty() || sw.Empty() {
		t.Fatalf("sway shows %+v", ws)
	}
	got := d.OwnWindows()
	if len(got) != 1 || got[0] != pw {
		t.Fatalf("own windows %v, want the peer's %v only (the stranger's is %v)", got, pw, sw)
	}
	n := asked.Load()
	for range 3 {
		d.OwnWindows()
	}
	if asked.Load() != n {
		t.Errorf("the peers were asked %d more times with no new window", asked.Load()-n)
	}
	// The peer's window closed is gone from the list.
	peer.Stop()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && len(d.OwnWindows()) > 0; time.Sleep(20 * time.Millisecond) {
	}
	if got := d.OwnWindows(); len(got) != 0 {
		t.Errorf("after the peer quit, own windows %v", got)
	}
}
