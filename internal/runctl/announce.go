package runctl

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// winSuffix ends the file a process that shows windows announces itself
// with: <pid>.win in the control folder.
const winSuffix = ".win"

// Announce says, until the returned func is called, that this process
// shows windows of its own (the app): every other deskpilot process of the
// user masks and refuses them in its screenshots and actions as it does its
// own (Peers). The file <pid>.win holds the pid and the process's start
// time, so that a file left by a process that died is told from a new
// process that got its pid.
func Announce(dir string) (func(), error) {
	pid := os.Getpid()
	path := filepath.Join(dir, strconv.Itoa(pid)+winSuffix)
	data := fmt.Sprintf("%d %s\n", pid, startTime(pid))
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		return func() {}, fmt.Errorf("announce windows: %w", err)
	}
	return func() { _ = os.Remove(path) }, nil
}

// Peers returns the pids of the other live processes that announced
// windows in dir (Announce), this process left out. A file whose process is
// gone, or whose pid another process has now, is removed. Errors reading
// the folder are no peers.
func Peers(dir string) []int {
	names, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []int
	for _, n := range names {
		base, ok := strings.CutSuffix(n.Name(), winSuffix)
		if !ok {
			continue
		}
		pid, err := strconv.Atoi(base)
		if err != nil || pid <= 0 || pid == self {
			continue
		}
		path := filepath.Join(dir, n.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if !alive(pid, string(data)) {
			_ = os.Remove(path)
			continue
		}
		out = append(out, pid)
	}
	return out
}

// alive reports whether pid is the process that wrote data ("PID START").
func alive(pid int, data string) bool {
	f := strings.Fields(data)
	if len(f) < 1 || f[0] != strconv.Itoa(pid) {
		return false
	}
	if !processExists(pid) {
		return false
	}
	if len(f) < 2 || f[1] == "" {
		return true
	}
	return startTime(pid) == f[1]
}

// startTime is when process pid started, in clock ticks since boot (field
// 22 of /proc/PID/stat); "" where there is no /proc.
func startTime(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19] // f[0] is field 3, so field 22 is f[19]
}
