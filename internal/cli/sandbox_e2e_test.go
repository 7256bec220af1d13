package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"deskpilot/agent/llm/llmtest"
)

// goCache is the Go build cache as the tests started (isolate moves
// XDG_CACHE_HOME, and with it the default cache: a build there is cold).
var goCache = func() string {
	out, _ := exec.Command("go", "env", "GOCACHE").Output()
	return strings.TrimSpace(string(out))
}()

// binary is the deskpilot binary the process-level tests run, built once.
var binary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "deskpilot-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "deskpilot")
	cmd := exec.Command("go", "build", "-o", bin, "deskpilot")
	cmd.Env = append(os.Environ(), "GOCACHE="+goCache)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return bin, nil
})

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// runBinary starts `deskpilot run` against srv with stdin from /dev/null.
func runBinary(t *testing.T, srv *llmtest.Server, traces string, env ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	cmd := exec.CommandContext(t.Context(), bin, "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "--json", "task")
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

// The real binary: code that overflows the interpreter's stack, or piles up
// memory, takes its sandbox child down, never the agent, which tells the model
// and runs on to the answer (issue: one-line crash, no memory bound).
func TestHostileCodeNeverKillsTheAgent(t *testing.T) {
	traces := isolate(t)
	srv := llmtest.New(t,
		reply(`x = 1`+"\n"+`json.decode("[" * 5000000)`),
		reply("s = 'x' * 1000000\nl = []\nfor i in range(100000):\n    l.append(s + str(i))"),
		reply(`print("alive")`),
		reply(`final_answer("survived")`))
	cmd, out := runBinary(t, srv, traces, "DESKPILOT_CODE_MEMORY_MB=96")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("deskpilot run: %v\n%s", err, out)
	}
	if !strings.Contains(out.String(), `"answer": "survived"`) {
		t.Errorf("output:\n%s", out)
	}
	reqs := srv.Requests()
	// Nesting without end ends in a stack overflow or at the memory cap,
	// whichever comes first: either way the child dies, not the agent.
	if got := reqs[1].Last("user").Text(); !strings.Contains(got, "variables were lost") {
		t.Errorf("after the stack overflow the model read:\n%s", got)
	}
	if got := reqs[2].Last("user").Text(); !strings.Contains(got, "more than 96 MiB of memory") {
		t.Errorf("after the memory flood the model read:\n%s", got)
	}
	if got := reqs[3].Last("user").Text(); !strings.Contains(got, "alive") {
		t.Errorf("the fresh sandbox did not run: %s", got)
	}
}

// SIGINT and SIGTERM end a step stuck in one long operation: the run ends
// cancelled with a complete trace and the interrupted exit code, the step
// ended by the signal, not by its time limit nor by the operation finishing.
func TestSignalsEndAStuckStep(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			traces := isolate(t)
			srv := llmtest.New(t, reply("l = []\nfor i in range(300000):\n    l = [l]\nx = str(l)\nprint('fin' + 'ished')"))
			cmd, out := runBinary(t, srv, traces)
			// Wait until the code runs: its step's code is in the trace.
			for !traceHas(traces, `"type":"code"`) {
				select {
				case <-t.Context().Done():
					t.Fatal("the step never started")
				case <-time.After(50 * time.Millisecond):
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupted {
				t.Errorf("exit %v, want %d\n%s", err, exitInterrupted, out)
			}
			if !traceHas(traces, `"outcome":"cancelled"`) {
				t.Error("the trace has no run_end with the outcome cancelled")
			}
			for _, s := range []string{"time limit", "finished"} {
				if traceHas(traces, s) {
					t.Errorf("the trace holds %q: the step was not ended by %s", s, sig)
				}
			}
		})
	}
}

// traceHas reports whether any trace under root contains s.
func traceHas(root, s string) bool {
	files, _ := filepath.Glob(filepath.Join(root, "*", "trace.jsonl"))
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil && bytes.Contains(data, []byte(s)) {
			return true
		}
	}
	return false
}
