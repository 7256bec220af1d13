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
	isolate(t)
	m := startMutterX11(t, 1280, 720)
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
	sw := xMoveTo(t, m, xWindow(t, m, stranger.PID()), image.Pt(60, 80))
	if sw.Overlaps(zw.Inset(-40)) {
		t.Fatalf("zenity at %v, the stranger at %v", zw, sw)
	}

	announce(t, m, zen.PID())
	env := gnomeMCPEnv(m)
	ok, sok := zw.Max.Sub(image.Pt(54, 25)), sw.Max.Sub(image.Pt(54, 25))
	plan := stdioPlan(t, env, nil,
		step("call", "name", "screenshot"),
		step("call", "name", "click", "args", map[string]any{"x": ok.X, "y": ok.Y}),
		step("call", "name", "click", "args", map[string]any{"x": sok.X, "y": sok.Y}))
	plan["imageData"] = true
	steps := host(t, plan)

	checkMaskedAndRefused(t, steps, image.Pt(1280, 720), zw, sw, stranger)
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if out, err := zen.Wait(ctx); err == nil {
		t.Errorf("zenity answered %q: the refused click reached it", out)
	}
}

// TestMCPMasksTheAppsWindowOnGnome is TestMCPMasksThePeersWindowOnGnome with
// the real app: the deskpilot binary's app (its default X11 build, through
// Xwayland) announces its window itself, and an MCP session in the same
// GNOME session hatches it, refuses a click into it, and clicks a
// stranger's OK beside it.
func TestMCPMasksTheAppsWindowOnGnome(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and launches the app on headless mutter")
	}
	isolate(t)
	// The app shrinks to its strip while a host drives (compact while
	// running), whenever it notices the session: kept at its size here, so
	// that the window the checks expect is the one on the screen.
	// The session's environment is its own (its HOME): the app is given
	// this test's config folder, through env(1), which keeps the pid.
	config := filepath.Join(t.TempDir(), "config")
	prefs := filepath.Join(config, "fyne", "io.github.deskpilot", "preferences.json")
	if err := os.MkdirAll(filepath.Dir(prefs), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prefs, []byte(`{"compact_while_running":false}`), 0o600); err != nil {
		t.Fatal(err)
	}
	m := startMutterX11(t, 1920, 1080)
	app, err := m.StartX11("env", "XDG_CONFIG_HOME="+config, buildDeskpilot(t))
	if err != nil {
		t.Fatal(err)
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
	announced := filepath.Join(dir, fmt.Sprintf("%d.win", app.PID()))
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(announced); err == nil {
			break
		}
		if time.Now().After(end) || app.Exited() {
			t.Fatalf("the app did not announce its window in %s; it printed:\n%s", dir, app.Output())
		}
	}
	aid := xWindow(t, m, app.PID())
	stranger, err := m.StartX11("zenity", "--entry", "--text", "a stranger", "--entry-text", "stranger clicked")
	if err != nil {
		t.Fatal(err)
	}
	sw := xMoveTo(t, m, xWindow(t, m, stranger.PID()), image.Pt(40, 300))
	env := gnomeMCPEnv(m)
	env["DESKPILOT_IMAGE_MAX_SIDE"] = "1920" // the screenshot at the monitor's size
	// The app's window may still settle its size when it first shows: the
	// session starts once it kept its bounds for a second.
	aw := xClient(t, m, aid)
	for stable, end := 0, time.Now().Add(20*time.Second); stable < 10; time.Sleep(100 * time.Millisecond) {
		if r := xClient(t, m, aid); r != aw {
			aw, stable = r, 0
		} else {
			stable++
		}
		if time.Now().After(end) {
			t.Fatalf("the app's window keeps changing (now %v)", aw)
		}
	}
	if sw.Overlaps(aw) {
		t.Fatalf("the app at %v, the stranger at %v", aw, sw)
	}
	mid, sok := aw.Min.Add(aw.Size().Div(2)), sw.Max.Sub(image.Pt(54, 25))
	plan := stdioPlan(t, env, nil,
		step("call", "name", "screenshot"),
		step("call", "name", "click", "args", map[string]any{"x": mid.X, "y": mid.Y}),
		step("call", "name", "click", "args", map[string]any{"x": sok.X, "y": sok.Y}))
	plan["imageData"] = true
	steps := host(t, plan)
	if after := xClient(t, m, aid); after != aw {
		t.Fatalf("the app's window moved from %v to %v during the session", aw, after)
	}
	checkMaskedAndRefused(t, steps, image.Pt(1920, 1080), aw, sw, stranger)
	if app.Exited() {
		t.Errorf("the app ended:\n%s", app.Output())
	}
}

// checkMaskedAndRefused checks an MCP session's steps (a screenshot, a click
// into the peer's window, a click on the stranger's OK): the screenshot, of
// size, hatches the peer's window and nothing of the stranger's; the first
// click is refused as inside deskpilot's own window, the second carried out
// (the stranger prints its entry).
func checkMaskedAndRefused(t *testing.T, steps []map[string]any, size image.Point, peer, stranger image.Rectangle, sapp *wldisplay.App) {
	t.Helper()
	shot := shotOf(t, steps[0])
	if dir := os.Getenv("DESKPILOT_SAVE_FRAMES"); dir != "" {
		var b bytes.Buffer
		if err := png.Encode(&b, shot); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "-")+".png"), b.Bytes(), 0o644); err != nil {
			t.Error(err)
		}
	}
	if shot.Bounds().Size() != size {
		t.Fatalf("the screenshot is %v, want the monitor's %v", shot.Bounds(), size)
	}
	covered := 0
	for _, a := range vision.MaskedAreas(shot) {
		in := a.Intersect(peer)
		covered += in.Dx() * in.Dy()
		// MaskedAreas grows each run of hatched cells by a 16 px cell each
		// way: no more of the stranger's window may be in one.
		if in := a.Intersect(stranger); in.Dx() > 16 && in.Dy() > 16 {
			t.Errorf("the hatching at %v covers %v of the stranger's window %v", a, in, stranger)
		}
	}
	if area := peer.Dx() * peer.Dy(); covered < area*9/10 {
		t.Errorf("the hatching covers %d of the %d pixels of the peer's window %v", covered, area, peer)
	}
	if c := steps[1]; c["isError"] != true || !strings.Contains(text(c), "inside deskpilot's own window") {
		t.Errorf("a click into the peer's window: %s", text(c))
	}
	if c := steps[2]; c["isError"] == true {
		t.Errorf("a click on the stranger's OK: %s", text(c))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if out, err := sapp.Wait(ctx); err != nil || out != "stranger clicked\n" {
		t.Errorf("the stranger printed %q (%v): the click did not land on its OK at %v", out, err, stranger.Max.Sub(image.Pt(54, 25)))
	}
}

// startMutterX11 starts headless mutter with Xwayland, a w x h monitor.
func startMutterX11(t *testing.T, w, h int) *wldisplay.Mutter {
	t.Helper()
	for _, p := range []string{"zenity", "xdotool", "xwininfo"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed (make deps installs it)", p)
		}
	}
	m, err := wldisplay.StartMutter(t.Context(), wldisplay.MutterOptions{Width: w, Height: h, X11: true})
	if wldisplay.IsMissing(err) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// announce writes the announcement the app writes (runctl.Announce) for
// process pid, in the control folder of m's session.
func announce(t *testing.T, m *wldisplay.Mutter, pid int) {
	t.Helper()
	dir, err := runctl.Dir(func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return m.RuntimeDir
		}
		return os.Getenv(k)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.win", pid)), fmt.Appendf(nil, "%d\n", pid), 0o600); err != nil {
		t.Fatal(err)
	}
}

// gnomeMCPEnv is the environment a host in m's session gives `deskpilot
// mcp`: this process's (isolated folders), with the session's bus, runtime
// folder, Wayland socket and desktop, and no X display.
func gnomeMCPEnv(m *wldisplay.Mutter) map[string]string {
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
	return env
}

// xMoveTo moves X11 window id to at and returns where its client is once
// Xwayland has it there (mutter moves it a moment after xdotool asks).
func xMoveTo(t *testing.T, m *wldisplay.Mutter, id string, at image.Point) image.Rectangle {
	t.Helper()
	before := xClient(t, m, id)
	if out, err := m.X11Command(t.Context(), "xdotool", "windowmove", "--sync", id, fmt.Sprint(at.X), fmt.Sprint(at.Y)).CombinedOutput(); err != nil {
		t.Fatalf("xdotool windowmove: %v (%s)", err, out)
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if r := xClient(t, m, id); r != before {
			return r
		}
	}
	t.Fatalf("window %s stayed at %v", id, before)
	return before
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
