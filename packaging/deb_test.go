package packaging

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// lintian, Debian's own package checker, finds no error in the .deb.
func TestDebLintian(t *testing.T) {
	p := needPackages(t)
	out, err := runErr(t.Context(), nil, "lintian", "--fail-on", "error", "--no-tag-display-limit", "--display-info", p.deb)
	t.Logf("lintian:\n%s", out)
	if err != nil {
		t.Fatalf("lintian: %v", err)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "E: ") {
			t.Errorf("lintian error: %s", line)
		}
	}
}

// The .deb holds the binary in /usr/bin, the desktop entry, the icon in every
// hicolor size, a man page for every command, bash, zsh and fish completions,
// and the licence with the third-party notices.
func TestDebContents(t *testing.T) {
	p := needPackages(t)
	root := extractDeb(t, p.deb)
	for _, f := range []string{
		"usr/bin/deskpilot",
		"usr/share/applications/io.github.deskpilot.desktop",
		"usr/share/bash-completion/completions/deskpilot",
		"usr/share/zsh/vendor-completions/_deskpilot",
		"usr/share/fish/vendor_completions.d/deskpilot.fish",
		"usr/share/doc/deskpilot/copyright",
		"usr/share/doc/deskpilot/changelog.gz",
		"usr/share/doc/deskpilot/THIRD-PARTY-NOTICES.gz",
	} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	if st, err := os.Stat(filepath.Join(root, "usr/bin/deskpilot")); err == nil && st.Mode().Perm() != 0o755 {
		t.Errorf("usr/bin/deskpilot mode %v", st.Mode())
	}
	for _, s := range []int{16, 22, 24, 32, 48, 64, 128, 256, 512} {
		path := filepath.Join(root, "usr/share/icons/hicolor", strconv.Itoa(s)+"x"+strconv.Itoa(s), "apps/io.github.deskpilot.png")
		f, err := os.Open(path)
		if err != nil {
			t.Errorf("icon %d: %v", s, err)
			continue
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != s || cfg.Height != s {
			t.Errorf("icon %d: %dx%d, %v", s, cfg.Width, cfg.Height, err)
		}
	}

	// A man page for each command the binary has, read from its own help.
	bin := filepath.Join(root, "usr/bin/deskpilot")
	for _, cmd := range commands(t, bin) {
		page := filepath.Join(root, "usr/share/man/man1", strings.ReplaceAll(cmd, " ", "-")+".1.gz")
		if _, err := os.Stat(page); err != nil {
			t.Errorf("no man page for %q", cmd)
		}
	}
	man := run(t, []string{"PATH=/usr/bin:/bin", "MANWIDTH=100"}, "man", "-l", filepath.Join(root, "usr/share/man/man1/deskpilot-run.1.gz"))
	man = regexp.MustCompile(".\b").ReplaceAllString(man, "") // bold and underline by overstriking
	if !strings.Contains(man, "--max-steps") || !strings.Contains(man, "deskpilot run") {
		t.Errorf("deskpilot-run(1) does not describe the command:\n%s", tail(man, 2000))
	}

	// The completions are cobra's, for this binary.
	bash, _ := os.ReadFile(filepath.Join(root, "usr/share/bash-completion/completions/deskpilot"))
	if !strings.Contains(string(bash), "__start_deskpilot") {
		t.Errorf("bash completion is not deskpilot's")
	}
	got := run(t, []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin"}, bin, "__complete", "tra")
	if !strings.Contains(got, "traces") {
		t.Errorf("the binary does not complete \"tra\": %s", got)
	}

	notices := run(t, nil, "zcat", filepath.Join(root, "usr/share/doc/deskpilot/THIRD-PARTY-NOTICES.gz"))
	for _, m := range []string{"fyne.io/fyne/v2", "github.com/spf13/cobra", "go.starlark.net", "Go standard library"} {
		if !strings.Contains(notices, m) {
			t.Errorf("notices do not name %s", m)
		}
	}
}

// commands lists the binary's commands and subcommands ("deskpilot run", ...)
// from its help output.
func commands(t *testing.T, bin string) []string {
	t.Helper()
	env := []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin"}
	var walk func(path []string) []string
	walk = func(path []string) []string {
		args := append(append([]string{}, path[1:]...), "--help")
		out := run(t, env, bin, args...)
		all := []string{strings.Join(path, " ")}
		_, rest, ok := strings.Cut(out, "Available Commands:\n")
		if !ok {
			return all
		}
		rest, _, _ = strings.Cut(rest, "\n\n")
		for _, line := range strings.Split(rest, "\n") {
			f := strings.Fields(line)
			if len(f) == 0 || f[0] == "help" {
				continue
			}
			all = append(all, walk(append(append([]string{}, path...), f[0]))...)
		}
		return all
	}
	return walk([]string{"deskpilot"})
}

// Depends names the Debian package of every library the binary links: each
// library its ELF header names, resolved by ldd and mapped to its package with
// dpkg -S, is in Depends (the libraries those load are their packages' own
// dependencies).
func TestDebDependsCoverLibraries(t *testing.T) {
	p := needPackages(t)
	depends := debField(t, p.deb, "Depends")
	var names []string
	for _, d := range strings.Split(depends, ",") {
		for _, alt := range strings.Split(d, "|") {
			names = append(names, strings.Fields(alt)[0])
		}
	}
	root := extractDeb(t, p.deb)
	bin := filepath.Join(root, "usr/bin/deskpilot")
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	needed, err := f.ImportedLibraries()
	f.Close()
	if err != nil || len(needed) < 5 {
		t.Fatalf("the binary needs %v (%v)", needed, err)
	}
	// Where this system resolves each library the binary itself names.
	ldd := run(t, nil, "ldd", bin)
	for _, lib := range needed {
		m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(lib) + ` => (/\S+)`).FindStringSubmatch(ldd)
		if m == nil {
			t.Errorf("ldd does not resolve %s:\n%s", lib, ldd)
			continue
		}
		real, err := filepath.EvalSymlinks(m[1])
		if err != nil {
			t.Fatal(err)
		}
		owner := dpkgOwner(t, m[1], real)
		if owner == "" {
			t.Errorf("no Debian package holds %s", m[1])
			continue
		}
		if !slices.Contains(names, owner) {
			t.Errorf("%s (%s) is not in Depends: %s", lib, owner, depends)
		}
	}
	rec := debField(t, p.deb, "Recommends")
	for _, r := range []string{"tesseract-ocr-eng", "at-spi2-core", "xdg-utils", "xvfb", "openbox", "xterm", "mousepad", "zenity", "python3-tk"} {
		if !strings.Contains(", "+rec+",", ", "+r+",") {
			t.Errorf("Recommends lacks %s: %s", r, rec)
		}
	}
}

// dpkgOwner is the package that holds path (or the file it resolves to),
// without the architecture qualifier.
func dpkgOwner(t *testing.T, paths ...string) string {
	t.Helper()
	for _, p := range paths {
		for _, q := range []string{p, strings.Replace(p, "/usr/lib/", "/lib/", 1), strings.Replace(p, "/lib/", "/usr/lib/", 1)} {
			out, err := exec.Command("dpkg", "-S", q).Output()
			if err != nil {
				continue
			}
			pkg, _, _ := strings.Cut(string(out), ":")
			return strings.TrimSpace(strings.Split(pkg, ",")[0])
		}
	}
	return ""
}

// deskpilot --version names the version the packages carry, the commit they
// were built from and the build date.
func TestVersionStamped(t *testing.T) {
	p := needPackages(t)
	root := extractDeb(t, p.deb)
	out := run(t, []string{"HOME=" + t.TempDir()}, filepath.Join(root, "usr/bin/deskpilot"), "--version")
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^deskpilot (\S+) \(commit ([0-9a-f]{40}), built (\d{4}-\d\d-\d\d), go1\.\S+ linux/amd64\)\n$`)
	m := re.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("--version: %q", out)
	}
	if m[1] != p.version || m[2] != strings.TrimSpace(string(head)) {
		t.Errorf("--version says %s at %s; want %s at %s", m[1], m[2], p.version, head)
	}
}

// SHA256SUMS holds the right sums of the three artifacts.
func TestSHA256SUMS(t *testing.T) {
	p := needPackages(t)
	b, err := os.ReadFile(filepath.Join(p.dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 {
		t.Fatalf("SHA256SUMS:\n%s", b)
	}
	for _, line := range lines {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("line %q", line)
		}
		data, err := os.ReadFile(filepath.Join(p.dir, name))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(data)
		if hex.EncodeToString(h[:]) != sum {
			t.Errorf("%s: sum differs", name)
		}
	}
	for _, f := range []string{p.deb, p.tgz, p.zip} {
		if !strings.Contains(string(b), filepath.Base(f)) {
			t.Errorf("SHA256SUMS does not list %s", filepath.Base(f))
		}
	}
}
