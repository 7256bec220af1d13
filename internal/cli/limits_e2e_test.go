package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/script"
	"deskpilot/internal/config"
)

// The oversized arguments, through a run in the real sandbox: each
// is refused at once with its limit named (not after the block's time, not
// as a false "time limit"), the run goes on, and the code's variables live.
func TestOversizedArgumentsInARun(t *testing.T) {
	traces := isolate(t)
	srv := llmtest.New(t,
		reply(`kept = 5`+"\n"+`type_text("a" * (4 << 20))`),
		reply(`final_answer("A" * (70 << 20))`),
		reply(`type_text("b" * 90000)`),
		reply(`final_answer(str(kept))`))
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "--json", "-q", "type a lot")
	if code != exitAnswered || !strings.Contains(out, `"answer": "5"`) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	reqs := srv.Requests()
	for i, want := range []string{
		"type_text: text is 4,194,304 characters long; the limit is 100,000 characters",
		"final_answer: answer is 73,400,320 characters long; the limit is 100,000 characters",
		"type_text: the text is 90,000 characters long, and at 1,000 characters a second this block's",
	} {
		got := reqs[i+1].Last("user").Text()
		if !strings.Contains(got, want) || strings.Contains(got, "time limit") {
			t.Errorf("block %d: the model was told:\n%s", i+1, got)
		}
	}
}

// The smallest code_memory_mb accepted is the sandbox's smallest cap, and
// real code runs under it in the code's process (this binary, as big as
// deskpilot); less is refused with the range.
func TestSmallestCodeMemoryRunsRealCode(t *testing.T) {
	if config.MinCodeMemoryMB != script.MinMemory>>20 {
		t.Fatalf("config takes code_memory_mb from %d, the sandbox from %d MiB", config.MinCodeMemoryMB, script.MinMemory>>20)
	}
	traces := isolate(t)
	cfgPath := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "deskpilot", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfgPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, []byte("code_memory_mb = 63\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t)
	if out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "x"); code != exitUsage ||
		!strings.Contains(out, "code_memory_mb is 63; it must be 64 to") {
		t.Errorf("code_memory_mb = 63: exit %d\n%s", code, out)
	}
	if err := os.WriteFile(cfgPath, []byte("code_memory_mb = 64\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv = llmtest.New(t,
		reply(`rows = [{"id": i, "name": "row %d" % i, "tags": [str(i)] * 3} for i in range(1000)]
back = json.decode(json.encode(rows))
w, h = screen_size()
print(len(back), back[999]["name"], w)`),
		reply(`final_answer(str(len(rows)))`))
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "--json", "-q", "count rows")
	if code != exitAnswered || !strings.Contains(out, `"answer": "1000"`) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if got := srv.Requests()[1].Last("user").Text(); !strings.Contains(got, "1000 row 999 1280") {
		t.Errorf("the block's output: %s", got)
	}
}

// `traces script` writes recorded code with escape sequences in its strings
// as escapes: `cat` of the script cannot hide a launch line, and the script
// still holds the same text.
func TestTracesScriptEscapesControls(t *testing.T) {
	traces := isolate(t)
	hide := "\x1b[1A\x1b[2K"
	srv := llmtest.New(t,
		reply(`msg = "ok`+hide+`"`+"\n"+`x = len(msg)  # `+hide),
		reply(`final_answer("done")`))
	if out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "-q", "type"); code != exitAnswered {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	star := filepath.Join(t.TempDir(), "run.star")
	if out, code := cli(t, "", "traces", "script", onlyTrace(t, traces).Dir, "-o", star); code != 0 {
		t.Fatalf("traces script: exit %d\n%s", code, out)
	}
	src, err := os.ReadFile(star)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(string(src), 0x1b) {
		t.Errorf("the script holds raw escape sequences:\n%q", src)
	}
	if !strings.Contains(string(src), `msg = "ok\x1b[1A\x1b[2K"`+"\n"+`x = len(msg)  # \x1b[1A\x1b[2K`) {
		t.Errorf("script:\n%s", src)
	}
}
