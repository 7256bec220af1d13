//go:build linux

package cli

import (
	"bytes"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/trace"
	"deskpilot/internal/proc"
	"deskpilot/vision/xdisplay"
)

// longRunSteps is the length of the long-run benchmark.
const longRunSteps = 120

// BenchmarkLongRun runs the real binary for 120 steps against a model that
// answers at once, on a busy 1920x1080 desktop whose screen does not change,
// and reports what grows with a run's length: the step's overhead outside the
// model, the agent's resident memory per step after step 20, the share of each
// request repeated byte for byte as the next one's prefix, the input tokens a
// provider bills uncached per step (estimated: text bytes/4, an image w*h/750),
// and the trace's growth per step. "chunk=1" drops one old screenshot every step
// (the loop before image_chunk); "chunk=default" leaves them in chunks;
// "screen=changing" adds a terminal that prints a line every 50 ms and a
// model that takes 120 ms to answer, so every step's screenshot is new. The prefix share is reported over steps 10 to
// 120 as its median, mean and 10th percentile: a request that repeats little
// of the one before shows in the mean and p10, never in the median. The
// median screenshot and the median rest of a request, in KB, give the share's
// ceiling when every screenshot is new (see requestBytes). "tok-share-*" is
// the same share in the tokens a provider bills, which is what its prompt
// cache saves: images by OpenAI's tile rule for the size sent ("-claude": by
// Anthropic's w*h/750), text estimated at 4 bytes a token (tokenweight_test.go).
//
//	go test -run '^$' -bench LongRun -benchtime 1x ./internal/cli/
func BenchmarkLongRun(b *testing.B) {
	d, err := xdisplay.Start(b.Context(), xdisplay.Options{Width: 1920, Height: 1080})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = d.Close() })
	d.Busy(b)
	for _, v := range []struct {
		name, chunk string
		changing    bool
	}{{"chunk=1", "1", false}, {"chunk=default", "default", false}, {"chunk=default/screen=changing", "default", true}} {
		b.Run(v.name, func(b *testing.B) {
			if v.changing {
				scroller(b, d)
			}
			// On the changing screen the model takes longer than the terminal
			// takes to print a line, as a real one does: every screenshot is new.
			var pace time.Duration
			if v.changing {
				pace = 120 * time.Millisecond
			}
			for range b.N {
				longRun(b, d, v.chunk, pace)
			}
		})
	}
}

// scroller starts a terminal printing a line every 50 ms, so that every
// step's screenshot differs from the one before; it stops with b.
func scroller(b *testing.B, d *xdisplay.Display) {
	a, err := d.StartApp(b.Context(), "xterm", "-geometry", "100x20+400+300", "-e", "sh", "-c",
		`i=0; while :; do i=$((i+1)); echo "$i the quick brown fox jumps over the lazy dog"; sleep 0.05; done`)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = a.Stop() })
	time.Sleep(time.Second)
}

// longRun is one run of the benchmark; the model waits pace before each
// reply (its time is not the step's overhead).
func longRun(b *testing.B, d *xdisplay.Display, chunk string, pace time.Duration) {
	bin, err := binary()
	if err != nil {
		b.Fatalf("build: %v", err)
	}
	paced := func(r llmtest.Reply) llmtest.Reply {
		text := r.Text
		return llmtest.Reply{Func: func(llmtest.Request) string { time.Sleep(pace); return text }}
	}
	var replies []llmtest.Reply
	for i := range longRunSteps - 1 {
		replies = append(replies, paced(reply(fmt.Sprintf("print(%d)", i))))
	}
	replies = append(replies, paced(reply(`final_answer("done")`)))
	srv := llmtest.New(b, replies...)
	dir := b.TempDir()
	traces := filepath.Join(dir, "traces")
	cmd := exec.CommandContext(b.Context(), bin, "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces,
		"--max-steps", strconv.Itoa(longRunSteps+1), "--json", "-q", "long run")
	cmd.Env = append(os.Environ(), "DISPLAY="+d.Name, "XAUTHORITY="+d.XAuthority,
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"DESKPILOT_TIMEOUT=60", "GOCACHE="+goCache)
	if chunk != "default" {
		cmd.Env = append(cmd.Env, "DESKPILOT_IMAGE_CHUNK="+chunk)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	rss := sampleRSS(cmd.Process.Pid)
	err = cmd.Wait()
	samples := rss()
	if err != nil {
		b.Fatalf("run: %v\n%s", err, out.String())
	}
	dirs, _ := filepath.Glob(filepath.Join(traces, "*"))
	if len(dirs) != 1 {
		b.Fatalf("want one trace folder, got %v", dirs)
	}
	tr, err := trace.Read(dirs[0])
	if err != nil {
		b.Fatal(err)
	}
	overhead, starts := stepTimes(tr)
	b.ReportMetric(median(overhead), "ms-overhead/step")
	if len(starts) > 20 {
		first, last := rssAt(samples, starts[20]), rssAt(samples, starts[len(starts)-1])
		b.ReportMetric((last-first)/float64(len(starts)-21), "MB-rss-growth/step")
	}
	reqs := srv.Requests()
	shares, uncached := prefixShares(reqs)
	// Steps 10 to 120: past the first screenshots, where old ones leave.
	late := shares[min(8, len(shares)):]
	b.ReportMetric(median(late), "prefix-share-median")
	b.ReportMetric(mean(late), "prefix-share-mean")
	b.ReportMetric(quantile(late, 0.1), "prefix-share-p10")
	// The same share in the tokens a provider bills (images by OpenAI's
	// tile rule and by Anthropic's w*h/750, text at 4 bytes a token).
	tok := tokenShares(reqs, openAIImageTokens)
	tok = tok[min(8, len(tok)):]
	b.ReportMetric(median(tok), "tok-share-median")
	b.ReportMetric(mean(tok), "tok-share-mean")
	b.ReportMetric(quantile(tok, 0.1), "tok-share-p10")
	claude := tokenShares(reqs, anthropicImageTokens)
	claude = claude[min(8, len(claude)):]
	b.ReportMetric(mean(claude), "tok-share-mean-claude")
	b.ReportMetric(quantile(claude, 0.1), "tok-share-p10-claude")
	b.ReportMetric(median(uncached), "uncached-tokens/step")
	shotKB, textKB := requestBytes(reqs[min(9, len(reqs)):])
	b.ReportMetric(shotKB, "KB-screenshot")
	b.ReportMetric(textKB, "KB-text/request")
	var textTok []float64
	for _, r := range reqs[min(9, len(reqs)):] {
		textTok = append(textTok, tokensBy(r.Messages, func(image.Point) float64 { return 0 }))
	}
	b.ReportMetric(median(textTok), "tok-text/request")
	size := dirSize(dirs[0])
	b.ReportMetric(float64(size)/1024/float64(len(tr.Steps)), "KB-trace/step")
}

// sampleRSS samples a process's resident memory every 50 ms until the
// returned function is called, which returns the samples.
func sampleRSS(pid int) func() []rssSample {
	var mu sync.Mutex
	var samples []rssSample
	done := make(chan struct{})
	go func() {
		for {
			if name, kb := proc.Status(pid); name != "" {
				mu.Lock()
				samples = append(samples, rssSample{time.Now(), kb / 1024})
				mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return func() []rssSample {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		return samples
	}
}

type rssSample struct {
	t  time.Time
	mb float64
}

// rssAt is the median of the samples within a second around t (the Go heap
// breathes between collections).
func rssAt(samples []rssSample, t time.Time) float64 {
	var near []float64
	for _, s := range samples {
		if d := s.t.Sub(t); d > -time.Second && d < time.Second {
			near = append(near, s.mb)
		}
	}
	return median(near)
}

// stepTimes returns each step's time outside the model (step start to its
// observation, less the model's reply time), ms, and the steps' start times.
func stepTimes(tr *trace.Trace) (overhead []float64, starts []time.Time) {
	for _, s := range tr.Steps {
		if s.Number == 0 || s.Observation == nil {
			continue
		}
		starts = append(starts, s.Begin)
		ms := float64(s.Observation.T.Sub(s.Begin).Microseconds())/1000 - float64(s.ModelMS)
		overhead = append(overhead, ms)
	}
	return overhead, starts
}

// prefixShares returns, for each request after the first, the share of the
// previous request's body it repeats as its own prefix, and the input tokens
// not in the prefix the two share (what a provider's prompt cache cannot serve).
func prefixShares(reqs []llmtest.Request) (shares, uncached []float64) {
	for i := 1; i < len(reqs); i++ {
		prev, cur := reqs[i-1], reqs[i]
		n := commonPrefix(prev.Body, cur.Body)
		shares = append(shares, float64(n)/float64(len(prev.Body)))
		total := tokensBy(cur.Messages, anthropicImageTokens)
		cached := sharedTokensBy(prev.Messages, cur.Messages, anthropicImageTokens)
		uncached = append(uncached, total-cached)
	}
	return shares, uncached
}

// requestBytes is the median size of a screenshot in the requests' bodies
// (its data URL) and the median of a request's other bytes, KB. They bound
// the prefix share on a screen that changes at every step: a screenshot
// enters every step, so one must leave every step on average, and the
// request that drops it repeats none of its bytes; with at most B images a
// request, no schedule's mean share exceeds about 1 - shot/(B*shot + text).
func requestBytes(reqs []llmtest.Request) (shotKB, textKB float64) {
	var shots, texts []float64
	for _, r := range reqs {
		img := 0
		for _, m := range r.Messages {
			for _, p := range m.Parts {
				if p.Type == "image_url" {
					img += len(p.ImageURL)
					shots = append(shots, float64(len(p.ImageURL))/1024)
				}
			}
		}
		texts = append(texts, float64(len(r.Body)-img)/1024)
	}
	return median(shots), median(texts)
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	var t float64
	for _, x := range v {
		t += x
	}
	return t / float64(len(v))
}

// quantile is the q-quantile of v (nearest rank, 0 <= q <= 1).
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[min(int(q*float64(len(s))), len(s)-1)]
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// dirSize is the bytes of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}
