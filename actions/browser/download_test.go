package browser_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/actions/browser"
	"deskpilot/actions/inspect"
)

// TestPDFDownloadIsInspected serves a PDF made by LibreOffice (the inspector's
// fixture); the browser saves it and shows the inspector's text of it.
func TestPDFDownloadIsInspected(t *testing.T) {
	pdf, err := os.ReadFile("../inspect/testdata/paper.pdf")
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(pdf)
	}))
	dir := t.TempDir()
	in := inspect.New(inspect.Options{Roots: []string{}, DownloadDir: dir, Home: t.TempDir()})
	b := open(t, browser.Options{
		DownloadDir: dir,
		Viewport:    200,
		Inspect: func(ctx context.Context, path string) (string, error) {
			return in.Inspect(ctx, path, "")
		},
	})
	ans := visit(t, b, srv.URL+"/reports/otters?id=3")
	saved := filepath.Join(dir, "otters.pdf")
	header, view := split(t, ans)
	if want := "Address: " + srv.URL + "/reports/otters?id=3\nTitle: otters.pdf\n"; !strings.HasPrefix(header, want) {
		t.Errorf("header = %q, want prefix %q", header, want)
	}
	if want := "# Download complete\n\nSaved the file (application/pdf, 21.9 KiB) to '" + saved + "'.\n\n<!-- Page 1 of 3 -->"; !strings.HasPrefix(view, want) {
		t.Errorf("first viewport = %q, want prefix %q", view, want)
	}
	got, err := os.ReadFile(saved)
	if err != nil || !bytes.Equal(got, pdf) {
		t.Fatalf("saved file differs: %v", err)
	}
	if ans := b.Find("repeated in 2025"); !strings.Contains(ans, "The survey will be repeated in 2025.") {
		t.Errorf("text of the last PDF page not found:\n%s", ans)
	}
}

func TestDownloadInspectorFails(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
		w.Write([]byte("PK\x03\x04 broken"))
	}))
	dir := t.TempDir()
	in := inspect.New(inspect.Options{Roots: []string{}, DownloadDir: dir, Home: t.TempDir()})
	b := open(t, browser.Options{DownloadDir: dir, Inspect: func(ctx context.Context, path string) (string, error) {
		return in.Inspect(ctx, path, "")
	}})
	ans := visit(t, b, srv.URL+"/minutes.docx")
	want := "Saved the file (application/vnd.openxmlformats-officedocument.wordprocessingml.document, 11 bytes) to '" +
		filepath.Join(dir, "minutes.docx") + "'. It could not be read as text: docx: file is corrupt or truncated: minutes.docx: not a valid zip package: zip: not a valid zip file"
	if !strings.Contains(ans, want) {
		t.Errorf("answer:\n%s\nwant it to contain:\n%s", ans, want)
	}
}
