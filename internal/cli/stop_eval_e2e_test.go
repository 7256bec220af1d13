//go:build linux

package cli

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"deskpilot/internal/runctl"
)

// `deskpilot stop` stops a `deskpilot eval` in another process: the
// evaluation registers as an entry of its own (--list shows it), and stop
// ends it as Ctrl+C does — the task running is cancelled, the model is asked
// nothing more, and eval exits interrupted, saying --resume runs the rest.
func TestStopReachesEval(t *testing.T) {
	_, _ = mcpEnv(t) // own config, data and runtime folders
	suite := copySuite(t, "../../eval/suites/desktop", "xterm-create-file", "form-name-email")
	srv := slowModel(t)
	bin, err := binary()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	out := filepath.Join(t.TempDir(), "results")
	cmd := exec.CommandContext(t.Context(), bin, "eval", suite, "--out", out, "--base-url", srv.URL, "--model", "m",
		"--max-steps", "60", "--timeout", "4m")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	dir, err := runctl.Dir(nil)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		all, _ := runctl.List(t.Context(), dir)
		if len(all) == 1 && all[0].Kind == runctl.KindEval && len(srv.Requests()) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no evaluation asking the model in the control folder (%d requests); stderr:\n%s", len(srv.Requests()), stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if list, _ := cli(t, "", "stop", "--list"); !strings.Contains(list, "eval (pid ") || !strings.Contains(list, suite) {
		t.Errorf("stop --list:\n%s", list)
	}
	if got, code := cli(t, "", "stop"); code != 0 || !strings.Contains(got, "stopped eval (pid ") {
		t.Errorf("deskpilot stop (exit %d):\n%s", code, got)
	}
	select {
	case err = <-exited:
	case <-time.After(time.Minute):
		t.Fatalf("eval goes on a minute after deskpilot stop; stderr:\n%s", stderr.String())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
		t.Errorf("eval ended with %v, want exit %d (interrupted); stderr:\n%s", err, exitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted: 0 of 2 tasks finished; --resume") {
		t.Errorf("stderr does not say it was interrupted:\n%s", stderr.String())
	}
	asked := len(srv.Requests())
	time.Sleep(time.Second)
	if n := len(srv.Requests()); n != asked {
		t.Errorf("the model was asked %d more times after eval ended", n-asked)
	}
	if all, _ := runctl.List(t.Context(), dir); len(all) != 0 {
		t.Errorf("entries left after eval ended: %+v", all)
	}
}
