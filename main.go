// Command deskpilot is a desktop agent: a vision model sees the screen and drives
// mouse and keyboard by writing short Starlark programs. Without arguments it opens
// the app; the subcommands run it headless (see `deskpilot help`).
//
// main only wires: config -> adapters -> agent -> app or CLI.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	_ "deskpilot/internal/clocale" // before Fyne's init: see its package doc
	"deskpilot/internal/xconn"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// Exit codes of DESIGN.md §7.
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

func main() {
	xconn.Quiet()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCmd()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(os.Stderr, "deskpilot:", ee.err)
		}
		os.Exit(ee.code)
	}
	fmt.Fprintln(os.Stderr, "deskpilot:", err)
	os.Exit(exitUsage)
}
