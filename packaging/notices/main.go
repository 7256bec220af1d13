// Command notices writes the third-party notices of a Go binary: every module
// its packages come from (found with `go list -deps`, so only what is linked
// in, for the target's GOOS and GOARCH), each module's licence files, and Go's
// own licence for the standard library and runtime. It exits non-zero when a
// module has no licence file, so nothing ships without one.
//
//	notices [-o FILE] [-summary FILE] [PACKAGE]
//
// PACKAGE defaults to "." (the binary in the current folder). -summary writes
// one line per module: path, version and the licence it was recognised as.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

func main() {
	out := flag.String("o", "", "write the notices here (default stdout)")
	summary := flag.String("summary", "", "also write one line per module here")
	flag.Parse()
	pkg := "."
	if flag.NArg() > 1 {
		fmt.Fprintln(os.Stderr, "usage: notices [-o FILE] [-summary FILE] [PACKAGE]")
		os.Exit(2)
	}
	if flag.NArg() == 1 {
		pkg = flag.Arg(0)
	}
	if err := run(pkg, *out, *summary); err != nil {
		fmt.Fprintln(os.Stderr, "notices:", err)
		os.Exit(1)
	}
}

func run(pkg, out, summary string) error {
	goos, goarch, err := target()
	if err != nil {
		return err
	}
	mods, err := modules(pkg)
	if err != nil {
		return err
	}
	goroot, err := goEnv("GOROOT")
	if err != nil {
		return err
	}
	goVersion, err := goEnv("GOVERSION")
	if err != nil {
		return err
	}
	std := &module{Path: "Go standard library and runtime", Version: goVersion, Dir: goroot}
	mods = append([]*module{std}, mods...)
	var missing []string
	for _, m := range mods {
		if err := m.findLicences(); err != nil {
			return err
		}
		if len(m.files) == 0 {
			missing = append(missing, m.Path+"@"+m.Version)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no licence file in %s", strings.Join(missing, ", "))
	}
	w := io.Writer(os.Stdout)
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	if err := write(w, pkg, goos, goarch, mods); err != nil {
		return err
	}
	if summary != "" {
		var b strings.Builder
		for _, m := range mods {
			fmt.Fprintf(&b, "%s %s: %s\n", m.Path, m.Version, m.licence())
		}
		return os.WriteFile(summary, []byte(b.String()), 0o644)
	}
	return nil
}

// target is the GOOS and GOARCH `go list` builds for here.
func target() (goos, goarch string, err error) {
	if goos, err = goEnv("GOOS"); err != nil {
		return "", "", err
	}
	if goarch, err = goEnv("GOARCH"); err != nil {
		return "", "", err
	}
	return goos, goarch, nil
}

func goEnv(name string) (string, error) {
	b, err := exec.Command(goCmd(), "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// goCmd is $GO when set, else go on $PATH.
func goCmd() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

func write(w io.Writer, pkg, goos, goarch string, mods []*module) error {
	fmt.Fprintf(w, "Third-party notices\n\n")
	fmt.Fprintf(w, "The %s/%s build of %s contains code from the %d modules below, the Go modules\n", goos, goarch, pkg, len(mods))
	fmt.Fprintf(w, "`go list -deps` finds in it (C code compiled in through cgo is part of its\n")
	fmt.Fprintf(w, "module and listed with it). Each one's licence files follow, as its authors wrote them.\n\n")
	for _, m := range mods {
		fmt.Fprintf(w, "  %s %s (%s)\n", m.Path, m.Version, m.licence())
	}
	for _, m := range mods {
		fmt.Fprintf(w, "\n%s\n%s %s\n", strings.Repeat("=", 78), m.Path, m.Version)
		for _, f := range m.files {
			fmt.Fprintf(w, "%s\n-- %s\n\n%s\n", strings.Repeat("-", 78), f.name, strings.TrimRight(f.text, "\n"))
		}
		for _, c := range m.compiled {
			fmt.Fprintf(w, "%s\n-- %s: compiled code (%s, %d bytes) built into the binary.\n", strings.Repeat("-", 78), c.name, c.kind, c.size)
			fmt.Fprintf(w, "Its licences are those of the code compiled into it; the copyright lines it contains are:\n\n")
			for _, n := range c.notices {
				fmt.Fprintf(w, "  %s\n", n)
			}
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}
