package cli

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"deskpilot/internal/runctl"
	"deskpilot/vision"
)

// Two deskpilot processes on one private display: the app (idle, its
// window shown) announces its windows in the control folder, and an MCP
// session in another process masks that window in its screenshot (the
// hatching of deskpilot's own windows covers it) and refuses a click into
// it, as it would its own.
func TestMCPMasksTheAppsWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and launches the app")
	}
	run := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(run, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", run)
	h := startAppE2E(t)
	win := h.waitWindow().Bounds.Intersect(image.Rect(0, 0, 1280, 800))
	dir, err := runctl.Dir(nil)
	if err != nil {
		t.Fatal(err)
	}
	announced := filepath.Join(dir, strconv.Itoa(h.app.Cmd.Process.Pid)+".win")
	for i := 0; ; i++ {
		if _, err := os.Stat(announced); err == nil {
			break
		}
		if i == 300 {
			t.Fatalf("the app did not announce its windows in %s", dir)
		}
		time.Sleep(100 * time.Millisecond)
	}

	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	// The app's window may still settle its size when it first shows (on a
	// loaded machine): the screenshot counts when the window had the same
	// bounds before and after it.
	var steps []map[string]any
	var centre map[string]any
	for attempt := 1; ; attempt++ {
		centre = map[string]any{"x": (win.Min.X + win.Max.X) / 2, "y": (win.Min.Y + win.Max.Y) / 2}
		plan := stdioPlan(t, env, nil,
			step("call", "name", "screenshot"),
			step("call", "name", "click", "args", centre))
		plan["imageData"] = true
		steps = host(t, plan)
		after := h.waitWindow().Bounds.Intersect(image.Rect(0, 0, 1280, 800))
		if after == win {
			break
		}
		if attempt == 3 {
			t.Fatalf("the app's window keeps moving: %v, then %v", win, after)
		}
		win = after
	}

	shot := shotOf(t, steps[0])
	if shot.Bounds().Size() != image.Pt(1280, 800) {
		t.Fatalf("the screenshot is %v, want the display's 1280x800", shot.Bounds())
	}
	covered := 0
	for _, a := range vision.MaskedAreas(shot) {
		in := a.Intersect(win)
		covered += in.Dx() * in.Dy()
	}
	if area := win.Dx() * win.Dy(); covered < area*9/10 {
		t.Errorf("the hatching covers %d of the %d pixels of the app's window %v in the MCP session's screenshot", covered, area, win)
	}
	if c := steps[1]; c["isError"] != true || !strings.Contains(text(c), "inside deskpilot's own window") {
		t.Errorf("a click into the app's window at %v: %s", centre, text(c))
	}
}

// shotOf decodes the one PNG a screenshot step returned (a plan with
// "imageData").
func shotOf(t *testing.T, step map[string]any) image.Image {
	t.Helper()
	imgs, _ := step["images"].([]any)
	if len(imgs) != 1 {
		t.Fatalf("screenshot: %v", text(step))
	}
	data, err := base64.StdEncoding.DecodeString(imgs[0].(map[string]any)["data"].(string))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return shot
}
