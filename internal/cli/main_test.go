package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/agent/dialect"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/script"
	"deskpilot/vision/xdisplay"
)

// The CLI tests run the real commands on a private Xvfb display (1280x800) against
// a scripted model over real HTTP.
func TestMain(m *testing.M) {
	script.ServeIfChild(dialect.ModuleSet) // the model's code runs in this binary, started again
	os.Exit(xdisplay.Main(m, xdisplay.Options{Width: 1280, Height: 800}))
}

// cli runs deskpilot with args and returns its output (stdout and stderr,
// with the closing error line Main prints) and the exit code.
func cli(t *testing.T, stdin string, args ...string) (string, int) {
	t.Helper()
	cmd := newRootCmd("test")
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetArgs(args)
	code := exitCode(cmd.ExecuteContext(t.Context()), &out)
	return out.String(), code
}

// isolate gives the test its own config and data folders and no model settings.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	for _, k := range []string{"OPENAI_BASE_URL", "OPENAI_API_KEY", "DESKPILOT_MODEL", "DESKPILOT_BASE_URL", "DESKPILOT_PRESET"} {
		t.Setenv(k, "")
	}
	return filepath.Join(dir, "traces")
}

func reply(code string) llmtest.Reply {
	return llmtest.Reply{Text: "Thought: go.\n```python\n" + code + "\n```"}
}

func TestRunAnswersWithJSON(t *testing.T) {
	traces := isolate(t)
	srv := llmtest.New(t, reply("w, h = screen_size()\nprint(w, h)"), reply("final_answer(\"the screen is 1280x800\")"))
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "--json", "-q", "how big is the screen?")
	if code != exitAnswered {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	var res runResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if res.Outcome != "answered" || res.Answer != "the screen is 1280x800" || res.Steps != 2 || res.Trace == "" {
		t.Errorf("result %+v", res)
	}
	if !strings.Contains(srv.Requests()[1].Last("user").Text(), "1280 800") {
		t.Errorf("printed output did not reach the model")
	}

	// The trace it left can be listed, shown and exported.
	list, code := cli(t, "", "traces", "list", "--trace-dir", traces)
	if code != 0 || !strings.Contains(list, "how big is the screen?") || !strings.Contains(list, "answered") {
		t.Errorf("traces list (exit %d):\n%s", code, list)
	}
	show, code := cli(t, "", "traces", "show", "1", "--trace-dir", traces)
	if code != 0 || !strings.Contains(show, "print(w, h)") || !strings.Contains(show, "the screen is 1280x800") {
		t.Errorf("traces show (exit %d):\n%s", code, show)
	}
	exp, code := cli(t, "", "traces", "export", res.Trace, "--format", "jsonl")
	if code != 0 || len(strings.Split(strings.TrimSpace(exp), "\n")) < 2 {
		t.Errorf("traces export (exit %d):\n%s", code, exp)
	}
	dry, code := cli(t, "", "replay", res.Trace, "--dry-run")
	if code != 0 || !strings.Contains(dry, "final_answer(\"the screen is 1280x800\")") {
		t.Errorf("replay --dry-run (exit %d):\n%s", code, dry)
	}
}

// At the step limit there is no answer: stdout stays empty (a script reading it
// gets nothing to take for one), exit 3 and stderr say why, and the model's
// closing summary goes to stderr marked as not an answer. Progress never counts
// past the limit.
func TestRunStepLimitExitsWith3(t *testing.T) {
	traces := isolate(t)
	srv := llmtest.New(t, reply("print(1)"), reply("print(2)"), llmtest.Reply{Text: "```python\nfinal_answer('x')\n```\nbest effort"})
	stdout, stderr, code := cliSplit(t, "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "--max-steps", "2", "loop")
	if code != exitStepLimit || stdout != "" {
		t.Errorf("exit %d, stdout %q; want 3 and nothing", code, stdout)
	}
	if !strings.Contains(stderr, "no answer: the step limit (2 steps) was reached") || !strings.Contains(stderr, "best effort") {
		t.Errorf("stderr does not say why, or lacks the summary:\n%s", stderr)
	}
	if strings.Contains(stderr, "step 3/2") {
		t.Errorf("progress counts past the limit:\n%s", stderr)
	}
	js, _, code := cliSplit(t, "run", "--base-url", llmtest.New(t, reply("print(1)"), llmtest.Reply{Text: "best effort"}).URL,
		"--model", "m", "--trace-dir", traces, "--max-steps", "1", "--json", "-q", "loop")
	var res runResult
	if err := json.Unmarshal([]byte(js), &res); err != nil || code != exitStepLimit || res.Answer != "" || res.Summary != "best effort" || res.Outcome != "max_steps" {
		t.Errorf("--json: exit %d, %+v (%v)", code, res, err)
	}
}

// cliSplit runs deskpilot with args and returns stdout and stderr apart.
func cliSplit(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := newRootCmd("test")
	var out, errw bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errw)
	cmd.SetIn(strings.NewReader(""))
	cmd.SetArgs(args)
	code := exitCode(cmd.ExecuteContext(t.Context()), &errw)
	return out.String(), errw.String(), code
}

func TestRunFailsWhenModelIsDown(t *testing.T) {
	traces := isolate(t)
	srv := llmtest.New(t, llmtest.Reply{Status: 401, Message: "bad key"})
	_, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "-q", "x")
	if code != exitFailed {
		t.Errorf("exit %d, want 1", code)
	}
}

func TestUsageErrors(t *testing.T) {
	isolate(t)
	cases := []struct {
		name string
		args []string
	}{
		{"no model", []string{"run", "task"}},
		{"bad coordinate mode", []string{"run", "--base-url", "http://127.0.0.1:1/v1", "--model", "m", "--coords", "polar", "task"}},
		{"unknown preset", []string{"run", "--preset", "nope", "task"}},
		{"no task", []string{"run"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if out, code := cli(t, "", c.args...); code != exitUsage {
				t.Errorf("exit %d, want 2; output:\n%s", code, out)
			}
		})
	}
}

func TestConfigFileAndEnvironment(t *testing.T) {
	isolate(t)
	cfgPath := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "deskpilot", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfgPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, []byte("model = \"from-file\"\nmax_steps = 7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DESKPILOT_MODEL", "from-env")
	s := &settings{}
	cmd := newRoot(s)
	if err := cmd.PersistentFlags().Parse([]string{"--config", cfgPath, "--max-steps", "9"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := s.load()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model != "from-env" || cfg.MaxSteps != 9 {
		t.Errorf("model %q max steps %d; want the environment over the file and the flag over both", cfg.Model, cfg.MaxSteps)
	}
	t.Setenv("DESKPILOT_MODEL", "")
	cmd.PersistentFlags().Lookup("max-steps").Changed = false
	if cfg, _ = s.load(); cfg.Model != "from-file" || cfg.MaxSteps != 7 {
		t.Errorf("model %q max steps %d; want the file's", cfg.Model, cfg.MaxSteps)
	}
	if err := os.WriteFile(cfgPath, []byte("modle = \"typo\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.load(); err == nil || !strings.Contains(err.Error(), "modle") {
		t.Errorf("a misspelt setting gives %v, want an error naming it", err)
	}
}

func TestConsoleRunsCode(t *testing.T) {
	traces := isolate(t)
	in := "print(screen_size())\nfor i in range(2):\n    print(\"row\", i)\n\nmove(10, 20)\nprint(cursor_position())\n"
	out, code := cli(t, in, "console", "--trace-dir", traces)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{"(1280, 800)", "row 0", "row 1", "(10, 20)"} {
		if !strings.Contains(out, want) {
			t.Errorf("console output lacks %q:\n%s", want, out)
		}
	}
}

func TestBenchJSON(t *testing.T) {
	isolate(t)
	out, code := cli(t, "", "bench", "--json", "-n", "3")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	var res map[string]stat
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, k := range []string{"capture_ms", "observe_ms", "observe_static_ms", "click_ms", "type100_ms", "settle_ms"} {
		if s, ok := res[k]; !ok || s.N != 3 || s.Min > s.Median || s.Median > s.Max || s.Min <= 0 {
			t.Errorf("%s = %+v", k, res[k])
		}
	}
}

func TestDoctor(t *testing.T) {
	isolate(t)
	srv := llmtest.New(t, llmtest.Reply{Text: "ok"})
	out, _ := cli(t, "", "doctor", "--base-url", srv.URL, "--model", "m")
	for _, want := range []string{"ok   display", "ok   capture", "ok   input", "ok   model", "ok   ocr", " a11y ", " keyring "} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	if reqs := srv.Requests(); len(reqs) != 1 || len(reqs[0].Images()) != 1 {
		t.Errorf("doctor did not send one request with an image")
	}
}
