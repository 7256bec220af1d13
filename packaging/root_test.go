package packaging

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// debRoot is a clean Debian root (mmdebstrap --variant=apt) that commands run
// in through chroot, each in its own mount and PID namespaces: /proc, /sys and
// /dev are mounted for it alone, and every process it leaves is killed when it
// ends.
type debRoot struct {
	dir string
}

// suite is the Debian release the root is made of: the one this machine and
// the binary were built on.
const suite = "bookworm"

// newDebRoot makes a clean root, or skips the test saying why it cannot.
func newDebRoot(t *testing.T) *debRoot {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("SKIP: no clean root: making one (mmdebstrap --mode=root, chroot) needs root")
	}
	if _, err := exec.LookPath("mmdebstrap"); err != nil {
		t.Skip("SKIP: no clean root: mmdebstrap is not installed (make test-package installs it)")
	}
	dir := filepath.Join(t.TempDir(), "root")
	t0 := time.Now()
	out, err := runErr(t.Context(), nil, "mmdebstrap", "--variant=apt", "--mode=root", "--skip=cleanup/apt/lists", suite, dir)
	if err != nil {
		t.Skipf("SKIP: no clean root: mmdebstrap %s failed (%v); is Debian's archive reachable?\n%s", suite, err, tail(out, 3000))
	}
	t.Logf("clean %s root made in %s", suite, time.Since(t0).Round(time.Second))
	for _, f := range []string{"/etc/resolv.conf", "/etc/hosts"} {
		if b, err := os.ReadFile(f); err == nil {
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	// No service starts inside the root (as in a Debian chroot build).
	if err := os.WriteFile(filepath.Join(dir, "usr/sbin/policy-rc.d"), []byte("#!/bin/sh\nexit 101\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &debRoot{dir: dir}
}

// command returns a command that runs argv inside the root with env (on top of
// PATH, LANG and DEBIAN_FRONTEND).
func (r *debRoot) command(ctx context.Context, env []string, argv ...string) *exec.Cmd {
	script := `mount --rbind /dev "$0/dev" && mount -t sysfs sysfs "$0/sys" && exec chroot "$0" "$@"`
	args := []string{"--mount", "--pid", "--fork", "--kill-child", "--mount-proc=" + filepath.Join(r.dir, "proc"),
		"sh", "-c", script, r.dir, "env", "-i",
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8", "DEBIAN_FRONTEND=noninteractive", "HOME=/root"}
	args = append(append(args, env...), argv...)
	cmd := exec.CommandContext(ctx, "unshare", args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// run runs argv in the root and returns its combined output; it fails the test
// when argv fails.
func (r *debRoot) run(t *testing.T, env []string, argv ...string) string {
	t.Helper()
	out, err := r.runErr(t, env, argv...)
	if err != nil {
		t.Fatalf("in the root: %s: %v\n%s", strings.Join(argv, " "), err, tail(out, 6000))
	}
	return out
}

func (r *debRoot) runErr(t *testing.T, env []string, argv ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Minute)
	defer cancel()
	cmd := r.command(ctx, env, argv...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// startX starts Xvfb inside the root and returns its display name; the test's
// end stops it.
func (r *debRoot) startX(t *testing.T, width, height int) string {
	t.Helper()
	rd, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	cmd := r.command(context.Background(), nil, "Xvfb", "-displayfd", "3", "-screen", "0", fmt.Sprintf("%dx%dx24", width, height),
		"-nolisten", "tcp", "-noreset", "+extension", "MIT-SHM")
	cmd.ExtraFiles = []*os.File{w}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("Xvfb in the root: %v", err)
	}
	w.Close()
	t.Cleanup(func() {
		// unshare ignores SIGTERM and Xvfb is the init of its PID namespace:
		// killing unshare ends the namespace, and Xvfb with it.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	num := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(rd).ReadString('\n')
		num <- strings.TrimSpace(line)
	}()
	select {
	case n := <-num:
		if _, err := strconv.Atoi(n); err != nil {
			t.Fatalf("Xvfb in the root reported no display:\n%s", out.String())
		}
		return ":" + n
	case <-time.After(time.Minute):
		t.Fatalf("Xvfb in the root did not start:\n%s", out.String())
	}
	return ""
}

// snapshot lists the root's files and folders (folders end in "/"), without
// the mounted and scratch folders and the package manager's own state, logs
// and caches.
func (r *debRoot) snapshot(t *testing.T) map[string]bool {
	t.Helper()
	skip := []string{"proc", "sys", "dev", "run", "tmp", "root", "var/cache", "var/log", "var/lib/apt", "var/lib/dpkg"}
	paths := map[string]bool{}
	err := filepath.WalkDir(r.dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(r.dir, p)
		if rel == "." {
			return nil
		}
		if slices.Contains(skip, rel) {
			return filepath.SkipDir
		}
		if e.IsDir() {
			rel += "/"
		}
		paths["/"+rel] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// minus lists the paths of a that b lacks, sorted.
func minus(a, b map[string]bool) []string {
	var out []string
	for p := range a {
		if !b[p] {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
