//go:build linux && cgo && !noocr

package ocr

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// busyDesk starts the busy benchmark desktop (the one scripts/bench-peers.sh
// measures on: 1920x1080, openbox, three xterms full of text) plus the Tk
// form, and returns it once it is still.
func busyDesk(b *testing.B) *desk {
	b.Helper()
	k := startDesk(b, 1920, 1080)
	for _, geom := range []string{"100x40+0+0", "100x40+700+0", "120x30+200+500"} {
		app, err := k.d.StartApp(b.Context(), "xterm", "-geometry", geom, "-e", "bash", "-c",
			"ls -la /usr/bin | head -300; cat /etc/services; sleep 100000")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = app.Stop() })
	}
	ctx, cancel := context.WithTimeout(b.Context(), 60*time.Second)
	defer cancel()
	if _, err := k.d.WaitWindows(ctx, 3); err != nil {
		b.Fatal(err)
	}
	return k
}

// cpuTime returns the CPU time the process has used (all threads).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchFind reads frame and finds a word, reporting CPU and words per read.
func benchFind(b *testing.B, r *Reader, frames func() *image.RGBA, fresh bool) {
	var cpu time.Duration
	words := 0
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		frame := frames()
		if fresh {
			r.resetCache()
		}
		c0 := cpuTime()
		b.StartTimer()
		txt, err := r.Read(b.Context(), frame)
		if err != nil {
			b.Fatal(err)
		}
		if len(txt.Find("services", false)) == 0 {
			b.Fatalf("nothing found; read:\n%s", txt)
		}
		b.StopTimer()
		cpu += cpuTime() - c0
		words = len(txt.Words())
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(words), "words")
}

// BenchmarkFindFresh: find_text on a busy 1920x1080 screen read from
// scratch (the cache emptied before every read).
func BenchmarkFindFresh(b *testing.B) {
	k := busyDesk(b)
	frame := k.settled(b)
	r := newTestReader(b, Options{})
	if _, err := r.Read(b.Context(), frame); err != nil { // engines started
		b.Fatal(err)
	}
	benchFind(b, r, func() *image.RGBA { return frame }, true)
}

// BenchmarkFindCached: find_text on the same screen unchanged, each time a
// new capture (so every band is hashed again).
func BenchmarkFindCached(b *testing.B) {
	k := busyDesk(b)
	frame := k.settled(b)
	r := newTestReader(b, Options{})
	if _, err := r.Read(b.Context(), frame); err != nil {
		b.Fatal(err)
	}
	benchFind(b, r, func() *image.RGBA {
		f, err := k.screen.Capture(b.Context(), image.Rectangle{})
		if err != nil {
			b.Fatal(err)
		}
		return f
	}, false)
}

// BenchmarkPeerTesseractCLI: the peer pipeline, the tesseract command on a
// PNG of the whole screen (what agents that shell out to Tesseract do), for
// the ratio against BenchmarkFindFresh.
func BenchmarkPeerTesseractCLI(b *testing.B) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		b.Skip("no tesseract command")
	}
	k := busyDesk(b)
	frame := k.settled(b)
	path := filepath.Join(b.TempDir(), "screen.png")
	var cpu time.Duration
	b.ResetTimer()
	for b.Loop() {
		c0 := childCPU()
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := png.Encode(f, frame); err != nil {
			b.Fatal(err)
		}
		f.Close()
		out, err := exec.CommandContext(b.Context(), "tesseract", path, "-", "tsv").Output()
		if err != nil {
			b.Fatal(err)
		}
		if len(out) == 0 {
			b.Fatal("no output")
		}
		cpu += childCPU() - c0
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "child-cpu-ms/op")
}

func childCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
