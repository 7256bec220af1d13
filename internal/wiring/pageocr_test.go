//go:build linux && cgo && !noocr

package wiring

import (
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/actions/inspect"
	"deskpilot/agent"
)

// A PDF without a text layer (a scanned page) is read by the same OCR reader
// the agent reads the screen with: the inspector gets the page's words.
func TestScannedPDFThroughTheAgentsOCR(t *testing.T) {
	r, err := NewOCR()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a := &agent.Agent{Text: textReader{r}}
	dir, err := filepath.Abs(filepath.Join("..", "..", "actions", "inspect", "testdata", "pdf"))
	if err != nil {
		t.Fatal(err)
	}
	in := inspect.New(inspect.Options{Roots: []string{dir}, Home: t.TempDir(), OCR: pageOCR(a)})
	got, err := in.Inspect(t.Context(), filepath.Join(dir, "scanned.pdf"), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Scanned invoice number 4711", "1,250.00 EUR"} {
		if !strings.Contains(got, want) {
			t.Errorf("the scanned page read %q, missing %q", got, want)
		}
	}

	// Without an OCR engine the page says why it has no text.
	none := inspect.New(inspect.Options{Roots: []string{dir}, Home: t.TempDir(), OCR: pageOCR(&agent.Agent{})})
	if got, err := none.Inspect(t.Context(), filepath.Join(dir, "scanned.pdf"), ""); err == nil && strings.Contains(got, "4711") {
		t.Errorf("read text without an engine: %q", got)
	}
}
