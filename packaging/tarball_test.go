package packaging

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unpackTarball unpacks the tarball into a temporary folder and returns the
// folder it holds.
func unpackTarball(t *testing.T, p *packages) string {
	t.Helper()
	dir := t.TempDir()
	run(t, nil, "tar", "-xzf", p.tgz, "-C", dir)
	top := filepath.Join(dir, "deskpilot_"+p.version+"_linux_amd64")
	if _, err := os.Stat(filepath.Join(top, "install.sh")); err != nil {
		t.Fatalf("the tarball has no %s/install.sh", filepath.Base(top))
	}
	return top
}

// files lists the regular files under dir, relative to it.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The tarball holds the .deb's files; its install.sh copies them under
// ~/.local of a fresh home, and the deskpilot it installs runs a task
// headless against a scripted model; --uninstall removes every file again.
func TestTarballInstallsUnderHome(t *testing.T) {
	p := needPackages(t)
	top := unpackTarball(t, p)
	debRoot := extractDeb(t, p.deb)
	for _, f := range files(t, filepath.Join(debRoot, "usr")) {
		if strings.HasPrefix(f, "share/lintian/") || f == "share/doc/deskpilot/changelog.gz" || f == "share/doc/deskpilot/THIRD-PARTY-NOTICES.gz" {
			continue // Debian's own
		}
		if _, err := os.Stat(filepath.Join(top, f)); err != nil {
			t.Errorf("the tarball lacks the .deb's %s", f)
		}
	}

	home := t.TempDir()
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	out := run(t, env, filepath.Join(top, "install.sh"))
	if !strings.Contains(out, "libraries: all found") || !strings.Contains(out, p.version) {
		t.Errorf("install.sh said:\n%s", out)
	}
	bin := filepath.Join(home, ".local/bin/deskpilot")
	if v := run(t, env, bin, "--version"); !strings.Contains(v, "deskpilot "+p.version+" ") {
		t.Errorf("--version: %s", v)
	}
	entry := desktopEntry(t, filepath.Join(home, ".local/share/applications/io.github.deskpilot.desktop"))
	if entry["Exec"] != bin {
		t.Errorf("the installed menu entry runs %q, not %s", entry["Exec"], bin)
	}
	for _, f := range []string{"share/icons/hicolor/48x48/apps/io.github.deskpilot.png", "share/man/man1/deskpilot.1.gz",
		"share/bash-completion/completions/deskpilot", "share/doc/deskpilot/THIRD-PARTY-NOTICES"} {
		if _, err := os.Stat(filepath.Join(home, ".local", f)); err != nil {
			t.Errorf("not installed: ~/.local/%s", f)
		}
	}

	// The installed binary does a run on the private display.
	srv := sizeModel(t, false)
	data := t.TempDir()
	runEnv := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+data)
	out = run(t, runEnv, bin, "run", "--base-url", srv.URL, "--model", "scripted", "--json", "-q", "How big is the screen?")
	res := checkRun(t, out, 1280, 800)
	if !strings.HasPrefix(res.Trace, data) {
		t.Errorf("the trace went to %s, not under XDG_DATA_HOME", res.Trace)
	}

	run(t, env, filepath.Join(top, "install.sh"), "--uninstall")
	if left := files(t, home); len(left) > 0 {
		t.Errorf("--uninstall left %v", left)
	}
}

// install.sh names the Debian packages to install when the binary needs a
// library the system lacks, and fails.
func TestTarballInstallNamesMissingLibraries(t *testing.T) {
	p := needPackages(t)
	top := unpackTarball(t, p)
	run(t, nil, "patchelf", "--add-needed", "libdeskpilot-absent.so.1", filepath.Join(top, "bin/deskpilot"))
	home := t.TempDir()
	out, err := runErr(t.Context(), []string{"HOME=" + home, "PATH=/usr/bin:/bin"}, filepath.Join(top, "install.sh"))
	if err == nil {
		t.Fatalf("install.sh passed with a library missing:\n%s", out)
	}
	if !strings.Contains(out, "missing libdeskpilot-absent.so.1") || !strings.Contains(out, "apt-get install") || !strings.Contains(out, "libtesseract5") {
		t.Errorf("install.sh did not name the missing library and the packages:\n%s", out)
	}
}
