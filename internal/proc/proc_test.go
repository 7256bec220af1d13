package proc

import (
	"os"
	"runtime"
	"testing"
)

func TestReadsThisProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	name, rss := Status(os.Getpid())
	if name == "" || rss <= 0 {
		t.Errorf("Status = %q, %g KiB", name, rss)
	}
	if peak := PeakRSS(); float64(peak) < rss {
		t.Errorf("peak %d KiB below the resident %g KiB", peak, rss)
	}
	c0 := CPUTime()
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	if CPUTime() <= c0 || x == 0 {
		t.Errorf("CPU time did not grow over a busy loop: %v", CPUTime()-c0)
	}
	if n, _ := Status(-1); n != "" {
		t.Errorf("a process that cannot exist: %q", n)
	}
}
