//go:build linux

package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/internal/proc"
)

// BenchmarkEvalParallel is the wall time of `deskpilot eval` on an 8-task
// suite with the real agent, each task on a fresh 1920x1080 private display,
// against a model that takes 1 s per reply (two replies a task: a look at the
// screen, then the answer), at 1, 2 and 4 tasks at a time. The model alone
// needs 16 s of replies, so the floor is 16, 8 and 4 s: what the harness and
// the agent add shows as the distance from it. While it runs it samples the
// resident memory of each display (Xvfb + openbox), of each agent's sandbox
// process, and of this process.
//
//	go test -run '^$' -bench EvalParallel -benchtime 1x ./internal/cli/
//
// On a shared machine, alternate the three (docs/benchmarks.md, "Eval").
func BenchmarkEvalParallel(b *testing.B) {
	for _, p := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("parallel-%d", p), func(b *testing.B) {
			isolateB(b)
			suite := answerSuite(b, 8)
			slow := func(t testing.TB, step int, r llmtest.Request) string {
				time.Sleep(time.Second)
				return answerPolicy(t, step, r)
			}
			m := newScriptedModel(b, map[string]policy{"answer-": slow})
			srv := llmtest.New(b)
			var mem memSampler
			for b.Loop() {
				srv.Add(m.replies(8 * 2)...)
				out := filepath.Join(b.TempDir(), "results")
				ctx, stop := context.WithCancel(b.Context())
				done := mem.sample(ctx)
				stdout, stderr, code := runCLI(b.Context(), "eval", suite, "--out", out, "--parallel", strconv.Itoa(p), "--json",
					"--base-url", srv.URL, "--model", "slow")
				stop()
				<-done
				if code != 0 || !strings.Contains(stdout, `"passed": 8`) {
					b.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/suite")
			display, sandbox := mem.medians()
			b.ReportMetric(display, "MB/display")
			b.ReportMetric(sandbox, "MB/sandbox")
			b.ReportMetric(mem.self, "MB-peak-self")
		})
	}
}

// isolateB is isolate for benchmarks.
func isolateB(b *testing.B) {
	dir := b.TempDir()
	for k, v := range map[string]string{"XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_DATA_HOME": filepath.Join(dir, "data"),
		"XDG_CACHE_HOME": filepath.Join(dir, "cache"), "OPENAI_BASE_URL": "", "OPENAI_API_KEY": "", "DESKPILOT_MODEL": ""} {
		b.Setenv(k, v)
	}
}

// memSampler samples, every 500 ms, the resident memory (MB) per display
// (Xvfb and openbox children of this process, per Xvfb), per sandbox child,
// and of this process; it reports the median of the first two (a process
// caught starting or exiting is no typical one) and the peak of the last.
type memSampler struct {
	mu                 sync.Mutex
	displays, sandboxs []float64
	self               float64
}

func (s *memSampler) sample(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			d, sb, me := memNow()
			s.mu.Lock()
			if d > 0 {
				s.displays = append(s.displays, d)
			}
			if sb > 0 {
				s.sandboxs = append(s.sandboxs, sb)
			}
			s.self = max(s.self, me)
			s.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
	return done
}

// medians returns the median MB per display and per sandbox.
func (s *memSampler) medians() (display, sandbox float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return median(s.displays), median(s.sandboxs)
}

// memNow reads /proc for this process and its children (no scan of every
// process: the sampler must not load the machine it measures): MB per
// display, MB per sandbox child, MB of this process.
func memNow() (perDisplay, perSandbox, self float64) {
	me := strconv.Itoa(os.Getpid())
	var kids []string
	tasks, _ := filepath.Glob(filepath.Join("/proc", me, "task", "*", "children"))
	for _, f := range tasks {
		data, _ := os.ReadFile(f)
		kids = append(kids, strings.Fields(string(data))...)
	}
	var xKB, sbKB float64
	servers, sandboxes := 0, 0
	for _, pid := range append(kids, me) {
		n, _ := strconv.Atoi(pid)
		name, rss := proc.Status(n)
		switch {
		case pid == me:
			self = rss / 1024
		case name == "Xvfb":
			servers++
			xKB += rss
		case name == "openbox":
			xKB += rss
		case strings.HasPrefix(name, "cli.test"):
			sandboxes++
			sbKB += rss
		}
	}
	if servers > 0 {
		perDisplay = xKB / 1024 / float64(servers)
	}
	if sandboxes > 0 {
		perSandbox = sbKB / 1024 / float64(sandboxes)
	}
	return perDisplay, perSandbox, self
}
