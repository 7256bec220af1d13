//go:build linux && cgo

package desktop

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/vision/wldisplay"
)

func startMutter(t *testing.T, o wldisplay.MutterOptions) *wldisplay.Mutter {
	t.Helper()
	m, err := wldisplay.StartMutter(t.Context(), o)
	if wldisplay.IsMissing(err) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func openGnomeTest(t *testing.T, m *wldisplay.Mutter) *Desktop {
	t.Helper()
	return openTest(t, Options{Backend: "gnome", SessionBus: m.Bus, PipeWire: m.PipeWire, Wayland: m.Socket})
}

func startIn(t *testing.T, m *wldisplay.Mutter, name string, args ...string) *wldisplay.App {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed (make deps installs it)", name)
	}
	a, err := m.Start(name, args...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// lightBox waits until the frame shows a light window on mutter's black
// background and returns the window's box (root pixels).
func lightBox(t *testing.T, d *Desktop, minSize int) image.Rectangle {
	t.Helper()
	var box image.Rectangle
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		f, err := d.Capture(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		box = image.Rectangle{}
		for y := 0; y < f.Rect.Dy(); y += 2 {
			for x := 0; x < f.Rect.Dx(); x += 2 {
				if c := f.RGBAAt(x, y); c.R > 200 && c.G > 200 && c.B > 200 {
					box = box.Union(image.Rect(x, y, x+2, y+2))
				}
			}
		}
		if box.Dx() >= minSize && box.Dy() >= minSize {
			if os.Getenv("DESKPILOT_SAVE_FRAMES") != "" {
				out, _ := os.Create(filepath.Join(os.Getenv("DESKPILOT_SAVE_FRAMES"), t.Name()[len(t.Name())-4:]+".png"))
				png.Encode(out, f)
				out.Close()
			}
			return box
		}
	}
	t.Fatalf("no window showed (last box %v)", box)
	return box
}

func TestGnomeClickZenity(t *testing.T) {
	m := startMutter(t, wldisplay.MutterOptions{})
	a := startIn(t, m, "zenity", "--entry", "--text", "Click OK", "--entry-text", "clicked on gnome")
	d := openGnomeTest(t, m)
	box := lightBox(t, d, 150)
	ok := actions.Point{X: box.Max.X - 54, Y: box.Max.Y - 25}
	if err := d.Input().Click(t.Context(), ok, actions.Left, 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	out, err := a.Wait(ctx)
	if err != nil || out != "clicked on gnome\n" {
		t.Fatalf("zenity printed %q (%v); the click at %v (window %v) did not land on OK", out, err, ok, box)
	}
}

func TestGnomeTypeKeys(t *testing.T) {
	m := startMutter(t, wldisplay.MutterOptions{})
	file := filepath.Join(t.TempDir(), "typed.txt")
	startIn(t, m, "foot", "sh", "-c", "cat > "+file)
	var want string
	// Each desktop is a new remote-desktop session, whose first key Mutter
	// drops: none may be lost.
	for _, line := range []string{"Hello World 42 {~}|\"'<>?\n", "second session: a-z A-Z 0-9 !@#$%^&*()\n"} {
		d := openGnomeTest(t, m)
		lightBox(t, d, 40) // foot's title bar is up
		if err := d.Input().Type(t.Context(), line); err != nil {
			t.Fatal(err)
		}
		want += line
		if got := waitFileHolds(t, file, want); got != want {
			t.Fatalf("the file holds %q, want %q", got, want)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGnomeTypeUnicode(t *testing.T) {
	m := startMutter(t, wldisplay.MutterOptions{})
	a := startIn(t, m, "zenity", "--entry", "--text", "Type")
	d := openGnomeTest(t, m)
	lightBox(t, d, 150)
	text := "Grüße, 世界! ✓ € 😀 naïve"
	if err := d.Input().Type(t.Context(), text); err != nil {
		t.Fatal(err)
	}
	if err := d.Input().Press(t.Context(), combo(t, "enter")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	out, err := a.Wait(ctx)
	if err != nil || out != text+"\n" {
		t.Fatalf("zenity printed %q (%v), want %q", out, err, text+"\n")
	}
}

// TestGnomeHolds is TestWlrootsHolds on Mutter's RemoteDesktop: Shift held
// across two key presses types "XY" into foot, and zenity's OK acts only on
// the ButtonUp.
func TestGnomeHolds(t *testing.T) {
	m := startMutter(t, wldisplay.MutterOptions{})
	file := filepath.Join(t.TempDir(), "typed.txt")
	foot := startIn(t, m, "foot", "sh", "-c", "cat > "+file)
	d := openGnomeTest(t, m)
	lightBox(t, d, 40) // foot's title bar is up
	checkHoldsKeys(t, d, file)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	foot.Stop()
	a := startIn(t, m, "zenity", "--entry", "--text", "Press OK", "--entry-text", "held")
	d = openGnomeTest(t, m)
	box := lightBox(t, d, 150)
	checkHoldsButton(t, d, a, actions.Point{X: box.Max.X - 54, Y: box.Max.Y - 25})
}
