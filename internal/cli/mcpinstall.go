package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"deskpilot/internal/config"
	"deskpilot/internal/mcphosts"
)

func newMCPInstallCmd(s *settings, install bool) *cobra.Command {
	var host, scope, dir string
	var print bool
	use, short := "install", "Add deskpilot to an agent host's MCP servers"
	if !install {
		use, short = "uninstall", "Remove deskpilot from an agent host's MCP servers"
	}
	cmd := &cobra.Command{
		Use:   use + " --host HOST",
		Short: short,
		Long: short + ` (` + strings.Join(mcphosts.HostNames(), ", ") + `): the entry is merged
into the host's own config file, at the path the host documents, every other setting kept;
the file is copied to FILE.deskpilot.bak before it changes, and nothing is written when
nothing changes. --scope: user (default), project (the folder --dir, default the current
one) or, for Claude Code, local. --print only shows what would change.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := hostTarget(host, scope, dir)
			if err != nil {
				return &exitError{exitUsage, err}
			}
			var c mcphosts.Change
			switch {
			case install && print:
				c, err = mcphosts.Plan(t, serverEntry(s))
			case install:
				c, err = mcphosts.Install(t, serverEntry(s))
			case print:
				c, err = mcphosts.PlanRemove(t)
			default:
				c, err = mcphosts.Uninstall(t)
			}
			if err != nil {
				return &exitError{exitFailed, err}
			}
			out := cmd.OutOrStdout()
			if print && c.Changed() {
				fmt.Fprintln(out, "would change (nothing written):")
			}
			fmt.Fprintln(out, c.String())
			if c.Backup != "" {
				fmt.Fprintln(out, "backup:", c.Backup)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&host, "host", "", "the host: "+strings.Join(mcphosts.HostNames(), ", "))
	cmd.Flags().StringVar(&scope, "scope", "", "user (default), project, or local (Claude Code)")
	cmd.Flags().StringVar(&dir, "dir", "", "the project folder of the project and local scopes (default: the current folder)")
	cmd.Flags().BoolVar(&print, "print", false, "only show what would change")
	_ = cmd.MarkFlagRequired("host")
	return cmd
}

// hostTarget is where --host, --scope and --dir point.
func hostTarget(host, scope, dir string) (mcphosts.Target, error) {
	h, err := mcphosts.HostNamed(host)
	if err != nil {
		return mcphosts.Target{}, err
	}
	if scope != "" && !slices.Contains(h.Scopes, scope) {
		return mcphosts.Target{}, fmt.Errorf("%s has no scope %q (scopes: %s)", h.Title, scope, strings.Join(h.Scopes, ", "))
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return mcphosts.Target{}, err
	}
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return mcphosts.Target{}, err
		}
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return mcphosts.Target{}, err
	}
	return mcphosts.Target{Host: h, Scope: scope, Home: home, Dir: dir}, nil
}

// serverEntry is how a host starts this deskpilot: this executable, `mcp`,
// and the config file when it is not the default one.
func serverEntry(s *settings) mcphosts.Entry {
	exe, err := os.Executable()
	if err != nil {
		exe = "deskpilot"
	} else if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	args := []string{"mcp"}
	if s.configPath != "" && s.configPath != config.Path() {
		args = append([]string{"--config", s.configPath}, args...)
	}
	// Hosts start servers with few of their own variables (the TypeScript
	// SDK passes HOME, PATH, SHELL, TERM, USER): the display deskpilot was
	// installed from goes with the entry.
	env := map[string]string{}
	for _, k := range []string{"DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY"} {
		if v := os.Getenv(k); v != "" {
			env[k] = v
		}
	}
	return mcphosts.Entry{Command: exe, Args: args, Env: env}
}
