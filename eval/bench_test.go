//go:build linux

package eval

import (
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"deskpilot/internal/wait"
)

// BenchmarkParallel is the wall time of an 8-task suite whose runner is bound by
// the model (three replies of 1 s each, no CPU), at 1, 2 and 4 tasks at a time,
// each task on its own fresh 1920x1080 display; the speed-up against parallel 1
// is what the harness adds or loses. It also reports the resident memory of one
// display (Xvfb + openbox) while it runs.
//
//	go test -run '^$' -bench Parallel -benchtime 1x ./eval/
func BenchmarkParallel(b *testing.B) {
	suite := answerSuite(b, 8)
	for _, p := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("parallel-%d", p), func(b *testing.B) {
			var mu sync.Mutex
			var perDisplay float64
			run := func(ctx context.Context, j Job) (Outcome, error) {
				for reply := range 3 {
					if err := wait.Sleep(ctx, time.Second); err != nil {
						return Outcome{}, err
					}
					if reply == 0 {
						if mb, ok := displayMemory(); ok {
							mu.Lock()
							perDisplay = max(perDisplay, mb)
							mu.Unlock()
						}
					}
				}
				return answering()(ctx, j)
			}
			for b.Loop() {
				sum, err := Run(b.Context(), Options{Suite: suite, Out: b.TempDir(), Parallel: p, Screen: image.Pt(DefaultWidth, DefaultHeight)}, run)
				if err != nil || sum.Passed != 8 {
					b.Fatalf("passed %d: %v", sum.Passed, err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/suite")
			b.ReportMetric(perDisplay, "MB/display")
		})
	}
}

// displayMemory is the resident memory (MB) of this process's Xvfb and openbox
// children, per running Xvfb.
func displayMemory() (float64, bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	me := strconv.Itoa(os.Getpid())
	var kb float64
	servers := 0
	for _, e := range entries {
		status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		fields := map[string]string{}
		for _, line := range strings.Split(string(status), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok {
				fields[k] = strings.TrimSpace(v)
			}
		}
		if fields["PPid"] != me || (fields["Name"] != "Xvfb" && fields["Name"] != "openbox") {
			continue
		}
		if fields["Name"] == "Xvfb" {
			servers++
		}
		rss, _ := strconv.ParseFloat(strings.TrimSuffix(fields["VmRSS"], " kB"), 64)
		kb += rss
	}
	if servers == 0 {
		return 0, false
	}
	return kb / 1024 / float64(servers), true
}
