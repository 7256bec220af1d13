package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"

	"deskpilot/internal/config"
	"deskpilot/internal/mcpserve"
	"deskpilot/internal/runctl"
	"deskpilot/internal/wiring"
)

func newMCPCmd(s *settings) *cobra.Command {
	var addr, token string
	var answerWait time.Duration
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the desktop to an agent host over the Model Context Protocol",
		Long: `Serves deskpilot as an MCP server: over standard input and output (the default, as hosts
start it), or over streamable HTTP with --http ADDR. The tools are deskpilot's builtins
(screenshot, click, type_text, find_text, click_text, ...), run_code (Starlark with every
builtin, variables kept for the session) and run_task (deskpilot's own agent on a whole task),
each through the same guard as a run. A non-loopback --http address needs --token (or
DESKPILOT_MCP_TOKEN); with a token every request must carry Authorization: Bearer TOKEN.
"deskpilot mcp install --host HOST" adds it to a host's configuration.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if token == "" {
				token = os.Getenv(mcpserve.TokenEnv)
			}
			if addr != "" {
				if err := mcpserve.CheckAddr(addr, token); err != nil {
					return &exitError{exitUsage, err}
				}
			}
			cfg, err := s.load()
			if err != nil {
				return err
			}
			srv := s.mcpServer(cfg, answerWait)
			defer srv.Close()
			if addr == "" {
				return srv.ServeStdio(cmd.Context(), os.Stdin, os.Stdout)
			}
			stderr := cmd.ErrOrStderr()
			err = srv.ServeHTTP(cmd.Context(), mcpserve.HTTPOptions{Addr: addr, Token: token, Ready: func(a net.Addr) {
				fmt.Fprintf(stderr, "deskpilot mcp: serving streamable HTTP at http://%s/\n", a)
			}})
			if err != nil {
				return &exitError{exitFailed, err}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "http", "", "serve streamable HTTP on this address (host:port) instead of standard input and output")
	cmd.Flags().StringVar(&token, "token", "", "bearer token every HTTP request must carry (default $"+mcpserve.TokenEnv+")")
	cmd.Flags().DurationVar(&answerWait, "answer-wait", 10*time.Minute,
		"on MCP revision 2026-07-28 and later, how long a call that asked the host's person waits, with the desktop held, for the answer; then the question counts as refused and the call ends")
	cmd.AddCommand(newMCPInstallCmd(s, true), newMCPInstallCmd(s, false))
	return cmd
}

// mcpServer is the MCP server for cfg: each session and each run_task gets
// an agent wired as `deskpilot run` wires one, and registers for deskpilot
// stop.
func (s *settings) mcpServer(cfg config.Config, answerWait time.Duration) *mcpserve.Server {
	ctl := s.control(cfg)
	return mcpserve.New(mcpserve.Options{
		Version:    s.version,
		AnswerWait: answerWait,
		Log:        stderrLog(),
		Open: func(ctx context.Context, o mcpserve.RunOptions) (*mcpserve.Wired, error) {
			c := cfg
			if o.Task != "" {
				var err error
				if c, err = taskConfig(cfg, o); err != nil {
					return nil, err
				}
				if !c.HasModel() {
					return nil, errors.New(config.ErrNoModel)
				}
			}
			ready, err := s.open(ctx, c, wiring.Options{})
			if err != nil {
				return nil, err
			}
			return &mcpserve.Wired{Agent: ready.Agent, Close: ready.Close}, nil
		},
		Register: func(st runctl.Status, c runctl.Controls) (*runctl.Entry, error) {
			return ctl.register(st, c)
		},
	})
}

// taskConfig is cfg with what a run_task changes: its model, dialect and
// step limit. A new model picks its dialect by name again unless the
// dialect was set.
func taskConfig(cfg config.Config, o mcpserve.RunOptions) (config.Config, error) {
	st := cfg.Settings
	if o.Model != "" {
		st.Model = o.Model
		if cfg.DialectAuto && o.Dialect == "" {
			st.Dialect = ""
		}
	}
	if o.Dialect != "" {
		st.Dialect = o.Dialect
	}
	if o.MaxSteps > 0 {
		st.MaxSteps = o.MaxSteps
	}
	c, err := config.Resolve(st)
	if err != nil {
		return config.Config{}, fmt.Errorf("run_task: %w", err)
	}
	c.File = cfg.File
	return c, nil
}
