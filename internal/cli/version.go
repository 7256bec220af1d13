package cli

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// Build is what the binary knows about itself: the fields the build stamps in
// with -ldflags -X (see the Makefile), each optional.
type Build struct {
	Version string // deskpilot's version, e.g. 0.1.0~git412.19e423e5f0a1; "" means dev
	Commit  string // the git commit it was built from; "" falls back to the Go build info
	Date    string // the day it was built (YYYY-MM-DD); "" means unknown
}

// MainBuild is Main for a binary that knows its commit and build date: the
// same command line, with `deskpilot --version` printing all of b.
func MainBuild(args []string, b Build) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newBuildRoot(b.withDefaults(debug.ReadBuildInfo))
	root.SetArgs(args)
	return exitCode(root.ExecuteContext(ctx), os.Stderr)
}

// newBuildRoot is the command tree of a binary built as b.
func newBuildRoot(b Build) *cobra.Command {
	root := newRootCmd(b.Version)
	root.SetVersionTemplate(b.String() + "\n")
	return root
}

// withDefaults fills what the build did not stamp: "dev" for the version, the
// commit from the VCS stamp Go writes into binaries built in a checkout (with
// "-dirty" when files were modified), "unknown" for the date.
func (b Build) withDefaults(info func() (*debug.BuildInfo, bool)) Build {
	if b.Version == "" {
		b.Version = "dev"
	}
	if b.Commit == "" {
		if bi, ok := info(); ok {
			var rev, modified string
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					modified = s.Value
				}
			}
			if rev != "" && modified == "true" {
				rev += "-dirty"
			}
			b.Commit = rev
		}
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	if b.Date == "" {
		b.Date = "unknown"
	}
	return b
}

// String is the --version line: deskpilot <version> (commit <hash>, built
// <date>, <go version> <os>/<arch>).
func (b Build) String() string {
	var s strings.Builder
	s.WriteString("deskpilot " + b.Version)
	s.WriteString(" (commit " + b.Commit + ", built " + b.Date)
	s.WriteString(", " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")")
	return s.String()
}
