//go:build linux

package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/trace"
	"deskpilot/internal/config"
	"deskpilot/internal/desktop"
	"deskpilot/internal/swayipc"
	"deskpilot/vision/wldisplay"
)

// waylandBinary is deskpilot built with the wayland tag: the app's window is
// a native Wayland one (GLFW's Wayland backend).
var waylandBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "deskpilot-bin-wayland-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "deskpilot")
	cmd := exec.Command("go", "build", "-tags", "wayland", "-o", bin, "deskpilot")
	cmd.Env = append(os.Environ(), "GOCACHE="+goCache)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return bin, nil
})

// TestAppOnSway runs the app natively on headless sway: the person (the
// test's own virtual keyboard and pointer) types a task; while the agent
// works the window is a floating strip in the bottom-right corner; the
// person's pointer over the strip is not a takeover; the full window comes
// back at the end. Screenshots (grim) go to $DESKPILOT_ARTIFACTS.
func TestAppOnSway(t *testing.T) {
	s := startSwayFor(t, wldisplay.SwayOptions{Width: 1280, Height: 720})
	if _, err := exec.LookPath("grim"); err != nil {
		t.Skip("grim is not installed (make deps installs it)")
	}
	bin, err := waylandBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	traces := filepath.Join(dir, "traces")
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	srv := llmtest.New(t)
	if err := config.SaveFile(config.Path(), config.Settings{BaseURL: srv.URL, Model: "scripted", TraceDir: traces, MaxSteps: 6, TimeoutSec: 30}); err != nil {
		t.Fatal(err)
	}
	env := append(swayEnv(s), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"DBUS_SESSION_BUS_ADDRESS=", "OPENAI_API_KEY=", "DESKPILOT_MODEL=", "DESKPILOT_BASE_URL=")
	cmd := exec.Command(bin)
	cmd.Env = env
	logf, _ := os.Create(filepath.Join(dir, "app.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "app.log"))
			t.Logf("app output:\n%s", b)
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := s.WaitWindow(ctx, cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	ipc, err := swayipc.Dial(s.IPC)
	if err != nil {
		t.Fatal(err)
	}
	defer ipc.Close()
	appWindow := func() swayipc.Window {
		wins, _ := ipc.Windows(ctx)
		for _, w := range wins {
			if w.PID == cmd.Process.Pid {
				return w
			}
		}
		return swayipc.Window{}
	}
	person, err := desktop.Open(desktop.Options{Backend: "wlroots", Wayland: s.Socket})
	if err != nil {
		t.Fatal(err)
	}
	defer person.Close()
	shots := artifactsDir(t)
	shot := func(name string) {
		if err := s.Grim(ctx, "", filepath.Join(shots, "app-wayland-"+name+".png")); err != nil {
			t.Error(err)
		}
	}
	shot("0-start")
	var strip swayipc.Window
	srv.Add(
		reply("move(600, 300)"),
		llmtest.Reply{Func: func(llmtest.Request) string {
			// The agent works: the strip floats in the bottom-right corner.
			for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
				strip = appWindow()
				if strip.Floating && strip.Frame.Max.X > 1200 && strip.Frame.Max.Y > 650 && strip.Frame.Dy() < 300 {
					break
				}
			}
			shot("1-strip")
			// The person moves over the strip: their own window, no takeover.
			c := strip.Frame.Min.Add(strip.Frame.Size().Div(2))
			for i := range 5 {
				person.Input().Move(t.Context(), actions.Point{X: c.X - 20 + 10*i, Y: c.Y})
				time.Sleep(30 * time.Millisecond)
			}
			return "Thought: move on.\n```python\nmove(620, 320)\n```"
		}},
		reply(`final_answer("done on wayland")`),
	)
	in := person.Input()
	for _, step := range []func() error{
		func() error { return in.Press(ctx, mustCombo(t, "ctrl+a")) },
		func() error { return in.Type(ctx, "Check the desktop on Wayland") },
		func() error { return in.Press(ctx, mustCombo(t, "ctrl+enter")) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	var tr *trace.Trace
	for end := time.Now().Add(60 * time.Second); time.Now().Before(end) && tr == nil; time.Sleep(200 * time.Millisecond) {
		dirs, _ := filepath.Glob(filepath.Join(traces, "*"))
		if len(dirs) == 1 {
			if got, err := trace.Read(dirs[0]); err == nil && got.End != nil {
				tr = got
			}
		}
	}
	if tr == nil {
		shot("fail-no-end")
		t.Fatalf("the run did not end; %d model calls", len(srv.Requests()))
	}
	if tr.End.Outcome != "answered" || tr.Answer() != "done on wayland" {
		t.Errorf("the run ended %q with %q (a takeover pauses it: the pointer over the strip was taken for one?)", tr.End.Outcome, tr.Answer())
	}
	if !strip.Floating || strip.Frame.Max.X < 1200 || strip.Frame.Max.Y < 650 || strip.Frame.Dy() >= 300 {
		t.Errorf("during the run the window was at %v (floating %v), not a strip in the bottom-right corner", strip.Frame, strip.Floating)
	}
	var full swayipc.Window
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if full = appWindow(); !full.Floating && full.Frame.Dx() > 1000 {
			break
		}
	}
	shot("2-finished")
	if full.Floating || full.Frame.Dx() < 1000 {
		t.Errorf("after the run the window is at %v (floating %v), not the full window", full.Frame, full.Floating)
	}
}
