package checks

import (
	"archive/zip"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// copyTestdata copies testdata files into a fresh folder (the archive
// metrics unpack next to their inputs) and returns the folder.
func copyTestdata(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		data, err := os.ReadFile(td(n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCompareArchive runs compare_archive and compare_zip_files on archives
// zip and tar made of Writer's PDFs and text files (testdata/make.sh). Each
// want is what OSWorld's function (metrics/chrome.py and metrics/vscode.py
// at eac51b51) gave on the same files, with PyMuPDF 1.21.1 for compare_pdfs
// and pypdf 3.4.1 standing in for PyPDF2 in compare_zip_files (the modules
// chrome.py imports but these functions do not use were stubbed).
// compare_zip_files compares PDF members by their text's difflib ratio;
// here the text comes from PDFium, not pypdf.
func TestCompareArchive(t *testing.T) {
	dir := copyTestdata(t, "arc-gold.zip", "arc-word.zip", "arc-missing.zip", "arc-gold.tar.gz", "arc-text.zip", "arc-text2.zip",
		"zip-gold.zip", "zip-word.zip", "zip-pdfword.zip", "zip-notes.zip")
	slides := map[string]any{"file_path": "lecture_slides", "file_type": "pdf"}
	tests := []struct {
		metric, result, expected string
		opts                     map[string]any
		want                     string
	}{
		{"compare_archive", "arc-gold.zip", "arc-gold.zip", slides, "1"},
		{"compare_archive", "arc-word.zip", "arc-gold.zip", slides, "0.9778761061946903"},
		{"compare_archive", "arc-missing.zip", "arc-gold.zip", slides, "0"},
		{"compare_archive", "arc-gold.tar.gz", "arc-gold.zip", slides, "1"},
		{"compare_archive", "arc-word.zip", "arc-gold.zip", map[string]any{"file_type": "pdf"}, "0"},
		{"compare_archive", "arc-text2.zip", "arc-text.zip", nil, "0.5"},
		{"compare_archive", "arc-text2.zip", "arc-text.zip", map[string]any{"ignore_blanks": true}, "1"},
		{"compare_archive", "arc-text.zip", "arc-text.zip", map[string]any{"file_type": "xls"}, "error"},
		{"compare_zip_files", "zip-gold.zip", "zip-gold.zip", nil, "1"},
		{"compare_zip_files", "zip-word.zip", "zip-gold.zip", nil, "1"},
		{"compare_zip_files", "zip-pdfword.zip", "zip-gold.zip", nil, "0"},
		{"compare_zip_files", "zip-notes.zip", "zip-gold.zip", nil, "0"},
	}
	for _, tt := range tests {
		t.Run(tt.metric+"/"+tt.result, func(t *testing.T) {
			m, _ := Lookup(tt.metric)
			s, err := m.Fn(t.Context(), Call{Result: filepath.Join(dir, tt.result), Expected: filepath.Join(dir, tt.expected), Options: tt.opts})
			if tt.want == "error" {
				if err == nil {
					t.Errorf("= %v, want an error", s.Value)
				}
				return
			}
			var want float64
			if _, err := fmt.Sscan(tt.want, &want); err != nil {
				t.Fatal(err)
			}
			if err != nil || math.Abs(s.Value-want) > 1e-12 {
				t.Errorf("= %v (%s), %v; want %v", s.Value, s.Note, err, want)
			}
		})
	}
}

// TestUnpackHostile: an entry that climbs out of the folder lands inside it
// (its ".." dropped, as Python's zipfile does), never outside.
func TestUnpackHostile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "evil.zip")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := zip.NewWriter(f)
	for _, n := range []string{"ok.txt", "../../escaped.txt"} {
		e, _ := w.Create(n)
		e.Write([]byte("x"))
	}
	w.Close()
	f.Close()
	out := filepath.Join(dir, "out", "evil_pred")
	if err := unpackArchive(p, out); err != nil {
		t.Fatal(err)
	}
	for _, outside := range []string{filepath.Join(dir, "escaped.txt"), filepath.Join(dir, "out", "escaped.txt")} {
		if _, err := os.Stat(outside); err == nil {
			t.Errorf("an entry was written outside the folder: %s", outside)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "escaped.txt")); err != nil {
		t.Errorf("the climbing entry is not inside the folder: %v", err)
	}
}
