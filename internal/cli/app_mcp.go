package cli

import (
	"context"
	"strings"

	"deskpilot/app"
	"deskpilot/internal/mcphosts"
	"deskpilot/internal/runctl"
)

// appHosts is Settings' "Use deskpilot from another agent": the code of
// `deskpilot mcp install`, in each host's default scope.
type appHosts struct{ s *settings }

func (h appHosts) List() []app.HostState {
	var out []app.HostState
	for _, host := range mcphosts.Hosts() {
		st := app.HostState{Name: host.Name, Title: host.Title}
		t, err := hostTarget(host.Name, "", "")
		if err == nil {
			st.Path, _ = t.Path()
			st.Installed, err = mcphosts.Installed(t)
		}
		if err != nil {
			st.Err = err.Error()
		}
		out = append(out, st)
	}
	return out
}

func (h appHosts) Install(name string) (string, error) {
	return h.change(name, func(t mcphosts.Target) (mcphosts.Change, error) { return mcphosts.Install(t, serverEntry(h.s)) })
}

func (h appHosts) Remove(name string) (string, error) { return h.change(name, mcphosts.Uninstall) }

func (h appHosts) change(name string, do func(mcphosts.Target) (mcphosts.Change, error)) (string, error) {
	t, err := hostTarget(name, "", "")
	if err != nil {
		return "", err
	}
	c, err := do(t)
	if err != nil {
		return "", err
	}
	msg, _, _ := strings.Cut(c.String(), ":\n")
	msg = t.Host.Title + " — " + msg
	if c.Backup != "" {
		msg += " (backup: " + c.Backup + ")"
	}
	return msg + ". Restart " + t.Host.Title + " to pick it up.", nil
}

// appSessions are the MCP sessions of other processes, over runctl.
type appSessions struct{}

func (appSessions) List(ctx context.Context) ([]app.RemoteSession, error) {
	dir, err := runctl.Dir(nil)
	if err != nil {
		return nil, err
	}
	all, err := runctl.List(ctx, dir)
	if err != nil {
		return nil, err
	}
	var out []app.RemoteSession
	for _, st := range all {
		if st.Kind == runctl.KindMCP {
			out = append(out, app.RemoteSession{ID: st.ID, Host: st.Host, Tool: st.Tool, Paused: st.Paused})
		}
	}
	return out, nil
}

func (appSessions) Send(ctx context.Context, id, cmd string) error {
	dir, err := runctl.Dir(nil)
	if err != nil {
		return err
	}
	_, err = runctl.Send(ctx, dir, id, cmd)
	return err
}
