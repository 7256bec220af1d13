// Command gendocs writes deskpilot's man pages and shell completions, generated
// from its cobra commands, for the packages `make package` builds:
//
//	gendocs -version 0.1.0 -date 2025-05-20 -out DIR
//
// writes DIR/man/man1/deskpilot.1 and one page per subcommand
// (deskpilot-run.1, ...), and DIR/completions/deskpilot.bash, _deskpilot (zsh)
// and deskpilot.fish. Defaults that depend on the home folder read as ~/...
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra/doc"

	"deskpilot/internal/cli"
)

func main() {
	version := flag.String("version", "dev", "the version the pages name")
	date := flag.String("date", "", "the date the pages carry (YYYY-MM-DD; default today)")
	out := flag.String("out", "", "the folder to write man/ and completions/ into")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gendocs -version V [-date YYYY-MM-DD] -out DIR")
		os.Exit(2)
	}
	if err := run(*version, *date, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func run(version, date, out string) error {
	day := time.Now().UTC()
	if date != "" {
		var err error
		if day, err = time.Parse(time.DateOnly, date); err != nil {
			return fmt.Errorf("date: %w", err)
		}
	}
	// Flag defaults such as the config file's path come from the environment:
	// make them read as a reader's own home, not the builder's.
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"} {
		if err := os.Unsetenv(k); err != nil {
			return err
		}
	}
	if err := os.Setenv("HOME", "~"); err != nil {
		return err
	}
	root := cli.Command(version)
	root.DisableAutoGenTag = true

	man := filepath.Join(out, "man", "man1")
	if err := os.MkdirAll(man, 0o755); err != nil {
		return err
	}
	header := &doc.GenManHeader{Section: "1", Date: &day, Source: "deskpilot " + version, Manual: "deskpilot manual"}
	if err := doc.GenManTree(root, header, man); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}

	comp := filepath.Join(out, "completions")
	if err := os.MkdirAll(comp, 0o755); err != nil {
		return err
	}
	for name, gen := range map[string]func(string) error{
		"deskpilot.bash": func(p string) error { return root.GenBashCompletionFileV2(p, true) },
		"_deskpilot":     root.GenZshCompletionFile,
		"deskpilot.fish": func(p string) error { return root.GenFishCompletionFile(p, true) },
	} {
		if err := gen(filepath.Join(comp, name)); err != nil {
			return fmt.Errorf("completion %s: %w", name, err)
		}
	}
	return nil
}
