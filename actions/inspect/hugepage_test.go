package inspect_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"deskpilot/actions/inspect"
)

// writeHugePagePDF writes a one-page PDF whose compressed content stream
// shows "hello world" n times, each at its own place (a grid of tiny text).
func writeHugePagePDF(t *testing.T, p string, n int) {
	t.Helper()
	var raw bytes.Buffer
	for i := range n {
		fmt.Fprintf(&raw, "BT /F1 1 Tf 1 0 0 1 %d %d Tm (hello world) Tj ET\n", i%100*6, i/100%700+50)
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(raw.Bytes())
	w.Close()
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.String()),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var out bytes.Buffer
	out.WriteString("%PDF-1.4\n")
	var offs []int
	for i, o := range objs {
		offs = append(offs, out.Len())
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	x := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&out, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, x)
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHugePage: a page of 165,000 characters is read without placing each
// one (the first 100,000, in file order, with a note); a page whose content
// stream PDFium needs minutes to parse is stopped at MaxTime with an error
// saying so, and the engine reads the next file.
func TestHugePage(t *testing.T) {
	dir := t.TempDir()
	many, slow := filepath.Join(dir, "many.pdf"), filepath.Join(dir, "slow.pdf")
	writeHugePagePDF(t, many, 15_000)
	writeHugePagePDF(t, slow, 1_000_000)
	in := inspect.New(inspect.Options{Roots: []string{dir}, Home: t.TempDir(), PDF: pdfEngine})
	got, err := in.Inspect(t.Context(), many, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "hello world") || !strings.Contains(got, "[This page holds 1") || len(got) > 150_000 {
		t.Errorf("page of many characters: %d bytes: %.200q … %.200q", len(got), got, got[max(0, len(got)-200):])
	}
	short := inspect.New(inspect.Options{Roots: []string{dir}, Home: t.TempDir(), PDF: pdfEngine, MaxTime: 2 * time.Second})
	start := time.Now()
	_, err = short.Inspect(t.Context(), slow, "")
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "longer than the 2s allowed for one file") {
		t.Errorf("slow page: error = %v, want the time limit", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the slow page was stopped after %s", d)
	}
	if _, err := in.Inspect(t.Context(), many, ""); err != nil {
		t.Errorf("the engine did not recover: %v", err)
	}
}
