package cli

import (
	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/trace"
	"os"
	"strings"
	"testing"
)

// Standard input from /dev/null (cron, systemd, CI) is nobody at a terminal: a
// question gets "no person", an approval is refused, and the run ends instead
// of waiting on a prompt.
func TestRunWithStdinFromDevNull(t *testing.T) {
	traces := isolate(t)
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	srv := llmtest.New(t,
		reply(`print(ask_user("which folder?"))`),
		reply(`launch("xterm")`),
		reply(`final_answer("gave up")`))
	cmd := newRootCmd("test")
	var out strings.Builder
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetIn(null)
	cmd.SetArgs([]string{"run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "task"})
	if code := exitCode(cmd.ExecuteContext(t.Context()), &out); code != exitAnswered {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
	reqs := srv.Requests()
	if got := reqs[1].Last("user").Text(); !strings.Contains(got, "no person is available to answer") {
		t.Errorf("ask_user with stdin at /dev/null got:\n%s", got)
	}
	if got := reqs[2].Last("user").Text(); !strings.Contains(got, "refused: launch(xterm) needs the person's approval") &&
		!strings.Contains(got, "refused: the person did not allow") {
		t.Errorf("launch with stdin at /dev/null got:\n%s", got)
	}
}

// Escape sequences from a model, a page or a file never reach the terminal raw,
// and the API key never reaches the progress line.
func TestTerminalOutputIsNeutralized(t *testing.T) {
	traces := isolate(t)
	const key = "sk-live-0123456789abcdef"
	t.Setenv("DESKPILOT_TEST_KEY", key)
	srv := llmtest.New(t,
		reply(`type_text("\x1b]0;owned\x07`+key+`")`),
		reply(`final_answer("\x1b[2J\x1b[Hall clear\rfake line")`))
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--api-key-env", "DESKPILOT_TEST_KEY",
		"--trace-dir", traces, "task")
	if code != exitAnswered {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if strings.ContainsAny(out, "\x1b\x07\r") {
		t.Errorf("raw control characters reached the terminal:\n%q", out)
	}
	if strings.Contains(out, key) {
		t.Errorf("the API key reached the terminal:\n%s", out)
	}
	for _, want := range []string{`\x1b[2J\x1b[Hall clear\x0dfake line`, `\x1b]0;owned\a[redacted]`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A one-letter API key (a local server takes any) does not blank out every "x"
// of the task, the code and the answer in the trace.
func TestShortKeyDoesNotCorruptTheTrace(t *testing.T) {
	traces := isolate(t)
	t.Setenv("OPENAI_API_KEY", "x")
	srv := llmtest.New(t, reply(`final_answer("the x axis is fixed")`))
	out, exit := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "--json", "-q", "fix the x axis")
	if exit != exitAnswered {
		t.Fatalf("exit %d:\n%s", exit, out)
	}
	tr := onlyTrace(t, traces)
	var code string
	for _, st := range tr.Steps {
		code += st.Code
	}
	if tr.Start.Task != "fix the x axis" || tr.Answer() != "the x axis is fixed" || !strings.Contains(code, "x axis") {
		t.Errorf("trace task %q answer %q code %q", tr.Start.Task, tr.Answer(), code)
	}
}

// onlyTrace reads the one trace under root.
func onlyTrace(t *testing.T, root string) *trace.Trace {
	t.Helper()
	sums, err := trace.List(root)
	if err != nil || len(sums) != 1 {
		t.Fatalf("traces under %s: %d, %v", root, len(sums), err)
	}
	tr, err := trace.Read(sums[0].Dir)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
