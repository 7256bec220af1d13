package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/internal/runctl"
)

// slowModel answers every step after a while with a harmless block, for
// runs that must still be going when they are stopped.
func slowModel(t *testing.T) *llmtest.Server {
	var replies []llmtest.Reply
	for range 60 {
		replies = append(replies, llmtest.Reply{Delay: 40 * time.Millisecond, Text: "Thought: wait.\n```python\nwait(0.5)\n```"})
	}
	return llmtest.New(t, replies...)
}

// waitCalling waits until an MCP session is calling tool, as the control
// sockets report it.
func waitCalling(t *testing.T, tool string) runctl.Status {
	t.Helper()
	dir, err := runctl.Dir(nil)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		all, _ := runctl.List(t.Context(), dir)
		for _, st := range all {
			if st.Kind == runctl.KindMCP && st.Tool == tool {
				return st
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no MCP session calling %s", tool)
	return runctl.Status{}
}

// `deskpilot stop` and the Stop key stop an MCP session's run_task; the
// session then refuses calls. --list shows the session first.
func TestStopReachesMCPSessions(t *testing.T) {
	for _, how := range []string{"deskpilot stop", "Stop key"} {
		t.Run(how, func(t *testing.T) {
			traces, env := mcpEnv(t)
			srv := slowModel(t)
			args := []string{"--base-url", srv.URL, "--model", "m", "--trace-dir", traces}
			done := make(chan []map[string]any, 1)
			go func() {
				done <- host(t, stdioPlan(t, env, args,
					step("call", "name", "run_task", "args", map[string]any{"task": "wait a lot"}),
					step("call", "name", "screenshot")))
			}()
			st := waitCalling(t, "run_task")
			if st.Host != "deskpilot-test-host" {
				t.Errorf("the session's host is %q", st.Host)
			}
			if out, _ := cli(t, "", "stop", "--list"); !strings.Contains(out, "MCP session of deskpilot-test-host") || !strings.Contains(out, "calling run_task") {
				t.Errorf("stop --list:\n%s", out)
			}
			if how == "deskpilot stop" {
				out, code := cli(t, "", "stop")
				if code != 0 || !strings.Contains(out, "stopped MCP session of deskpilot-test-host") {
					t.Errorf("deskpilot stop (exit %d):\n%s", code, out)
				}
			} else {
				pressStopKey(t)
			}
			var steps []map[string]any
			select {
			case steps = <-done:
			case <-time.After(2 * time.Minute):
				t.Fatal("the host's call did not end after Stop")
			}
			if o := fmt.Sprint(obj(steps[0]["structured"])["outcome"]); o != "cancelled" {
				t.Errorf("run_task ended %s, want cancelled: %s", o, text(steps[0]))
			}
			if !strings.Contains(text(steps[1]), "stopped: the person stopped deskpilot") {
				t.Errorf("a call after Stop: %s", text(steps[1]))
			}
		})
	}
}

// pressStopKey presses Ctrl+Alt+Esc on the private display with xdotool, a
// client of its own, until the key is taken (the grab may still be on its
// way).
func pressStopKey(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "xdotool", "key", "ctrl+alt+Escape")
	cmd.Env = os.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool: %v %s", err, out)
	}
}

// The person moving the mouse during a call is a takeover: the call stops
// before its next action and says so. Between calls the desktop is the
// person's: the next call acts.
func TestMCPTakeoverStopsTheCall(t *testing.T) {
	_, env := mcpEnv(t)
	app := xmessage(t, "Alpha,Bravo")
	done := make(chan []map[string]any, 1)
	go func() {
		done <- host(t, stdioPlan(t, env, nil,
			step("call", "name", "run_code", "args", map[string]any{"code": "wait(3)\nclick_text(\"Bravo\")"}),
			step("call", "name", "click_text", "args", map[string]any{"text": "Bravo"})))
	}()
	waitCalling(t, "run_code")
	time.Sleep(500 * time.Millisecond) // inside wait(3)
	cmd := exec.CommandContext(t.Context(), "xdotool", "mousemove", "20", "20", "mousemove", "300", "300")
	cmd.Env = os.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool: %v %s", err, out)
	}
	var steps []map[string]any
	select {
	case steps = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the host did not finish")
	}
	if s := text(steps[0]); !strings.Contains(s, "the person took over the desktop") || strings.Contains(s, "clicked") {
		t.Errorf("the call during the takeover: %s", s)
	}
	if steps[1]["isError"] == true {
		t.Errorf("the next call was refused: %s", text(steps[1]))
	}
	if out := exitedWith(t, app); out != "Bravo" {
		t.Errorf("xmessage printed %q, want Bravo (clicked once, by the second call)", out)
	}
}
