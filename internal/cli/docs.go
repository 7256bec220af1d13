package cli

import "github.com/spf13/cobra"

// Command returns deskpilot's command tree as `deskpilot` runs it, with the
// completion and help commands cobra adds when it executes, for tools that
// write its documentation: the man pages and shell completions of the
// packages (packaging/gendocs). Nothing in it has run.
func Command(version string) *cobra.Command {
	root := newRootCmd(version)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	return root
}
