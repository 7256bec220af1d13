//go:build linux

package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"deskpilot/internal/xconn"
)

func TestMain(m *testing.M) {
	xconn.Quiet() // xgb logs every connection a closed display drops
	os.Exit(m.Run())
}

// needTools fails the test when a program the suite needs is missing (make deps
// installs them all).
func needTools(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Fatalf("%s is not installed (make deps installs it): %v", n, err)
		}
	}
}

// solutionRunner performs each task's reference solution on the task's display
// with real input: testdata/solutions/<id>.sh drives the apps with xdotool, with
// the task's environment and MODE=mode ("right" or "wrong"). A line ANSWER=...
// on its stdout is the final answer.
func solutionRunner(t *testing.T, mode string) Runner {
	dir, err := filepath.Abs("testdata/solutions")
	if err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, j Job) (Outcome, error) {
		script := filepath.Join(dir, j.TaskID+".sh")
		if _, err := os.Stat(script); err != nil {
			return Outcome{Exit: 1, Outcome: "failed"}, fmt.Errorf("no solution for %s", j.TaskID)
		}
		cmd := j.Display.Command(ctx, "bash", script)
		cmd.Env = append(append([]string{}, j.Env...), "MODE="+mode)
		cmd.Dir = j.Home
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		o := Outcome{Outcome: "answered", Steps: 1, Tokens: 100}
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "ANSWER="); ok {
				o.Answer = a
			}
		}
		if err != nil {
			return Outcome{Exit: 1, Outcome: "failed"}, fmt.Errorf("solution %s: %v: %s", j.TaskID, err, stderr.String())
		}
		return o, nil
	}
}

// idleRunner does nothing: every task must fail its check.
func idleRunner(ctx context.Context, j Job) (Outcome, error) {
	return Outcome{Outcome: "failed", Exit: 1}, nil
}

// readJSONL reads results.jsonl strictly.
func readJSONL(t *testing.T, dir string) []Result {
	t.Helper()
	rs, err := readResults(filepath.Join(dir, resultsFile), false)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// readSummary reads summary.json.
func readSummary(t *testing.T, dir string) Summary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, summaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// xvfbChildren lists the Xvfb processes this test process started that still run
// (zombies included: a display closed properly is also reaped).
func xvfbChildren(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	me := strconv.Itoa(os.Getpid())
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || !strings.Contains(s[:i], "(Xvfb") {
			continue
		}
		if f := strings.Fields(s[i+1:]); len(f) > 1 && f[1] == me {
			out = append(out, e.Name())
		}
	}
	return out
}

// waitNoXvfb waits a little for Xvfb children to go, then reports any left.
func waitNoXvfb(t *testing.T) {
	t.Helper()
	for range 50 {
		if len(xvfbChildren(t)) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("Xvfb processes left running: %v", xvfbChildren(t))
}

// image1280 is the screen size the end-to-end tests use: smaller than the
// default, so parallel displays cost less memory.
func image1280() image.Point { return image.Pt(1280, 800) }
