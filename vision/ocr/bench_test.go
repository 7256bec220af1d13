//go:build linux && cgo && !noocr

package ocr

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"deskpilot/internal/proc"
)

// busyDesk starts the busy benchmark desktop (the one scripts/bench-peers.sh
// measures on: 1920x1080, openbox, three xterms full of text) plus the Tk
// form, and returns it once it is still.
func busyDesk(b *testing.B) *desk {
	b.Helper()
	k := startDesk(b, 1920, 1080)
	ctx, cancel := context.WithTimeout(b.Context(), 60*time.Second)
	defer cancel()
	apps, err := k.d.StartBusy(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, a := range apps {
		b.Cleanup(func() { _ = a.Stop() })
	}
	return k
}

// drawn is the busy desktop's still screen once the terminals have drawn
// their text, read once by r (its engines started): a screen is still, too,
// in the moment before the terminals draw.
func (k *desk) drawn(b *testing.B, r *Reader) *image.RGBA {
	b.Helper()
	var frame *image.RGBA
	waitFor(b, "the terminals' text", func() bool {
		frame = k.settled(b)
		txt, err := r.Read(b.Context(), frame)
		if err != nil {
			b.Fatal(err)
		}
		return len(txt.Find("services", false)) > 0
	})
	return frame
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
		c0 := proc.CPUTime()
		b.StartTimer()
		txt, err := r.Read(b.Context(), frame)
		if err != nil {
			b.Fatal(err)
		}
		if len(txt.Find("services", false)) == 0 {
			b.Fatalf("nothing found; read:\n%s", txt)
		}
		b.StopTimer()
		cpu += proc.CPUTime() - c0
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
	r := newTestReader(b, Options{})
	frame := k.drawn(b, r)
	benchFind(b, r, func() *image.RGBA { return frame }, true)
}

// BenchmarkFindCached: find_text on the same screen unchanged, each time a
// new capture (so every band is hashed again).
func BenchmarkFindCached(b *testing.B) {
	k := busyDesk(b)
	r := newTestReader(b, Options{})
	k.drawn(b, r)
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
		c0 := proc.ChildCPUTime()
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
		cpu += proc.ChildCPUTime() - c0
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "child-cpu-ms/op")
}
