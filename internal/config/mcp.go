package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// MCPSettings is the [mcp] table.
type MCPSettings struct {
	// Servers are the MCP servers whose tools the model may call, by name
	// ([mcp.servers.NAME]); each tool becomes the builtin NAME_tool.
	Servers map[string]MCPServer `toml:"servers" usage:"MCP servers whose tools the model calls as NAME_tool builtins ([mcp.servers.NAME] tables: command, args, env or url, headers; risk)"`
}

// MCPServer is one [mcp.servers.NAME] table: a server started as a program
// (Command, Args, Env; spoken to over its standard input and output) or
// reached over streamable HTTP (URL, Headers). Values of Env, URL and Headers
// may hold "${name}": the secret of that name (the keyring's, or a
// DESKPILOT_SECRET_<NAME> variable), never written to the file.
type MCPServer struct {
	Command string            `toml:"command,omitempty"`
	Args    []string          `toml:"args,omitempty"`
	Env     map[string]string `toml:"env,omitempty"`
	URL     string            `toml:"url,omitempty"`
	Headers map[string]string `toml:"headers,omitempty"`
	// Risk is what the confirmation policy does with the server's tools:
	// MCPRiskConfirm (the default: every call is approved by the person) or
	// MCPRiskAllow (calls need no approval).
	Risk string `toml:"risk,omitempty"`
}

// The risks of an MCP server's tools.
const (
	MCPRiskConfirm = "confirm"
	MCPRiskAllow   = "allow"
)

// validMCPName reports whether a server name makes valid builtin names
// (NAME_tool): a lower-case letter, then up to 31 letters, digits and "_".
func validMCPName(name string) bool {
	if name == "" || len(name) > 32 || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	return strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_") == ""
}

// Names are the configured servers' names, sorted.
func (m MCPSettings) Names() []string { return slices.Sorted(maps.Keys(m.Servers)) }

// Confirms reports whether calls of the server's tools need approval.
func (s MCPServer) Confirms() bool { return s.Risk != MCPRiskAllow }

// check validates the servers and fills each risk's default.
func (m *MCPSettings) check() error {
	if len(m.Servers) == 0 {
		return nil
	}
	servers := make(map[string]MCPServer, len(m.Servers))
	for _, name := range m.Names() {
		s := m.Servers[name]
		if !validMCPName(name) {
			return fmt.Errorf("mcp.servers.%s: a server's name is lower-case letters, digits and _ (it starts the builtins' names, %s_tool)", name, name)
		}
		switch {
		case s.Command == "" && s.URL == "":
			return fmt.Errorf("mcp.servers.%s: set command (a program) or url (streamable HTTP)", name)
		case s.Command != "" && s.URL != "":
			return fmt.Errorf("mcp.servers.%s: set command or url, not both", name)
		case s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") && !strings.HasPrefix(s.URL, "${"):
			return fmt.Errorf("mcp.servers.%s: url %q is not an http(s) address", name, s.URL)
		}
		switch s.Risk {
		case "":
			s.Risk = MCPRiskConfirm
		case MCPRiskConfirm, MCPRiskAllow:
		default:
			return fmt.Errorf("mcp.servers.%s: risk %q is not %s or %s", name, s.Risk, MCPRiskConfirm, MCPRiskAllow)
		}
		s.Args = slices.Clone(s.Args)
		s.Env, s.Headers = maps.Clone(s.Env), maps.Clone(s.Headers)
		servers[name] = s
	}
	m.Servers = servers
	return nil
}
