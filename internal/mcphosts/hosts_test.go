package mcphosts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func target(t *testing.T, host, scope string) Target {
	t.Helper()
	h, err := HostNamed(host)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	return Target{Host: h, Scope: scope, Home: home, Dir: filepath.Join(home, "proj"), GOOS: "linux",
		Getenv: func(string) string { return "" }}
}

// Each host's file is where the host documents it, per platform.
func TestPaths(t *testing.T) {
	for _, c := range []struct{ host, scope, goos, want string }{
		{"claude-code", "", "linux", ".claude.json"},
		{"claude-code", "project", "linux", "proj/.mcp.json"},
		{"claude-desktop", "", "linux", ".config/Claude/claude_desktop_config.json"},
		{"claude-desktop", "", "darwin", "Library/Application Support/Claude/claude_desktop_config.json"},
		{"claude-desktop", "", "windows", "AppData/Roaming/Claude/claude_desktop_config.json"},
		{"cursor", "", "linux", ".cursor/mcp.json"},
		{"codex", "", "linux", ".codex/config.toml"},
		{"codex", "project", "linux", "proj/.codex/config.toml"},
		{"vscode", "", "linux", ".config/Code/User/mcp.json"},
		{"vscode", "", "darwin", "Library/Application Support/Code/User/mcp.json"},
		{"vscode", "project", "linux", "proj/.vscode/mcp.json"},
	} {
		tg := target(t, c.host, c.scope)
		tg.GOOS = c.goos
		got, err := tg.Path()
		if err != nil || got != filepath.Join(tg.Home, c.want) {
			t.Errorf("%s/%s on %s: %s %v, want ~/%s", c.host, c.scope, c.goos, got, err, c.want)
		}
	}
}

// An edit changes the entry alone: the other keys keep their order and
// values, numbers their spelling.
func TestJSONEditKeepsTheRest(t *testing.T) {
	tg := target(t, "cursor", "")
	path, _ := tg.Path()
	before := `{"zeta": 1.50, "alpha": {"b": [1, 2], "a": null}, "mcpServers": {"x": {"command": "y"}}, "emoji": "✓ <b>"}`
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Install(tg, Entry{Command: "/bin/deskpilot", Args: []string{"mcp"}})
	if err != nil || !c.Written {
		t.Fatalf("install: %v %+v", err, c)
	}
	after, _ := os.ReadFile(path)
	s := string(after)
	for _, want := range []string{`"zeta": 1.50`, `"emoji": "✓ <b>"`, `"deskpilot": {`} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s:\n%s", want, s)
		}
	}
	if strings.Index(s, "zeta") > strings.Index(s, "alpha") || strings.Index(s, `"x"`) > strings.Index(s, "deskpilot") {
		t.Errorf("the keys moved:\n%s", s)
	}
	if _, err := Uninstall(tg); err != nil {
		t.Fatal(err)
	}
	if ok, _ := Installed(tg); ok {
		t.Error("still installed")
	}
}

// Files deskpilot cannot edit safely are refused, untouched.
func TestRefusals(t *testing.T) {
	for _, c := range []struct{ host, content, says string }{
		{"cursor", `{"mcpServers": [1]}`, "not an object"},
		{"cursor", `[]`, "not a JSON object"},
		{"cursor", `{"a": 1} {"b": 2}`, "text after"},
		{"codex", "mcp_servers.deskpilot = { command = \"x\" }\n", "by hand"},
		{"codex", "[mcp_servers]\ndeskpilot = { command = \"x\" }\n", "by hand"},
		{"codex", "not toml ===", ""},
	} {
		tg := target(t, c.host, "")
		path, _ := tg.Path()
		_ = os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Install(tg, Entry{Command: "d", Args: []string{"mcp"}})
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s %q: %v, want an error saying %q", c.host, c.content, err, c.says)
		}
		if got, _ := os.ReadFile(path); string(got) != c.content {
			t.Errorf("%s: the file changed to %q", c.host, got)
		}
	}
}

// A Codex entry with an env table is replaced whole, comments elsewhere kept.
func TestCodexReplace(t *testing.T) {
	tg := target(t, "codex", "")
	path, _ := tg.Path()
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	before := "# top\n[mcp_servers.deskpilot]\ncommand = \"old\"\n\n[mcp_servers.deskpilot.env]\nA = \"1\"\n\n# next\n[profiles.x]\nmodel = \"m\"\n"
	_ = os.WriteFile(path, []byte(before), 0o600)
	c, err := Install(tg, Entry{Command: "/new", Args: []string{"mcp"}, Env: map[string]string{"DISPLAY": ":1"}})
	if err != nil || c.Action != "replaced" {
		t.Fatalf("%v %+v", err, c)
	}
	got, _ := os.ReadFile(path)
	s := string(got)
	if strings.Contains(s, "old") || strings.Contains(s, `A = "1"`) || !strings.Contains(s, "# next\n[profiles.x]") || !strings.Contains(s, `"DISPLAY" = ":1"`) {
		t.Errorf("replaced:\n%s", s)
	}
	if c, _ := Install(tg, Entry{Command: "/new", Args: []string{"mcp"}, Env: map[string]string{"DISPLAY": ":1"}}); c.Action != "unchanged" || c.Written {
		t.Errorf("second install: %+v", c)
	}
}
