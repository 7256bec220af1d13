package cli

import (
	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/trace"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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
	// No one was asked: the refusal says so, and how to allow it headless.
	if got := reqs[2].Last("user").Text(); !strings.Contains(got, "refused: launch(xterm) needs the person's approval, and no one was asked") ||
		!strings.Contains(got, "--yes") || !strings.Contains(got, "confirm = []") || strings.Contains(got, "did not allow") {
		t.Errorf("launch with stdin at /dev/null got:\n%s", got)
	}
	if !strings.Contains(out.String(), "no one was asked") {
		t.Errorf("the terminal does not say why launch was refused:\n%s", out.String())
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

// A dead endpoint fails at once with one line naming the URL and the fix; an
// HTML error page is summed up once, by its title.
func TestEndpointFailuresSayWhatToDo(t *testing.T) {
	traces := isolate(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	out, code := cli(t, "", "run", "--base-url", dead, "--model", "m", "--trace-dir", traces, "-q", "task")
	if code != exitFailed || !strings.Contains(out, "cannot reach the model at "+dead+": connection refused") ||
		strings.Count(out, "cannot reach") != 1 || strings.Count(strings.TrimSpace(out), "\n") > 1 {
		t.Errorf("dead endpoint: exit %d\n%s", code, out)
	}
	page := "<html><head><title>502 Bad Gateway</title></head><body>" + strings.Repeat("<p>upstream</p>", 50) + "</body></html>"
	srv := llmtest.New(t, llmtest.Reply{Status: 502, HTML: page}, llmtest.Reply{Status: 502, HTML: page},
		llmtest.Reply{Status: 502, HTML: page}, llmtest.Reply{Status: 502, HTML: page}, llmtest.Reply{Status: 502, HTML: page})
	t.Setenv("DESKPILOT_RETRIES", "-1")
	out, code = cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "-q", "task")
	if code != exitFailed || strings.Count(out, `an HTML page titled "502 Bad Gateway"`) != 1 || strings.Contains(out, "upstream") {
		t.Errorf("HTML error page: exit %d\n%s", code, out)
	}
}

// A secret from DESKPILOT_SECRET_<NAME> is typed by type_secret, and where its
// value shows up in what the model reads (a file), it never reaches the trace,
// its export, the progress line or the console.
func TestSecretNeverLeaks(t *testing.T) {
	traces := isolate(t)
	const secret = "hunter2-Secret-9"
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("DESKPILOT_SECRET_PW", secret)
	if err := os.WriteFile(filepath.Join(home, "notes.txt"), []byte("the password is "+secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t, reply(`type_secret("pw")`), reply(`print(inspect_file("~/notes.txt"))`), reply(`final_answer("done")`))
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "task")
	if code != exitAnswered {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if got := srv.Requests()[1].Last("user").Text(); !strings.Contains(got, "typed [secret:pw]") {
		t.Errorf("type_secret did not type: %s", got)
	}
	if got := srv.Requests()[2].Last("user").Text(); strings.Contains(got, secret) || !strings.Contains(got, "the password is [secret:pw]") {
		t.Errorf("the model read the secret: %s", got)
	}
	tr := onlyTrace(t, traces)
	export, _ := cli(t, "", "traces", "export", tr.Dir, "--format", "jsonl")
	console, _ := cli(t, `print(inspect_file("~/notes.txt"))`+"\n", "console", "--trace-dir", traces)
	files, _ := filepath.Glob(filepath.Join(tr.Dir, "*"))
	var stored strings.Builder
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil {
			stored.Write(data)
		}
	}
	for where, text := range map[string]string{"run output": out, "trace files": stored.String(), "export": export, "console": console} {
		if strings.Contains(text, secret) {
			t.Errorf("the secret reached the %s", where)
		}
	}
	if !strings.Contains(console, "the password is [secret:pw]") {
		t.Errorf("console output:\n%s", console)
	}
}

// Without xdg-open, open_url says so and where the page is, instead of a
// bare "not found".
func TestOpenURLWithoutOpener(t *testing.T) {
	traces := isolate(t)
	t.Setenv("PATH", t.TempDir())
	srv := llmtest.New(t, reply(`open_url("https://93.184.215.14/report")`), reply(`final_answer("ok")`))
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "--yes", "-q", "task")
	if code != exitAnswered {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if got := srv.Requests()[1].Last("user").Text(); !strings.Contains(got, "no program to open web pages (xdg-open) is installed here, so https://93.184.215.14/report was not opened") {
		t.Errorf("observation: %s", got)
	}
}

// A run that read a file in the home folder asks before data leaves for a
// domain it has not reached; without a person to approve, the visit is refused
// and nothing is sent.
func TestSendAfterReadingHomeAsks(t *testing.T) {
	traces := isolate(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("DESKPILOT_BROWSER_ALLOW_PRIVATE", "1")
	if err := os.WriteFile(filepath.Join(home, "notes.txt"), []byte("account 12345\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "<html><title>x</title><body>ok</body></html>")
	}))
	defer site.Close()
	srv := llmtest.New(t,
		reply(`print(visit_page("`+site.URL+`/before"))`),
		reply(`print(inspect_file("~/notes.txt"))`),
		reply(`print(visit_page("http://localhost:`+site.URL[strings.LastIndex(site.URL, ":")+1:]+`/leak?a=12345"))`),
		reply(`print(visit_page("`+site.URL+`/again"))`),
		reply(`final_answer("done")`))
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "-q", "task")
	if code != exitAnswered {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if got := srv.Requests()[3].Last("user").Text(); !strings.Contains(got, "refused: sending data to localhost after reading files in your home folder") {
		t.Errorf("the visit to a new domain after reading a home file:\n%s", got)
	}
	if got := srv.Requests()[4].Last("user").Text(); strings.Contains(got, "refused") {
		t.Errorf("a domain reached before the read needs no approval:\n%s", got)
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("the site got %d requests, want 2 (the refused visit sent nothing)", n)
	}
}

// open_url refuses private and loopback addresses like the text browser does.
func TestOpenURLRefusesPrivateAddresses(t *testing.T) {
	traces := isolate(t)
	srv := llmtest.New(t, reply(`open_url("http://127.0.0.1:8080/admin")`), reply(`final_answer("ok")`))
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "--yes", "-q", "task")
	if code != exitAnswered {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if got := srv.Requests()[1].Last("user").Text(); !strings.Contains(got, "open_url: ") || !strings.Contains(got, "private") && !strings.Contains(got, "loopback") {
		t.Errorf("observation: %s", got)
	}
}
