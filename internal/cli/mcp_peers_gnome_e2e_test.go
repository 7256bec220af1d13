//go:build linux && cgo

package cli

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"deskpilot/internal/runctl"
	"deskpilot/vision"
	"deskpilot/vision/wldisplay"
)

// TestMCPMasksThePeersWindowOnGnome is TestMCPMasksThePeersWindowOnSway on
// headless mutter with Xwayland. No GNOME API lists other windows, but
// zenity (standing in for the app, an X11 client as the app's default build
// is) runs through Xwayland, whose window manager is mutter: an MCP session
// (the real binary, on the gnome backend, told of nothing but the session's
// variables) masks the window of the process announced as a deskpilot peer,
// leaves a stranger's (another zenity) as it is, refuses a click on the
// peer's OK, which never reaches zenity, and carries out one on the
// stranger's OK, which does.
func TestMCPMasksThePeersWindowOnGnome(t *testing.T) {
	if testing.Short() {
		t.Skip("runs headless mutter and the MCP client")
	}
	for _, p := range []string{"zenity", "xdotool", "xwininfo"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed (make deps installs it)", p)
		}
	}
	isolate(t)
	m, err := wldisplay.StartMutter(t.Context(), wldisplay.MutterOptions{Width: 1280, Height: 720, X11: true})
	if wldisplay.IsMissing(err) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	zen, err := m.StartX11("zenity", "--entry", "--text", "the app stands in", "--entry-text", "clicked")
	if err != nil {
		t.Fatal(err)
	}
	zw := xClient(t, m, xWindow(t, m, zen.PID()))
	stranger, err := m.StartX11("zenity", "--entry", "--text", "a stranger", "--entry-text", "stranger clicked")
	if err != nil {
		t.Fatal(err)
	}
	// Mutter centres both dialogs: the stranger's moves aside.
	sid := xWindow(t, m, stranger.PID())
	before := xClient(t, m, sid)
	if out, err := m.X11Command(t.Context(), "xdotool", "windowmove", "--sync", sid, "60", "80").CombinedOutput(); err != nil {
		t.Fatalf("xdotool windowmove: %v (%s)", err, out)
	}
	sw := before
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && sw == before; time.Sleep(20 * time.Millisecond) {
		sw = xClient(t, m, sid) // Xwayland has it once mutter moved it
	}
	if sw.Overlaps(zw.Inset(-40)) {
		t.Fatalf("zenity at %v, the stranger at %v", zw, sw)
	}

	dir, err := runctl.Dir(func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return m.RuntimeDir
		}
		return os.Getenv(k)
	})
	if err != nil {
		t.Fatal(err)
	}
	// The announcement the app writes (runctl.Announce), for zenity's pid.
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.win", zen.PID())), fmt.Appendf(nil, "%d\n", zen.PID()), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	for _, k := range []string{"DISPLAY", "XAUTHORITY", "SWAYSOCK", "GDK_BACKEND"} {
		delete(env, k)
	}
	for _, kv := range m.Env() {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "WAYLAND_DISPLAY", "XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE":
			env[k] = v
		}
	}

	ok, sok := zw.Max.Sub(image.Pt(54, 25)), sw.Max.Sub(image.Pt(54, 25))
	plan := stdioPlan(t, env, nil,
		step("call", "name", "screenshot"),
		step("call", "name", "click", "args", map[string]any{"x": ok.X, "y": ok.Y}),
		step("call", "name", "click", "args", map[string]any{"x": sok.X, "y": sok.Y}))
	plan["imageData"] = true
	steps := host(t, plan)

	shot := shotOf(t, steps[0])
	if shot.Bounds().Size() != image.Pt(1280, 720) {
		t.Fatalf("the screenshot is %v, want the monitor's 1280x720", shot.Bounds())
	}
	covered := 0
	for _, a := range vision.MaskedAreas(shot) {
		in := a.Intersect(zw)
		covered += in.Dx() * in.Dy()
		// MaskedAreas grows each run of hatched cells by a 16 px cell each
		// way: no more of the stranger's window may be in one.
		if in := a.Intersect(sw); in.Dx() > 16 && in.Dy() > 16 {
			t.Errorf("the hatching at %v covers %v of the stranger's window %v", a, in, sw)
		}
	}
	if area := zw.Dx() * zw.Dy(); covered < area*9/10 {
		t.Errorf("the hatching covers %d of the %d pixels of the peer's window %v", covered, area, zw)
	}
	if c := steps[1]; c["isError"] != true || !strings.Contains(text(c), "inside deskpilot's own window") {
		t.Errorf("a click on the peer's OK at %v: %s", ok, text(c))
	}
	if c := steps[2]; c["isError"] == true {
		t.Errorf("a click on the stranger's OK at %v: %s", sok, text(c))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if out, err := stranger.Wait(ctx); err != nil || out != "stranger clicked\n" {
		t.Errorf("the stranger printed %q (%v): the click at %v did not land on its OK", out, err, sok)
	}
	ctx, cancel = context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if out, err := zen.Wait(ctx); err == nil {
		t.Errorf("zenity answered %q: the refused click reached it", out)
	}
	if dir := os.Getenv("DESKPILOT_SAVE_FRAMES"); dir != "" {
		var b bytes.Buffer
		if err := png.Encode(&b, shot); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "mcp-peer-on-gnome.png"), b.Bytes(), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// xWindow is the id of the mapped X11 window of process pid on m's
// Xwayland, once it is.
func xWindow(t *testing.T, m *wldisplay.Mutter, pid int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	ids, err := m.X11Command(ctx, "xdotool", "search", "--sync", "--onlyvisible", "--pid", fmt.Sprint(pid)).Output()
	if err != nil || len(strings.Fields(string(ids))) == 0 {
		t.Fatalf("xdotool found no window of %d: %v", pid, err)
	}
	return strings.Fields(string(ids))[0]
}

// xClient is where X11 window id is (the client, without mutter's frame),
// as xwininfo reads it: xdotool's getwindowgeometry adds the client's offset
// in its frame twice.
func xClient(t *testing.T, m *wldisplay.Mutter, id string) image.Rectangle {
	t.Helper()
	out, err := m.X11Command(t.Context(), "xwininfo", "-id", id).CombinedOutput()
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
	x, y := v["Absolute upper-left X"], v["Absolute upper-left Y"]
	r := image.Rect(x, y, x+v["Width"], y+v["Height"])
	if r.Empty() {
		t.Fatalf("xwininfo printed %q", out)
	}
	return r
}
