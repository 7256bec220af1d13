//go:build linux

package desktop

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/internal/testapps"
	"deskpilot/vision/xdisplay"
)

// TestOtherDisplayWithItsAuthority drives a second private display, whose
// cookie $XAUTHORITY (the test display's) does not hold, through
// Options.XAuthority: the x11 backend captures it, types into the form app on
// it, and launches programs there with Options.Env plus the display's
// variables, none of the process's own environment.
func TestOtherDisplayWithItsAuthority(t *testing.T) {
	x, err := xdisplay.Start(t.Context(), xdisplay.Options{Width: 1024, Height: 700})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	if _, err := Open(Options{Backend: "x11", XDisplay: x.Name}); err == nil {
		t.Fatalf("opened %s with $XAUTHORITY of another display: the test proves nothing", x.Name)
	}
	t.Setenv("DESKPILOT_TEST_OUTER", "from the process")
	home := t.TempDir()
	d := openTest(t, Options{Backend: "x11", XDisplay: x.Name, XAuthority: x.XAuthority,
		Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "DISPLAY=:999", "TASK_MARK=task"}})

	frame, err := d.Capture(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if frame.Rect.Dx() != 1024 || frame.Rect.Dy() != 700 {
		t.Errorf("captured %v, want the 1024x700 display", frame.Rect)
	}

	blank := slices.Clone(frame.Pix)

	f := testapps.StartForm(t, x)
	// A capture into the spent frame writes over it with the form now shown.
	again, err := d.CaptureInto(t.Context(), frame)
	if err != nil {
		t.Fatal(err)
	}
	if again != frame || slices.Equal(again.Pix, blank) {
		t.Errorf("CaptureInto: reused the frame %v, shows the form %v", again == frame, !slices.Equal(again.Pix, blank))
	}
	in := d.Input()
	must(t, in.Click(t.Context(), center(t, f, "name"), actions.Left, 1))
	pace()
	must(t, in.Type(t.Context(), "on the other display"))
	must(t, in.Press(t.Context(), combo(t, "ctrl+s")))
	if name, _ := waitSaved(t, f); name != "on the other display" {
		t.Errorf("saved name %q", name)
	}

	out := filepath.Join(home, "env.txt")
	if _, err := d.Launch("sh", "-c", "env > "+out+".part && mv "+out+".part "+out); err != nil {
		t.Fatal(err)
	}
	env := waitFile(t, out)
	for _, want := range []string{"DISPLAY=" + x.Name + "\n", "XAUTHORITY=" + x.XAuthority + "\n", "TASK_MARK=task\n", "HOME=" + home + "\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("launched program's environment lacks %q:\n%s", want, env)
		}
	}
	if strings.Contains(env, "DESKPILOT_TEST_OUTER") || strings.Contains(env, "DISPLAY=:999") {
		t.Errorf("launched program's environment has the process's variables or a stale DISPLAY:\n%s", env)
	}
}

// TestEnvDefault: without Options.Env, launched programs get the process's
// environment with the display's variables.
func TestEnvDefault(t *testing.T) {
	t.Setenv("DESKPILOT_TEST_OUTER", "from the process")
	d := openTest(t, Options{Backend: "x11"})
	env := strings.Join(d.Env(), "\n") + "\n"
	if !strings.Contains(env, "DESKPILOT_TEST_OUTER=from the process\n") || !strings.Contains(env, "DISPLAY="+os.Getenv("DISPLAY")+"\n") {
		t.Errorf("Env() = %s", env)
	}
	if strings.Count(env, "DISPLAY=") != 1 {
		t.Errorf("Env() sets DISPLAY more than once:\n%s", env)
	}
}

// waitFile waits until path exists (written whole, then renamed) and returns
// its text.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for {
		if data, err := os.ReadFile(path); err == nil {
			return string(data)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s was never written", path)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
