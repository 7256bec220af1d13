package cli

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/a11y"
	"deskpilot/a11y/atspi"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/vision/ocr"
	"deskpilot/vision/xdisplay"
)

// The secret canary: a whole session that types a secret into a GTK field
// with OCR, the a11y layer and marks on, reads it back from the tree, the
// screen, a file and a web page, copies it reversed and in pieces, answers
// with it, then lists, shows, exports (jsonl with inline images, the html
// report, a --redact dataset), writes the script, dry-runs the replay and
// runs the console. Every byte of every output and file, and what OCR reads
// on every image, holds no run of 6 characters of the canary.
//
// An MCP host (the official TypeScript SDK client) then drives `deskpilot
// mcp` on the same desktop: types the secret into a new dialog, reads it back,
// takes a screenshot and runs code; its replies and images are checked too.
func TestSecretCanaryWholeSession(t *testing.T) {
	if _, err := binary(); err != nil { // the MCP host starts it; built before HOME moves
		t.Fatal(err)
	}
	traces := isolate(t)
	d, tree := accessibleDisplay(t)
	reader := newReader(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("DESKPILOT_SECRET_GITHUB", canary)
	t.Setenv("DESKPILOT_BROWSER_ALLOW_PRIVATE", "1")
	if err := os.WriteFile(filepath.Join(home, "notes.txt"), []byte("token: "+canary+"\nreversed: "+reverseString(canary)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<html><head><title>Echo %s</title></head><body><p>Your token is %s.</p></body></html>", canary, canary[2:])
	}))
	defer page.Close()
	app := startApp(t, d, "zenity", "--entry", "--title", "Sign in", "--text", "Your token")
	waitElement(t, tree, app, a11y.Query{Role: "textbox"})
	srv := llmtest.New(t,
		reply(`click_element("your token", role="textbox")`+"\n"+`type_secret("github")`),
		reply(`t = find_elements(role="textbox")[0].text
parts = [t[i:i+4] for i in range(0, len(t), 4)]
print(t[::-1], "-".join(parts), [m.text for m in find_text("token")])
print(inspect_file("~/notes.txt"))
print(visit_page("`+page.URL+`/echo"))`),
		reply(`zoom(400, 300, 900, 500)`+"\n"+`press("enter")`),
		reply(`final_answer(t + " " + t[::-1])`))
	var outputs strings.Builder
	run := func(stdin string, args ...string) string {
		out, code := cli(t, stdin, args...)
		if code != 0 {
			t.Errorf("deskpilot %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		outputs.WriteString(out)
		return out
	}
	run("", "run", "--base-url", srv.URL, "--model", "m", "--x-display", d.Name, "--trace-dir", traces,
		"--observe", "a11y,ocr", "--marks", "--yes", "type the github token")
	if _, printed := exitedApp(t, app); printed != canary {
		t.Errorf("zenity got %q: the secret was not typed", printed)
	}
	dir := onlyTrace(t, traces).Dir
	out := t.TempDir()
	run("", "traces", "list", "--trace-dir", traces)
	run("", "traces", "show", dir)
	run("", "traces", "export", dir, "--format", "jsonl", "--inline-images")
	run("", "traces", "export", dir, "--format", "html", "-o", filepath.Join(out, "report.html"))
	run("", "traces", "export", dir, "--format", "dataset", "--redact", "-o", filepath.Join(out, "dataset"))
	for _, f := range []string{"agentnet", "openai-chat", "hf-parquet"} {
		run("", "traces", "dataset", dir, "--format", f, "--redact", "--out", filepath.Join(out, "ds-"+f))
	}
	run("", "traces", "script", dir, "-o", filepath.Join(out, "run.star"))
	run("", "replay", dir, "--dry-run")
	run(`print(inspect_file("~/notes.txt"))`+"\n", "console", "--trace-dir", traces, "--x-display", d.Name)

	if got := srv.Requests()[2].Last("user").Text(); !strings.Contains(got, "token: [secret:github]\nreversed: [secret:github]") ||
		!strings.Contains(got, "Your token is [secret:github].") {
		t.Errorf("the file and the page did not reach the code, redacted:\n%s", got)
	}
	outputs.WriteString(mcpSession(t, d, tree, traces, reader))

	noLeak(t, "the commands' output", outputs.String())
	checkRequests(t, reader, srv)
	images := checkFiles(t, reader, traces) + checkFiles(t, reader, out) +
		checkParquet(t, reader, filepath.Join(out, "ds-hf-parquet", "data", "train-00000.parquet"))
	if images < 10 {
		t.Errorf("only %d images were read; the session should leave more", images)
	}
	if !strings.Contains(outputs.String(), "[secret:github]") {
		t.Errorf("the answer does not name the secret:\n%s", outputs.String())
	}
}

func reverseString(s string) string {
	rs := []rune(s)
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return string(rs)
}

// checkParquet reads a parquet dataset back with DuckDB (its columns are
// compressed, so its bytes say nothing), checks every value it holds and the
// OCR of every image in it, and returns the number of images.
func checkParquet(t *testing.T, r *ocr.Reader, file string) int {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is needed to read the parquet dataset back (make node-deps): %v", err)
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "test", "node"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "node", filepath.Join(dir, "read_parquet.mjs"), file)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	data, err := cmd.Output()
	if err != nil {
		t.Fatalf("DuckDB: %v\n%s", err, stderr.String())
	}
	noLeak(t, "the rows of "+file, string(data))
	var res struct {
		Rows []struct {
			Images []struct{ Bytes string } `json:"images"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatalf("DuckDB's output: %v", err)
	}
	n := 0
	for _, row := range res.Rows {
		for _, img := range row.Images {
			png, err := base64.StdEncoding.DecodeString(img.Bytes)
			if err != nil {
				t.Fatalf("an image of %s: %v", file, err)
			}
			noLeak(t, "the OCR of an image in "+file, ocrText(t, r, png))
			n++
		}
	}
	if n == 0 {
		t.Errorf("%s holds no images", file)
	}
	return n
}

// mcpSession drives `deskpilot mcp` from the TypeScript SDK client through a
// session that types the canary into a zenity entry and reads it back; it
// checks the images the host got and returns the texts of its replies.
func mcpSession(t *testing.T, d *xdisplay.Display, tree *atspi.Client, traces string, reader *ocr.Reader) string {
	t.Helper()
	app := startApp(t, d, "zenity", "--entry", "--title", "Sign in again", "--text", "Your token")
	waitElement(t, tree, app, a11y.Query{Role: "textbox"})
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	env["DESKPILOT_X_DISPLAY"], env["DESKPILOT_TRACE_DIR"], env["DESKPILOT_OBSERVE"] = d.Name, traces, "a11y,ocr"
	plan := stdioPlan(t, env, nil,
		step("call", "name", "click_element", "args", map[string]any{"name": "your token", "role": "textbox"}),
		step("call", "name", "type_secret", "args", map[string]any{"name": "github"}),
		step("call", "name", "find_elements", "args", map[string]any{"role": "textbox"}),
		step("call", "name", "find_text", "args", map[string]any{"text": canary[:8]}),
		step("call", "name", "screenshot"),
		step("call", "name", "run_code", "args", map[string]any{"code": `t = find_elements(role="textbox")[0].text` + "\n" + `print(t[::-1], t[2:9])`}),
		step("call", "name", "press", "args", map[string]any{"keys": "enter"}),
		step("resources"))
	plan["imageData"] = true
	var texts strings.Builder
	images := 0
	for i, s := range host(t, plan) {
		texts.WriteString(text(s) + "\n")
		if tr, ok := s["trace"].(string); ok {
			texts.WriteString(tr)
		}
		imgs, _ := s["images"].([]any)
		for _, im := range imgs {
			b64, _ := im.(map[string]any)["data"].(string)
			data, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				t.Fatal(err)
			}
			images++
			noLeak(t, "the OCR of an image of MCP reply "+itoa(i), ocrText(t, reader, data))
		}
	}
	if _, printed := exitedApp(t, app); printed != canary {
		t.Errorf("zenity got %q over MCP: the secret was not typed", printed)
	}
	if images == 0 || !strings.Contains(texts.String(), "[secret:github]") {
		t.Errorf("the MCP session sent %d images and these replies:\n%s", images, texts.String())
	}
	return texts.String()
}
