// Package proc reads what the benchmarks report of processes: CPU time and
// resident memory, from the kernel (getrusage, /proc). Where the kernel does
// not tell (no /proc, no getrusage), the figures are zero.
package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Status reads the name and resident memory (KiB) of process pid from
// /proc/PID/status: "" and 0 when it is not there.
func Status(pid int) (name string, rssKB float64) {
	name, rssKB, _ = status(strconv.Itoa(pid))
	return name, rssKB
}

// PeakRSS is this process's peak resident memory (VmHWM), KiB; 0 where
// /proc is not there.
func PeakRSS() int {
	_, _, peak := status("self")
	return int(peak)
}

// status reads Name, VmRSS and VmHWM of /proc/PID/status.
func status(pid string) (name string, rssKB, peakKB float64) {
	data, err := os.ReadFile(filepath.Join("/proc", pid, "status"))
	if err != nil {
		return "", 0, 0
	}
	kb := func(v string) float64 {
		n, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		return n
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, _ := strings.Cut(line, ":")
		switch k {
		case "Name":
			name = strings.TrimSpace(v)
		case "VmRSS":
			rssKB = kb(v)
		case "VmHWM":
			peakKB = kb(v)
		}
	}
	return name, rssKB, peakKB
}
