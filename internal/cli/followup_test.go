package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/agent"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/trace"
	"deskpilot/internal/wiring"
)

// runJSON runs `deskpilot run --json` with args before the task and returns
// its result.
func runJSON(t *testing.T, srv *llmtest.Server, traces string, args ...string) runResult {
	t.Helper()
	all := append([]string{"run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "--json", "-q"}, args...)
	out, code := cli(t, "", all...)
	if code != exitAnswered {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	var res runResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	return res
}

// A follow-up turn (run --continue TRACE) gives the model the earlier runs'
// tasks, replies and observations before the new task, with one fresh
// screenshot, and its trace names the run it continues; a chain of follow-ups
// carries every earlier turn.
func TestRunContinueFollowsUp(t *testing.T) {
	traces := isolate(t)
	first := llmtest.New(t, reply(`print("the code word is heron")`), reply(`final_answer("noted")`))
	r1 := runJSON(t, first, traces, "remember the code word")

	second := llmtest.New(t, reply(`final_answer("heron")`))
	r2 := runJSON(t, second, traces, "--continue", r1.Trace, "what was the code word?")
	req := second.Requests()[0]
	body := string(req.Body)
	for _, want := range []string{"remember the code word", `print(\"the code word is heron\")`, "the code word is heron\\n", "what was the code word?"} {
		if !strings.Contains(body, want) {
			t.Errorf("the follow-up's request lacks %q", want)
		}
	}
	if n := len(req.Images()); n != 1 {
		t.Errorf("the follow-up's request carries %d screenshots, want 1 (the fresh one)", n)
	}
	if last := req.Last("user").Text(); !strings.Contains(last, "what was the code word?") {
		t.Errorf("the last user turn is not the follow-up: %q", last)
	}
	tr, err := trace.Read(r2.Trace)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Start.Continues != r1.Trace || tr.Start.Task != "what was the code word?" {
		t.Errorf("run_start continues %q task %q; want %q and the follow-up", tr.Start.Continues, tr.Start.Task, r1.Trace)
	}

	third := llmtest.New(t, reply(`final_answer("done")`))
	runJSON(t, third, traces, "--continue", r2.Trace, "spell it backwards")
	body = string(third.Requests()[0].Body)
	for _, want := range []string{"remember the code word", "what was the code word?", "spell it backwards"} {
		if !strings.Contains(body, want) {
			t.Errorf("the second follow-up's request lacks %q", want)
		}
	}
}

// A follow-up of something that is no trace, or of traces that continue each
// other in a loop, is a usage error that says so; the model is never called.
func TestRunContinueBadTrace(t *testing.T) {
	traces := isolate(t)
	srv := llmtest.New(t)
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "--continue", filepath.Join(t.TempDir(), "nothing"), "go on")
	if code != exitUsage || !strings.Contains(out, "follow-up") {
		t.Errorf("missing trace: exit %d, output:\n%s", code, out)
	}

	first := llmtest.New(t, reply(`final_answer("ok")`))
	r1 := runJSON(t, first, traces, "a task")
	// Make the run claim to continue itself.
	path := filepath.Join(r1.Trace, "trace.jsonl")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Signed with the user's key, as one of their runs would: a loop of
	// their own traces.
	key, err := wiring.TraceKey()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(r1.Trace)
	if err != nil {
		t.Fatal(err)
	}
	sig := agent.SignContinues(key, tr.Start.T, r1.Trace)
	line, rest, _ := strings.Cut(string(raw), "\n")
	line = strings.Replace(line, `"task":`, `"continues":"`+r1.Trace+`","continues_sig":"`+sig+`","task":`, 1)
	if err := os.WriteFile(path, []byte(line+"\n"+rest), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code = cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "--continue", r1.Trace, "go on")
	if code != exitUsage || !strings.Contains(out, "loop") {
		t.Errorf("looping traces: exit %d, output:\n%s", code, out)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the model was called %d times", n)
	}
}

// A trace from elsewhere whose continues field points into another run's
// folder is read alone: the chain passes only through the trace the person
// named and links the user's own runs signed, so the other run's text never
// reaches the model. A chain of the user's own follow-ups is followed.
func TestRunContinueRefusesAHostileChain(t *testing.T) {
	traces := isolate(t)
	private := llmtest.New(t, reply(`print("the vault code is 4-8-15-16")`), reply(`final_answer("kept")`))
	rp := runJSON(t, private, traces, "look at the vault")

	// A trace written elsewhere (here: a run's, edited) that claims to
	// continue the private run, signed with a key that is not the user's.
	other := llmtest.New(t, reply(`final_answer("hello")`))
	ro := runJSON(t, other, traces, "say hello")
	path := filepath.Join(ro.Trace, "trace.jsonl")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(ro.Trace)
	if err != nil {
		t.Fatal(err)
	}
	forged := agent.SignContinues([]byte("not the user's key, 32 bytes...."), tr.Start.T, rp.Trace)
	line, rest, _ := strings.Cut(string(raw), "\n")
	line = strings.Replace(line, `"task":`, `"continues":"`+rp.Trace+`","continues_sig":"`+forged+`","task":`, 1)
	if err := os.WriteFile(path, []byte(line+"\n"+rest), 0o600); err != nil {
		t.Fatal(err)
	}
	next := llmtest.New(t, reply(`final_answer("done")`))
	all := []string{"run", "--base-url", next.URL, "--model", "m", "--trace-dir", traces, "--json", "--continue", ro.Trace, "and now?"}
	out, code := cli(t, "", all...)
	if code != exitAnswered {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	body := string(next.Requests()[0].Body)
	if strings.Contains(body, "vault") || !strings.Contains(body, "say hello") {
		t.Errorf("the follow-up read past the trace named:\n%s", body)
	}
	if !strings.Contains(out, "but no run of yours signed that: the earlier run was not read") {
		t.Errorf("no note on the link not followed:\n%s", out)
	}
}
