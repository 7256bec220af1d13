// Package cli is deskpilot's command line: the cobra commands (the app, run,
// console, traces, replay, play, doctor, bench, eval), their flags and exit codes. Settings
// come from internal/config, resolved once per command; agents come from
// internal/wiring.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/spf13/cobra"

	_ "deskpilot/internal/clocale" // before Fyne's init: see its package doc
	"deskpilot/internal/config"
	"deskpilot/internal/wiring"
)

// Exit codes of `deskpilot run` (README: exit codes).
const (
	exitAnswered    = 0
	exitFailed      = 1
	exitUsage       = 2
	exitStepLimit   = 3
	exitInterrupted = 130
)

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// Main runs the command line with args (without the program name) and returns
// the process's exit code. SIGINT and SIGTERM cancel the command's context.
func Main(args []string, version string) int {
	return MainBuild(args, Build{Version: version})
}

// exitCode prints err (when there is one to print) and maps it to an exit code.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitAnswered
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "deskpilot:", ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "deskpilot:", err)
	return exitUsage
}

// settings are the flags every command shares, and the config they resolve to.
type settings struct {
	version    string
	configPath string
	flags      *config.Flags

	ctlOnce sync.Once
	ctl     *control // the process's control (stop.go); nil until a run registers
}

// newRootCmd builds the command tree.
func newRootCmd(version string) *cobra.Command { return newRoot(&settings{version: version}) }

// newRoot builds the command tree around s, which its flags fill.
func newRoot(s *settings) *cobra.Command {
	root := &cobra.Command{
		Use:   "deskpilot",
		Short: "A desktop agent: a vision model drives your desktop by writing code",
		Long: `deskpilot shows a vision language model your screen and runs the short programs it
answers with (mouse, keyboard, web and file tools), step by step, recording every
run as a trace. Without a subcommand it opens the app.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       s.version,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runApp(cmd.Context(), s)
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&s.configPath, "config", config.Path(), "config file")
	s.flags = config.AddFlags(pf)
	root.AddCommand(newRunCmd(s), newConsoleCmd(s), newTracesCmd(s), newReplayCmd(s), newPlayCmd(s), newBenchCmd(s), withCalibrate(newDoctorCmd(s), s), newEvalCmd(s), newMCPCmd(s), newStopCmd(s))
	suggestFlags(root)
	return root
}

// load resolves the settings: flags > environment > config file > preset > defaults.
func (s *settings) load() (config.Config, error) {
	cfg, err := config.Load(config.Sources{Path: s.configPath, Flags: s.flags})
	if err != nil {
		return cfg, &exitError{exitUsage, err}
	}
	return cfg, nil
}

// stderrLog logs warnings and errors to stderr.
func stderrLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// open wires an agent for cfg on its desktop (internal/wiring) with the CLI's
// log and version.
func (s *settings) open(ctx context.Context, cfg config.Config, o wiring.Options) (*wiring.Ready, error) {
	if o.Log == nil {
		o.Log = stderrLog()
	}
	o.Version = s.version
	o.Secrets = withMCPSecrets(cfg, o, osKeyring{}.Get)
	if o.Peers == nil {
		o.Peers = peerWindows()
	}
	return wiring.Open(ctx, cfg, o)
}
