//go:build linux

package cli

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"deskpilot/internal/runctl"
	"deskpilot/vision"
	"deskpilot/vision/wldisplay"
)

// TestMCPMasksTheAppsWindow on headless sway. No Wayland client can read
// where another client's window is, but sway's tree names each window's
// process: an MCP session (the real binary, on the wlroots backend) masks
// the window of a process announced as a deskpilot peer (<pid>.win in the
// control folder; zenity stands in for the app), leaves a stranger's window
// (foot) as it is, and refuses a click on the peer's OK button, which then
// never reaches zenity.
func TestMCPMasksThePeersWindowOnSway(t *testing.T) {
	if testing.Short() {
		t.Skip("runs headless sway and the MCP client")
	}
	isolate(t)
	s := startSwayFor(t, wldisplay.SwayOptions{Width: 1280, Height: 720})
	zen, err := s.Start("zenity", "--entry", "--text", "the app stands in", "--entry-text", "clicked")
	if err != nil {
		t.Fatal(err)
	}
	zw := waitWindowOf(t, s, zen)
	foot, err := s.Start("foot")
	if err != nil {
		t.Fatal(err)
	}
	fw := waitWindowOf(t, s, foot)
	// Tiled side by side: zenity's window shrank when foot came.
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		ws, err := s.Windows(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			if w.PID == zen.PID() {
				zw = w
			}
		}
		if !zw.Rect.Overlaps(fw.Rect) {
			break
		}
	}
	if zw.Rect.Overlaps(fw.Rect) || zw.Rect.Dx() < 200 {
		t.Fatalf("zenity at %v, foot at %v", zw.Rect, fw.Rect)
	}

	run := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(run, 0o700); err != nil {
		t.Fatal(err)
	}
	dir, err := runctl.Dir(func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return run
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
	for _, kv := range swayEnv(s) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	env["XDG_RUNTIME_DIR"] = run

	ok := zw.Rect.Max.Sub(image.Pt(54, 25))
	plan := stdioPlan(t, env, nil,
		step("call", "name", "screenshot"),
		step("call", "name", "click", "args", map[string]any{"x": ok.X, "y": ok.Y}))
	plan["imageData"] = true
	steps := host(t, plan)

	shot := shotOf(t, steps[0])
	if shot.Bounds().Size() != image.Pt(1280, 720) {
		t.Fatalf("the screenshot is %v, want the output's 1280x720", shot.Bounds())
	}
	covered := 0
	for _, a := range vision.MaskedAreas(shot) {
		in := a.Intersect(zw.Rect)
		covered += in.Dx() * in.Dy()
		// MaskedAreas grows each run of hatched cells by a 16 px cell each
		// way: no more of the stranger's window may be in one.
		if in := a.Intersect(fw.Rect); in.Dx() > 16 && in.Dy() > 16 {
			t.Errorf("the hatching at %v covers %v of the stranger's window %v", a, in, fw.Rect)
		}
	}
	if area := zw.Rect.Dx() * zw.Rect.Dy(); covered < area*9/10 {
		t.Errorf("the hatching covers %d of the %d pixels of the peer's window %v", covered, area, zw.Rect)
	}
	if c := steps[1]; c["isError"] != true || !strings.Contains(text(c), "inside deskpilot's own window") {
		t.Errorf("a click on the peer's OK at %v: %s", ok, text(c))
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if out, err := zen.Wait(ctx); err == nil {
		t.Errorf("zenity answered %q: the refused click reached it", out)
	}
	if dir := os.Getenv("DESKPILOT_SAVE_FRAMES"); dir != "" {
		var b bytes.Buffer
		if err := png.Encode(&b, shot); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "mcp-peer-on-sway.png"), b.Bytes(), 0o644); err != nil {
			t.Error(err)
		}
	}
}
