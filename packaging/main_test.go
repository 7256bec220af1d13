package packaging

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"deskpilot/vision/xdisplay"
)

// The tests run on a private Xvfb display (the desktop entry's window, runs of
// the installed binary); the clean Debian root starts its own inside it.
func TestMain(m *testing.M) {
	code := xdisplay.Main(m, xdisplay.Options{Width: 1280, Height: 800})
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// packages are the artifacts `make package` made for the tests.
type packages struct {
	dir, version  string
	deb, tgz, zip string
	log           string // what make printed
	err           error
	once          sync.Once
}

var built packages

// needPackages skips the tests that build the packages unless `make
// test-package` runs them (they take minutes and install Debian tools), then
// builds them once for all tests: `make package` into a temporary folder.
func needPackages(t *testing.T) *packages {
	t.Helper()
	if os.Getenv("DESKPILOT_TEST_PACKAGE") == "" {
		t.Skip("builds and installs the packages: run it with make test-package")
	}
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "deskpilot-dist-")
		if built.err != nil {
			return
		}
		var out []byte
		out, built.err = exec.Command("make", "-C", "..", "--no-print-directory", "package", "DIST="+built.dir).CombinedOutput()
		built.log = string(out)
		if built.err != nil {
			return
		}
		// The version is the one make stamped, read from the .deb's name.
		debs, _ := filepath.Glob(filepath.Join(built.dir, "deskpilot_*_amd64.deb"))
		if len(debs) != 1 {
			built.err = fmt.Errorf("make package made %d .deb files", len(debs))
			return
		}
		built.version = strings.TrimSuffix(strings.TrimPrefix(filepath.Base(debs[0]), "deskpilot_"), "_amd64.deb")
		built.deb = filepath.Join(built.dir, "deskpilot_"+built.version+"_amd64.deb")
		built.tgz = filepath.Join(built.dir, "deskpilot_"+built.version+"_linux_amd64.tar.gz")
		built.zip = filepath.Join(built.dir, "deskpilot_"+built.version+"_windows_amd64.zip")
	})
	if built.err != nil {
		t.Fatalf("make package: %v\n%s", built.err, tail(built.log, 4000))
	}
	return &built
}

// run runs a command and returns its combined output, failing the test when it
// does not exit 0.
func run(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	out, err := runErr(t.Context(), env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail(out, 6000))
	}
	return out
}

// runErr runs a command with env (nil: this process's) and returns its
// combined output and error.
func runErr(ctx context.Context, env []string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	return out.String(), err
}

// extractDeb unpacks the .deb's files into a temporary folder and returns it.
func extractDeb(t *testing.T, deb string) string {
	t.Helper()
	dir := t.TempDir()
	run(t, nil, "dpkg-deb", "-x", deb, dir)
	return dir
}

// debField is one field of the .deb's control file.
func debField(t *testing.T, deb, field string) string {
	t.Helper()
	return strings.TrimSpace(run(t, nil, "dpkg-deb", "-f", deb, field))
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
