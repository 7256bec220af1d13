// Package mcphosts owns deskpilot's entry in the configuration files of MCP
// hosts (Claude Code, Claude Desktop, Cursor, Codex, VS Code): where each
// host keeps its servers, in which format, and how to add or remove exactly
// deskpilot's entry there — merged into the file, every other key kept in
// its place, a backup of the file before it changes, nothing written when
// nothing changes. `deskpilot mcp install` and the app's Settings both use it.
package mcphosts

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// ServerName is deskpilot's key among a host's servers.
const ServerName = "deskpilot"

// The scopes an entry can be installed in.
const (
	ScopeUser    = "user"    // every project of the user
	ScopeProject = "project" // the project folder (Target.Dir), shared with its repository
	ScopeLocal   = "local"   // Claude Code: the project, for this user only
)

// Host is one MCP host deskpilot can be installed in.
type Host struct {
	Name   string   // "claude-code", as --host takes it
	Title  string   // "Claude Code"
	Scopes []string // the first is the default
	format format
}

// format is how a host's file holds its servers.
type format int

const (
	formatMCPServers format = iota // JSON, "mcpServers": {name: {command, args}}
	formatClaudeCode               // JSON like mcpServers, with "type": "stdio"; local scope under projects[dir]
	formatVSCode                   // JSON, "servers": {name: {type, command, args}}
	formatCodex                    // TOML, [mcp_servers.name] command, args
)

// Hosts lists the hosts, in the order the app shows them.
func Hosts() []Host {
	return []Host{
		{Name: "claude-code", Title: "Claude Code", Scopes: []string{ScopeUser, ScopeLocal, ScopeProject}, format: formatClaudeCode},
		{Name: "claude-desktop", Title: "Claude Desktop", Scopes: []string{ScopeUser}, format: formatMCPServers},
		{Name: "cursor", Title: "Cursor", Scopes: []string{ScopeUser, ScopeProject}, format: formatMCPServers},
		{Name: "codex", Title: "Codex", Scopes: []string{ScopeUser, ScopeProject}, format: formatCodex},
		{Name: "vscode", Title: "VS Code", Scopes: []string{ScopeUser, ScopeProject}, format: formatVSCode},
	}
}

// HostNames are the hosts' names, for help and errors.
func HostNames() []string {
	var out []string
	for _, h := range Hosts() {
		out = append(out, h.Name)
	}
	return out
}

// HostNamed finds a host by name.
func HostNamed(name string) (Host, error) {
	for _, h := range Hosts() {
		if h.Name == name {
			return h, nil
		}
	}
	return Host{}, fmt.Errorf("unknown host %q (hosts: %s)", name, strings.Join(HostNames(), ", "))
}

// Target is where an entry goes.
type Target struct {
	Host  Host
	Scope string // "" = the host's default
	// Home is the user's home folder; Dir the project folder (project and
	// local scopes); GOOS the platform ("" = this one); Getenv reads the
	// environment (nil = os.Getenv): XDG_CONFIG_HOME, APPDATA, CODEX_HOME.
	Home, Dir string
	GOOS      string
	Getenv    func(string) string
}

func (t Target) getenv(k string) string {
	if t.Getenv == nil {
		return os.Getenv(k)
	}
	return t.Getenv(k)
}

func (t Target) scope() (string, error) {
	if t.Scope == "" {
		return t.Host.Scopes[0], nil
	}
	if !slices.Contains(t.Host.Scopes, t.Scope) {
		return "", fmt.Errorf("%s has no scope %q (scopes: %s)", t.Host.Title, t.Scope, strings.Join(t.Host.Scopes, ", "))
	}
	return t.Scope, nil
}

// Path is the file the host keeps the target's servers in, at the place the
// host documents.
func (t Target) Path() (string, error) {
	scope, err := t.scope()
	if err != nil {
		return "", err
	}
	if t.Home == "" {
		return "", errors.New("no home folder")
	}
	if scope != ScopeUser && t.Dir == "" {
		return "", fmt.Errorf("the %s scope needs a project folder", scope)
	}
	goos := t.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	appData := t.getenv("APPDATA")
	if appData == "" {
		appData = filepath.Join(t.Home, "AppData", "Roaming")
	}
	xdg := t.getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		xdg = filepath.Join(t.Home, ".config")
	}
	// userConfig is where desktop apps keep their settings on each platform.
	userConfig := map[string]string{"darwin": filepath.Join(t.Home, "Library", "Application Support"), "windows": appData}[goos]
	if userConfig == "" {
		userConfig = xdg
	}
	switch t.Host.Name {
	case "claude-code":
		if scope == ScopeProject {
			return filepath.Join(t.Dir, ".mcp.json"), nil
		}
		return filepath.Join(t.Home, ".claude.json"), nil
	case "claude-desktop":
		return filepath.Join(userConfig, "Claude", "claude_desktop_config.json"), nil
	case "cursor":
		if scope == ScopeProject {
			return filepath.Join(t.Dir, ".cursor", "mcp.json"), nil
		}
		return filepath.Join(t.Home, ".cursor", "mcp.json"), nil
	case "codex":
		if scope == ScopeProject {
			return filepath.Join(t.Dir, ".codex", "config.toml"), nil
		}
		if h := t.getenv("CODEX_HOME"); h != "" {
			return filepath.Join(h, "config.toml"), nil
		}
		return filepath.Join(t.Home, ".codex", "config.toml"), nil
	case "vscode":
		if scope == ScopeProject {
			return filepath.Join(t.Dir, ".vscode", "mcp.json"), nil
		}
		return filepath.Join(userConfig, "Code", "User", "mcp.json"), nil
	}
	return "", fmt.Errorf("unknown host %q", t.Host.Name)
}

// Entry is how the host starts deskpilot.
type Entry struct {
	Command string
	Args    []string
	Env     map[string]string
}

// Change is what an install or uninstall does (or, planned, would do) to a
// host's file.
type Change struct {
	Path    string
	Backup  string // the copy of the file before the change; "" when none was made
	Action  string // "added", "replaced", "removed", "unchanged", "absent"
	Entry   string // the entry as written in the file ("" when removed)
	Before  []byte
	After   []byte
	Written bool
}

// Changed reports whether the file's content changes.
func (c Change) Changed() bool { return !bytes.Equal(c.Before, c.After) }

// String says what changed, for the terminal.
func (c Change) String() string {
	switch c.Action {
	case "unchanged":
		return fmt.Sprintf("%s: deskpilot is already there, unchanged", c.Path)
	case "absent":
		return fmt.Sprintf("%s: no deskpilot entry, nothing to remove", c.Path)
	case "removed":
		return fmt.Sprintf("%s: removed the deskpilot entry", c.Path)
	}
	return fmt.Sprintf("%s: %s the deskpilot entry:\n%s", c.Path, c.Action, strings.TrimRight(c.Entry, "\n"))
}

// maxFile bounds a host's file read (~/.claude.json grows with history).
const maxFile = 64 << 20

func readFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > maxFile {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, maxFile>>20)
	}
	return os.ReadFile(path)
}

// Plan computes what Install would do, writing nothing.
func Plan(t Target, e Entry) (Change, error) { return edit(t, &e) }

// PlanRemove computes what Uninstall would do, writing nothing.
func PlanRemove(t Target) (Change, error) { return edit(t, nil) }

// Install merges deskpilot's entry into the host's file. A file that already
// has it as asked is left alone; otherwise the file is first copied to
// PATH.deskpilot.bak, then replaced whole (a temporary file renamed over it).
func Install(t Target, e Entry) (Change, error) {
	c, err := Plan(t, e)
	if err != nil {
		return c, err
	}
	return c, apply(&c)
}

// Uninstall removes exactly deskpilot's entry from the host's file, with the
// same backup.
func Uninstall(t Target) (Change, error) {
	c, err := PlanRemove(t)
	if err != nil {
		return c, err
	}
	return c, apply(&c)
}

// Installed reports whether the host's file has deskpilot's entry.
func Installed(t Target) (bool, error) {
	c, err := PlanRemove(t)
	if err != nil {
		return false, err
	}
	return c.Action == "removed", nil
}

// edit computes the change: e nil removes the entry.
func edit(t Target, e *Entry) (Change, error) {
	path, err := t.Path()
	if err != nil {
		return Change{}, err
	}
	before, err := readFile(path)
	if err != nil {
		return Change{}, fmt.Errorf("%s config: %w", t.Host.Title, err)
	}
	c := Change{Path: path, Before: before}
	scope, _ := t.scope()
	if t.Host.format == formatCodex {
		err = editTOML(&c, e)
	} else {
		err = editJSON(&c, t, scope, e)
	}
	if err != nil {
		return c, fmt.Errorf("%s config %s: %w", t.Host.Title, path, err)
	}
	return c, nil
}

// apply writes a planned change.
func apply(c *Change) error {
	if !c.Changed() {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if c.Before != nil {
		if fi, err := os.Stat(c.Path); err == nil {
			mode = fi.Mode().Perm()
		}
		c.Backup = c.Path + ".deskpilot.bak"
		if err := os.WriteFile(c.Backup, c.Before, 0o600); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
	}
	tmp := c.Path + ".deskpilot.tmp"
	if err := os.WriteFile(tmp, c.After, mode); err != nil {
		return err
	}
	if err := os.Rename(tmp, c.Path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	c.Written = true
	return nil
}
