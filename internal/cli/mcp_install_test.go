package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// mcp install for each host against a temporary home: the entry lands in
// the file the host reads, next to what was there; a second install changes
// nothing; uninstall removes exactly that entry; --print writes nothing.
func TestMCPInstallEachHost(t *testing.T) {
	isolate(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CODEX_HOME", "")
	t.Setenv("APPDATA", "")
	project := t.TempDir()
	cfg := os.Getenv("XDG_CONFIG_HOME")
	cases := []struct {
		host, scope, path, before string
		servers                   func(doc map[string]any) map[string]any
	}{
		{"claude-code", "user", filepath.Join(home, ".claude.json"),
			`{"numStartups": 7, "mcpServers": {"other": {"type": "stdio", "command": "other-mcp", "args": []}}}`,
			func(d map[string]any) map[string]any { return obj(d["mcpServers"]) }},
		{"claude-code", "local", filepath.Join(home, ".claude.json"), "",
			func(d map[string]any) map[string]any { return obj(obj(obj(d["projects"])[project])["mcpServers"]) }},
		{"claude-code", "project", filepath.Join(project, ".mcp.json"), `{"mcpServers": {"other": {"command": "x"}}}`,
			func(d map[string]any) map[string]any { return obj(d["mcpServers"]) }},
		{"claude-desktop", "", filepath.Join(cfg, "Claude", "claude_desktop_config.json"), `{"mcpServers": {"other": {"command": "x"}}, "globalShortcut": ""}`,
			func(d map[string]any) map[string]any { return obj(d["mcpServers"]) }},
		{"cursor", "", filepath.Join(home, ".cursor", "mcp.json"), `{"mcpServers": {"other": {"command": "x"}}}`,
			func(d map[string]any) map[string]any { return obj(d["mcpServers"]) }},
		{"vscode", "", filepath.Join(cfg, "Code", "User", "mcp.json"), `{"servers": {"other": {"type": "stdio", "command": "x"}}, "inputs": []}`,
			func(d map[string]any) map[string]any { return obj(d["servers"]) }},
		{"vscode", "project", filepath.Join(project, ".vscode", "mcp.json"), "",
			func(d map[string]any) map[string]any { return obj(d["servers"]) }},
		{"codex", "", filepath.Join(home, ".codex", "config.toml"), "# my settings\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"x\"\n",
			func(d map[string]any) map[string]any { return obj(d["mcp_servers"]) }},
	}
	for _, c := range cases {
		t.Run(c.host+"/"+c.scope, func(t *testing.T) {
			if c.before != "" {
				if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(c.path, []byte(c.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			args := []string{"mcp", "install", "--host", c.host, "--dir", project}
			if c.scope != "" {
				args = append(args, "--scope", c.scope)
			}
			before := read(t, c.path)
			out, code := cli(t, "", append(args, "--print")...)
			if code != 0 || read(t, c.path) != before || !strings.Contains(out, "would change") {
				t.Fatalf("--print (exit %d) wrote the file or said nothing:\n%s", code, out)
			}
			out, code = cli(t, "", args...)
			if code != 0 || !strings.Contains(out, "added the deskpilot entry") {
				t.Fatalf("install (exit %d):\n%s", code, out)
			}
			doc := parse(t, c.path)
			entry := obj(c.servers(doc)["deskpilot"])
			if cmd, _ := entry["command"].(string); !filepath.IsAbs(cmd) || !strings.Contains(strings.Join(strs(entry["args"]), " "), "mcp") {
				t.Errorf("entry %v", entry)
			}
			if c.before != "" {
				if _, ok := c.servers(doc)["other"]; !ok {
					t.Errorf("install lost the other server:\n%s", read(t, c.path))
				}
				if data, err := os.ReadFile(c.path + ".deskpilot.bak"); err != nil || string(data) != c.before {
					t.Errorf("no backup of the file as it was: %v", err)
				}
			}
			installed := read(t, c.path)
			out, code = cli(t, "", args...)
			if code != 0 || !strings.Contains(out, "unchanged") || read(t, c.path) != installed {
				t.Errorf("second install (exit %d) changed something:\n%s", code, out)
			}
			args[1] = "uninstall"
			out, code = cli(t, "", args...)
			if code != 0 || !strings.Contains(out, "removed") {
				t.Fatalf("uninstall (exit %d):\n%s", code, out)
			}
			doc = parse(t, c.path)
			if _, ok := c.servers(doc)["deskpilot"]; ok {
				t.Errorf("uninstall left the entry:\n%s", read(t, c.path))
			}
			if c.before != "" {
				if _, ok := c.servers(doc)["other"]; !ok {
					t.Errorf("uninstall removed the other server too:\n%s", read(t, c.path))
				}
				if strings.HasPrefix(c.before, "#") && !strings.Contains(read(t, c.path), "# my settings") {
					t.Errorf("the TOML comment is gone:\n%s", read(t, c.path))
				}
			}
			if out, _ := cli(t, "", args...); !strings.Contains(out, "nothing to remove") {
				t.Errorf("second uninstall: %s", out)
			}
		})
	}
	if out, code := cli(t, "", "mcp", "install", "--host", "emacs"); code != exitUsage || !strings.Contains(out, "claude-code") {
		t.Errorf("unknown host: exit %d %s", code, out)
	}
	if out, code := cli(t, "", "mcp", "install", "--host", "claude-desktop", "--scope", "project"); code != exitUsage {
		t.Errorf("a scope the host lacks: exit %d %s", code, out)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(data)
}

// parse reads a host's file, JSON or TOML.
func parse(t *testing.T, path string) map[string]any {
	t.Helper()
	doc := map[string]any{}
	data := read(t, path)
	var err error
	if strings.HasSuffix(path, ".toml") {
		_, err = toml.Decode(data, &doc)
	} else if strings.TrimSpace(data) != "" {
		err = json.Unmarshal([]byte(data), &doc)
	}
	if err != nil {
		t.Fatalf("%s does not parse: %v\n%s", path, err, data)
	}
	return doc
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func strs(v any) []string {
	var out []string
	switch x := v.(type) {
	case []any:
		for _, s := range x {
			out = append(out, s.(string))
		}
	case []string:
		out = x
	}
	return out
}
