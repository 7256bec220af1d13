//go:build linux && cgo

package desktop

import (
	"bytes"
	"image"
	"os"
	"os/exec"
	"testing"

	"deskpilot/internal/xconn"
	"deskpilot/vision/screen"
)

// TestKbinaniCapture checks the capture and monitor list the robotgo backend
// uses on Windows and macOS against the x11 capture, on X11. It runs in a
// test process of its own: kbinani's X11 capture writes xgb's process-wide
// tables (see rgLinux), which the other tests' X connections read.
func TestKbinaniCapture(t *testing.T) {
	if os.Getenv("DESKPILOT_KBINANI_CHILD") != "1" {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run", "^TestKbinaniCapture$", "-test.v")
		cmd.Env = append(os.Environ(), "DESKPILOT_KBINANI_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestKbinaniCapture")) {
			t.Fatalf("kbinani test process: %v\n%s", err, out)
		}
		return
	}
	c, err := xconn.Dial("")
	if err != nil {
		t.Fatal(err)
	}
	defer xconn.Close(c)
	w := newXWindow(t, c, "kbinani-target", image.Rect(200, 150, 420, 300), os.Getpid())
	frame := w.show(t, attach(t), "kbinani-target")

	ds, err := kbinaniDisplays()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := screen.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	xs, err := sc.Displays()
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != len(xs) || ds[0].Bounds != xs[0].Bounds {
		t.Fatalf("kbinani monitors %v, RandR %v", ds, xs)
	}
	r := frame.Inset(-20)
	got, err := kbinaniCapture(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	want, err := sc.Capture(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rect != want.Rect || !bytes.Equal(got.Pix, want.Pix) {
		t.Fatalf("kbinani capture of %v differs from the x11 capture (bounds %v vs %v)", r, got.Rect, want.Rect)
	}
	inside := got.RGBAAt(frame.Dx()/2+20, frame.Dy()-20)
	if inside.R != 0x33 || inside.G != 0x66 || inside.B != 0xaa {
		t.Errorf("pixel inside the window is %v, want the window's #3366aa", inside)
	}
	if _, err := kbinaniCapture(t.Context(), image.Rectangle{}); err == nil {
		t.Error("capture of an empty rectangle: no error")
	}
}
