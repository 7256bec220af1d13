//go:build unix

package desktop

import (
	"fmt"
	"os/exec"
	"syscall"
)

// launch starts path with env in a session of its own and reaps it when it exits.
func launch(env []string, name string, args ...string) (int, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return 0, fmt.Errorf("%s is not installed (not found on PATH): %w", name, exec.ErrNotFound)
	}
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	go func() { _ = cmd.Wait() }()
	return pid, nil
}
