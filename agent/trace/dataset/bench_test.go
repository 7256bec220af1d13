package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"deskpilot/actions"
)

// BenchmarkBuild builds a dataset of 1,000 and 10,000 steps (runs of 50
// steps, each a real trace with a distinct 1280x800 PNG frame per step) in
// each layout. It reports steps per second into the dataset and the peak
// heap in use while building (sampled every 10 ms; MB), and the process's
// peak RSS (VmHWM) after the build: flat memory shows as the same peaks at
// 1,000 and 10,000 steps. VmHWM only grows, so run each size in a process
// of its own (make bench does: -bench 'Build/.*/steps=1000$', then 10000). The traces are synthesised once per size, before
// the timer starts. `make bench` runs it; docs/benchmarks.md has numbers.
func BenchmarkBuild(b *testing.B) {
	for _, steps := range []int{1000, 10000} {
		if testing.Short() && steps > 1000 {
			continue
		}
		root := b.TempDir()
		srcs := synthRuns(b, root, steps/50, 50)
		for _, f := range Formats {
			b.Run(fmt.Sprintf("%s/steps=%d", f, steps), func(b *testing.B) {
				var peak atomic.Uint64
				stop := sampleHeap(&peak)
				start := time.Now()
				n := 0
				for b.Loop() {
					out := filepath.Join(b.TempDir(), "ds")
					rep, err := Build(b.Context(), out, srcs, Options{Format: f, KeepDuplicates: true})
					if err != nil {
						b.Fatal(err)
					}
					n += rep.Steps
					os.RemoveAll(out)
				}
				el := time.Since(start)
				stop()
				b.ReportMetric(float64(n)/el.Seconds(), "steps/s")
				b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(vmHWM())/(1<<10), "peak-rss-MB")
			})
		}
	}
}

// synthRuns writes runs traces of steps steps each, every step a click on
// a screen of its own (the runs share their screens: drawn once).
func synthRuns(b *testing.B, root string, runs, steps int) []Source {
	var out []Source
	for r := range runs {
		spec := runSpec{task: fmt.Sprintf("bench task %d", r%10), w: 1280, h: 800, first: 0}
		for s := range steps {
			x, y := 10+s*20%1200, 10+s*13%780
			spec.steps = append(spec.steps, stepSpec{code: fmt.Sprintf("click(%d, %d)", x, y),
				acts: []actions.Record{click(x, y)}, changed: s%3 != 0, screen: s + 1})
		}
		out = append(out, Source{Trace: writeRun(b, root, spec)})
	}
	return out
}

// sampleHeap records the largest HeapInuse seen until the returned stop.
func sampleHeap(peak *atomic.Uint64) func() {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

// vmHWM is the process's peak resident set, KiB (Linux; 0 elsewhere).
func vmHWM() int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}
