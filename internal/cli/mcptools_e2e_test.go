package cli

import (
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/agent/llm/llmtest"
)

// The reference server-everything, configured as [mcp.servers.everything]:
// the fake model calls its tools from Starlark as everything_get_sum,
// everything_echo and everything_get_tiny_image, and what they returned (the
// image too) reaches the model's next request.
// A server that
// cannot start is one line, and the run goes on. A confirm-risk server's
// call is refused without approval.
func TestMCPServersAsTools(t *testing.T) {
	traces := isolate(t)
	dir := nodeDir(t)
	everything := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	cfg := filepath.Join(t.TempDir(), "config.toml")
	write := func(risk string) {
		toml := fmt.Sprintf(`[mcp.servers.everything]
command = "node"
args = [%q, "stdio"]
risk = %q

[mcp.servers.broken]
command = "/nonexistent/mcp-server"
`, everything, risk)
		if err := os.WriteFile(cfg, []byte(toml), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	write("allow")
	srv := llmtest.New(t,
		reply(`print(everything_get_sum(a=2, b=40))
print(everything_echo(message="héllo from starlark"))
everything_get_tiny_image()`),
		reply(`final_answer("done")`))
	bin, err := binary()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	cmd := exec.CommandContext(t.Context(), bin, "--config", cfg, "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "-q", "use the tools")
	outb, err := cmd.CombinedOutput()
	out := string(outb)
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if strings.Count(out, "MCP server broken") != 1 || !strings.Contains(out, "the run goes on without its tools") {
		t.Errorf("the broken server is not one line:\n%s", out)
	}
	stubs := srv.Requests()[0].Messages[0].Parts[0].Text
	for _, s := range []string{"def everything_get_sum(", "def everything_echo(message"} {
		if !strings.Contains(stubs, s) {
			t.Errorf("the prompt lacks %q", s)
		}
	}
	next := srv.Requests()[1].Last("user")
	obs := next.Text()
	if !strings.Contains(obs, "The sum of 2 and 40 is 42.") || !strings.Contains(obs, "Echo: héllo from starlark") {
		t.Errorf("the tools' results did not reach the next request:\n%s", obs)
	}
	// server-everything's tiny PNG has an iCCP chunk that fails its
	// checksum: the chunk is dropped and the 20x20 image reaches the model.
	if !strings.Contains(obs, "everything_get_tiny_image()") || strings.Contains(obs, "could not read") {
		t.Errorf("the image tool's call is not in the observation, or its image was not read:\n%s", obs)
	}
	tiny := 0
	for _, img := range next.Images() {
		if img.Size == image.Pt(20, 20) && img.DecodeErr == "" {
			tiny++
		}
	}
	if tiny != 1 {
		t.Errorf("the next request holds %d images of 20x20, want server-everything's one: %+v", tiny, next.Images())
	}

	write("confirm")
	srv = llmtest.New(t, reply(`print(everything_echo(message="x"))`), reply(`final_answer("refused?")`))
	out, code := cli(t, "", "--config", cfg, "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "-q", "echo")
	if code != exitAnswered {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if obs := srv.Requests()[1].Last("user").Text(); !strings.Contains(obs, "refused") || strings.Contains(obs, "Echo: x") {
		t.Errorf("a confirm server's call ran without approval:\n%s", obs)
	}
}
