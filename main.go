// Command deskpilot is a desktop agent: a vision model sees the screen and drives
// mouse and keyboard by writing short Starlark programs. Without arguments it opens
// the app; the subcommands run it headless (see `deskpilot help`). The commands
// live in internal/cli; docs/architecture.md maps the rest.
package main

import (
	"os"

	"deskpilot/agent/dialect"
	"deskpilot/agent/script"
	"deskpilot/internal/cli"
	"deskpilot/internal/xconn"
)

// version, commit and buildDate are set at build time with -ldflags
// "-X main.version=... -X main.commit=... -X main.buildDate=..." (the Makefile
// does it); `deskpilot --version` prints them.
var version, commit, buildDate = "dev", "", ""

func main() {
	// A sandbox child (the process the model's code runs in) serves its
	// parent and exits here, before anything else starts.
	script.ServeIfChild(dialect.ModuleSet)
	xconn.Quiet()
	os.Exit(cli.MainBuild(os.Args[1:], cli.Build{Version: version, Commit: commit, Date: buildDate}))
}
