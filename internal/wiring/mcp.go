package wiring

import (
	"context"

	"deskpilot/agent"
	"deskpilot/internal/config"
	"deskpilot/internal/mcptools"
)

// connectMCP reaches the MCP servers cfg names and adds their tools to a's
// builtins (NAME_tool); a server that cannot be reached is logged and left
// out. The calls of servers whose risk is confirm are approved through a's
// run (Agent.Approve); "${name}" in their settings is a's secret of that name.
func connectMCP(ctx context.Context, cfg config.Config, a *agent.Agent, o Options) *mcptools.Set {
	if len(cfg.MCP.Servers) == 0 {
		return nil
	}
	set := mcptools.Connect(ctx, mcptools.Options{
		Servers: cfg.MCP.Servers,
		Secrets: a.Secret,
		Approve: a.Approve,
		Env:     o.Env,
		Log:     o.Log,
		Version: o.Version,
	})
	a.Tools = append(a.Tools, set.Tools...)
	return set
}
