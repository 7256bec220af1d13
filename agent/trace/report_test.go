package trace

import (
	"bytes"
	"deskpilot/actions"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("%s differs at line %d:\n got %s\nwant %s\n(run with -update if the change is intended)", name, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s differs in length: %d lines, want %d (run with -update if intended)", name, len(gl), len(wl))
	}
}

func TestGolden(t *testing.T) {
	w, _ := writeSample(t, t.TempDir())
	for _, c := range []struct{ file, golden string }{
		{ReportFile, "report.golden.html"},
		{EventsFile, "trace.golden.jsonl"},
	} {
		t.Run(c.file, func(t *testing.T) {
			got, err := os.ReadFile(filepath.Join(w.Dir(), c.file))
			if err != nil {
				t.Fatal(err)
			}
			golden(t, c.golden, got)
		})
	}
}

func TestReportContent(t *testing.T) {
	w, _ := writeSample(t, t.TempDir())
	data, err := os.ReadFile(filepath.Join(w.Dir(), ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	html := string(data)
	for _, want := range []string{
		"Open the calculator and compute 12 × 7", // header task
		`class="pill outcome answered"`,          // outcome
		"7,750 in · 95 out tokens",               // totals
		"42.0 s",                                 // elapsed
		"Paused at &#43;19.5 s: the mouse moved", // pause note ("+" escaped)
		`src="frames/0000.png"`,                  // step 1 shows the initial screen
		`id="step-3"`, `id="final"`,
		// The click at screen (2000, 100) on a display at x=1920 lands at (80, 100).
		`<circle class="ring" cx="80" cy="100"`,
		// The drag from (2070, 60) to (2180, 150) starts at (150, 60).
		`<line class="shaft" x1="150" y1="60"`,
		`<tr class="bad"><td class="n">2</td><td><code>right_click(`, // the failed action
	} {
		if !strings.Contains(html, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(html, "id=\"step-0\"") {
		t.Error("report has a card for step 0, which only holds the initial screenshot")
	}
	for _, banned := range []string{"<script", "http://", "https://fonts", "@import", "url("} {
		if strings.Contains(strings.ReplaceAll(html, "https://openrouter.ai/api/v1", ""), banned) {
			t.Errorf("report contains %q: it must be self-contained and script-free", banned)
		}
	}
}

func TestReportEscapesModelOutput(t *testing.T) {
	const evil = `</script><img src=x onerror=alert(1)><script>alert(2)</script>`
	root := t.TempDir()
	w, err := Create(root, Event{Task: "task " + evil, Model: evil, Screen: &Rect{W: 100, H: 100}})
	if err != nil {
		t.Fatal(err)
	}
	events := []Event{
		{Type: TypeObservation, Step: 0, Frame: "javascript:alert(3)"},
		{Type: TypeStepStart, Step: 1},
		{Type: TypeModelOutput, Step: 1, Text: "Thought: " + evil},
		{Type: TypeCode, Step: 1, Code: "print('" + evil + "')", Text: evil},
		{Type: TypeAction, Step: 1, Action: &actions.Record{Name: evil, Args: evil, Screen: &[2]int{5, 5}, Result: evil, Error: evil}},
		{Type: TypePaused, Step: 1, Reason: evil},
		{Type: Type(evil), Step: 1},
		{Type: TypeObservation, Step: 1, Text: evil, Error: evil, Frame: "../../../etc/passwd", Attachments: []string{"/etc/shadow"}},
		{Type: TypeRunEnd, Step: 1, Outcome: evil, Answer: evil, Error: evil},
	}
	for _, e := range events {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, inline := range []bool{false, true} {
		tr, err := Read(w.Dir())
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		var opts []ReportOption
		if inline {
			opts = append(opts, InlineFrames())
		}
		if err := Report(tr, &b, opts...); err != nil {
			t.Fatal(err)
		}
		html := b.String()
		for _, bad := range []string{"<img src=x", "<script", "</script>", "javascript:", "etc/passwd", "/etc/shadow"} {
			if strings.Contains(html, bad) {
				t.Errorf("inline=%v: report contains %q", inline, bad)
			}
		}
		if n := strings.Count(html, "&lt;img src=x onerror=alert(1)&gt;"); n < 8 {
			t.Errorf("inline=%v: escaped payload shown %d times, want every field (>= 8)", inline, n)
		}
	}
}

func TestReportInlineFrames(t *testing.T) {
	w, _ := writeSample(t, t.TempDir())
	tr, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Report(tr, &b, InlineFrames()); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if n := strings.Count(html, `src="data:image/png;base64,`); n != 5 {
		t.Errorf("%d inline frames, want 5 (steps 1-3, one attachment, final screen)", n)
	}
	if regexp.MustCompile(`src="frames/`).MatchString(html) {
		t.Error("an inline report still links frames/")
	}
}

func TestReportMissingFrames(t *testing.T) {
	w, _ := writeSample(t, t.TempDir())
	if err := os.RemoveAll(filepath.Join(w.Dir(), FramesDir)); err != nil {
		t.Fatal(err)
	}
	tr, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Report(tr, &b, InlineFrames()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "frame frames/0000.png is missing") {
		t.Error("a missing frame is not reported as missing")
	}
}
