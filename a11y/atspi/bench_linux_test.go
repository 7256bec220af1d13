package atspi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"deskpilot/a11y"
)

// BenchmarkElements measures one Elements call (the whole visible tree of the
// display) on a small dialog and on a busy file chooser (a folder of 300 files),
// reading through the Cache interface and object by object.
func BenchmarkElements(b *testing.B) {
	dir := b.TempDir()
	for i := range 300 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-%03d.txt", i)), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	for _, app := range []struct {
		name string
		args []string
	}{
		{"dialog", []string{"--forms", "--title", "Bench", "--text", "Account", "--add-entry", "Name",
			"--add-password", "PIN", "--add-entry", "City"}},
		{"filechooser", []string{"--file-selection", "--title", "Bench files", "--filename", dir + "/"}},
	} {
		b.Run(app.name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(b.Context(), 5*time.Minute)
			defer cancel()
			e := newBenchEnv(b)
			a, err := e.d.StartApp(ctx, "zenity", app.args...)
			if err != nil {
				b.Fatal(err)
			}
			defer a.Stop()
			e.waitAppB(b, ctx, a.Cmd.Process.Pid)
			time.Sleep(time.Second) // let the chooser fill its list
			b.Run("peer-pyatspi", func(b *testing.B) { peerWalk(b, ctx, e) })
			for _, mode := range []string{"cache", "objects"} {
				b.Run(mode, func(b *testing.B) {
					els, note, err := e.c.Elements(ctx, a11y.Query{})
					if err != nil {
						b.Fatal(err)
					}
					if mode == "objects" {
						e.c.mu.Lock()
						for _, el := range els {
							e.c.big[el.Bus] = true
						}
						e.c.mu.Unlock()
					}
					var n int
					for b.Loop() {
						els, note, err = e.c.Elements(ctx, a11y.Query{})
						if err != nil {
							b.Fatal(err)
						}
						n = len(els)
					}
					b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/walk")
					b.ReportMetric(float64(n), "elements")
					b.ReportMetric(float64(note.Nodes), "objects")
				})
			}
		})
	}
}

// peerWalks is how many walks the peer's process times.
const peerWalks = 20

// peerWalk runs the same walk through libatspi (testdata/pyatspi_walk.py, the way
// OSWorld's harness reads the tree) in one Python process and reports its median
// time per walk over peerWalks walks; Python's start-up is not counted.
func peerWalk(b *testing.B, ctx context.Context, e *env) {
	if _, err := os.Stat("/usr/lib/python3/dist-packages/pyatspi"); err != nil {
		b.Skip("python3-pyatspi is not installed")
	}
	// The walks run in the Python process, so b.N says nothing about
	// them: an empty loop grows b.N to millions under -benchtime 1s, and
	// as many walks would outlast the benchmark's deadline.
	for b.Loop() {
	}
	iters := strconv.Itoa(peerWalks)
	out, err := e.d.Command(ctx, "/usr/bin/python3", "testdata/pyatspi_walk.py", iters).CombinedOutput()
	if err != nil {
		b.Fatalf("pyatspi walk: %v\n%s", err, out)
	}
	var secs float64
	var objects int
	if _, err := fmt.Sscan(string(out), &secs, &objects); err != nil {
		b.Fatalf("pyatspi walk output %q: %v", out, err)
	}
	b.ReportMetric(secs*1000, "ms/walk")
	b.ReportMetric(float64(objects), "objects")
}
