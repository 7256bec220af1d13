//go:build linux

package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/vision/wldisplay"
)

// The real binary on headless sway: the session's variables point it at the
// compositor, and no X display is set, so only the Wayland backend can work.

func startSwayFor(t *testing.T, o wldisplay.SwayOptions) *wldisplay.Sway {
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

// swayEnv is the environment of a deskpilot in s's session.
func swayEnv(s *wldisplay.Sway) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "SWAYSOCK", "XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "WAYLAND_DISPLAY="+s.Socket, "XDG_RUNTIME_DIR="+s.RuntimeDir, "XDG_CURRENT_DESKTOP=sway", "XDG_SESSION_TYPE=wayland")
}

// runOn runs `deskpilot run` in env against srv and returns its output and error.
func runOn(t *testing.T, env []string, srv *llmtest.Server, traces string, args ...string) (string, error) {
	t.Helper()
	bin := buildDeskpilot(t)
	all := append([]string{"run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "--image-size", "1920", "--json", "-q"}, args...)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(all, "task")...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func waitWindowOf(t *testing.T, s *wldisplay.Sway, a *wldisplay.App) wldisplay.Window {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	w, err := s.WaitWindow(ctx, a.PID())
	if err != nil {
		t.Fatalf("%v\n%s", err, a.Output())
	}
	return w
}

func TestRunOnSwayTypesAndClicks(t *testing.T) {
	traces := isolate(t)
	s := startSwayFor(t, wldisplay.SwayOptions{Width: 1920, Height: 1080})
	env := swayEnv(s)
	file := filepath.Join(t.TempDir(), "typed.txt")
	foot, err := s.Start("foot", "sh", "-c", "cat > "+file)
	if err != nil {
		t.Fatal(err)
	}
	waitWindowOf(t, s, foot)
	text := "Grüße, 世界! ✓ 😀 «ok» naïve\n"
	srv := llmtest.New(t, reply(fmt.Sprintf("type_text(%q)", text)), reply(`final_answer("typed")`))
	if out, err := runOn(t, env, srv, traces); err != nil {
		t.Fatalf("deskpilot run: %v\n%s", err, out)
	}
	if got, _ := os.ReadFile(file); string(got) != text {
		t.Errorf("the file holds %q, want %q", got, text)
	}
	foot.Stop()

	zen, err := s.Start("zenity", "--entry", "--text", "Click OK", "--entry-text", "clicked by deskpilot")
	if err != nil {
		t.Fatal(err)
	}
	w := waitWindowOf(t, s, zen)
	ok := w.Rect.Max.Sub(image.Pt(54, 25))
	srv = llmtest.New(t, reply(fmt.Sprintf("click(%d, %d)", ok.X, ok.Y)), reply(`final_answer("clicked")`))
	if out, err := runOn(t, env, srv, traces); err != nil {
		t.Fatalf("deskpilot run: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if out, err := zen.Wait(ctx); err != nil || out != "clicked by deskpilot\n" {
		t.Errorf("zenity printed %q (%v)", out, err)
	}
}

func TestDoctorOnSway(t *testing.T) {
	isolate(t)
	s := startSwayFor(t, wldisplay.SwayOptions{})
	cmd := exec.CommandContext(t.Context(), buildDeskpilot(t), "doctor")
	cmd.Env = append(swayEnv(s), "DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent")
	out, _ := cmd.CombinedOutput()
	for _, want := range []string{
		"backend    wlroots: WAYLAND_DISPLAY=" + s.Socket + " and XDG_CURRENT_DESKTOP=sway",
		"ok   compositor sway 1.",
		"zwlr_screencopy_manager_v1 v3: found",
		"zwp_virtual_keyboard_manager_v1 v1: found",
		"ok   display    wlroots backend, HEADLESS-1",
		"ok   capture    1280x720",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("doctor's output lacks %q:\n%s", want, out)
		}
	}
}

func TestRunWhoseCompositorDiesEndsClearly(t *testing.T) {
	traces := isolate(t)
	s := startSwayFor(t, wldisplay.SwayOptions{})
	// The compositor dies while the model thinks about step 2, whose click
	// then has nowhere to go.
	srv := llmtest.New(t, reply(`move(10, 10)`), llmtest.Reply{Func: func(llmtest.Request) string {
		s.Kill()
		return "Thought: click.\n```python\nclick(100, 100)\n```"
	}}, reply(`final_answer("never")`))
	out, err := runOn(t, swayEnv(s), srv, traces)
	if err == nil {
		t.Fatalf("the run succeeded on a dead compositor:\n%s", out)
	}
	if !strings.Contains(out, "compositor") {
		t.Errorf("the error does not say the compositor went away:\n%s", out)
	}
	// The trace is whole: every line is JSON and the run's end is recorded.
	files, _ := filepath.Glob(filepath.Join(traces, "*", "trace.jsonl"))
	if len(files) != 1 {
		t.Fatalf("traces: %v", files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var last map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		last = nil
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatalf("a trace line is not JSON: %v: %.200s", err, sc.Text())
		}
	}
	if last["type"] != "run_end" || last["outcome"] != "failed" || !strings.Contains(fmt.Sprint(last["error"]), "compositor") {
		t.Errorf("the trace's last record is %v, not the run's failed end", last)
	}
}

// TestEvalOnSway runs two GAIA questions two at a time with
// --display-server sway: each task's agent gets a headless sway of its own
// (two compositors side by side), launches foot there (a Wayland-only
// terminal), and reads back from the screen what foot printed.
func TestEvalOnSway(t *testing.T) {
	if _, err := exec.LookPath("sway"); err != nil {
		t.Skip("sway is not installed (make deps installs it)")
	}
	isolate(t)
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite")
	os.MkdirAll(suite, 0o755)
	var lines []string
	for _, id := range []string{"a", "b"} {
		lines = append(lines, fmt.Sprintf(`{"task_id": "wl-%s", "Question": "Which compositor, task %s?", "Level": 1, "Final answer": "sway"}`, id, id))
	}
	os.WriteFile(filepath.Join(suite, "metadata.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	m := newScriptedModel(t, map[string]policy{
		"task a": swayTaskPolicy(t, filepath.Join(dir, "a.txt")),
		"task b": swayTaskPolicy(t, filepath.Join(dir, "b.txt")),
	})
	srv := llmtest.New(t, m.replies(2*2)...)
	out := filepath.Join(dir, "results")
	stdout, stderr, code := runCLI(t.Context(), "eval", suite, "--out", out, "--parallel", "2", "--json", "--yes",
		"--display-server", "sway", "--screen", "1280x720", "--base-url", srv.URL, "--model", "scripted", "--max-steps", "4")
	if code != exitAnswered {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	sum, _ := parseSummary(t, stdout)
	if sum.Passed != 2 {
		t.Errorf("%d of 2 passed\n%s\n%s", sum.Passed, stdout, stderr)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "a.txt"))
	b, _ := os.ReadFile(filepath.Join(dir, "b.txt"))
	sa, sb := strings.TrimSpace(string(a)), strings.TrimSpace(string(b))
	if !strings.Contains(sa, "wl-sway-rt-") || !strings.Contains(sb, "wl-sway-rt-") || sa == sb {
		t.Errorf("the tasks' foot saw WAYLAND_DISPLAY %q and %q: want two compositors of their own", sa, sb)
		for _, r := range srv.Requests() {
			t.Log(lastObservation(r))
		}
		t.Log(stderr)
	}
}

// swayTaskPolicy launches foot running a script that writes foot's
// WAYLAND_DISPLAY to file, waits for the file, then answers.
func swayTaskPolicy(t *testing.T, file string) policy {
	script := file + ".sh"
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"$WAYLAND_DISPLAY\" > "+file+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return func(_ testing.TB, step int, _ llmtest.Request) string {
		switch step {
		case 0:
			return fmt.Sprintf("launch(%q)", "foot "+script)
		case 1:
			for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
				if b, _ := os.ReadFile(file); len(b) > 0 {
					break
				}
			}
		}
		return `final_answer("sway")`
	}
}
