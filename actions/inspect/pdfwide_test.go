package inspect_test

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"deskpilot/actions/inspect"
)

// TestPDFWideCorpus measures the inspector against pdftotext, run live, on
// every PDF under the folders DESKPILOT_PDF_CORPUS names (libraries' sample
// sets, too large to commit): how many files pdftotext reads, how many of
// those the inspector reads, their mean word and order recall, and the
// worst files. It only reports; the committed corpus is TestPDFCorpus's.
func TestPDFWideCorpus(t *testing.T) {
	dirs := filepath.SplitList(os.Getenv("DESKPILOT_PDF_CORPUS"))
	if len(dirs) == 0 {
		t.Skip("set DESKPILOT_PDF_CORPUS to a folder of PDFs (or a list, separated as in PATH)")
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext (poppler-utils) is not installed")
	}
	var files []string
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".pdf") {
				files = append(files, p)
			}
			return nil
		})
	}
	sort.Strings(files)
	in := inspect.New(inspect.Options{Roots: dirs, Home: t.TempDir(), PDF: pdfEngine, MaxChars: 1 << 30, MaxFileBytes: 1 << 30, MaxTime: 2 * time.Minute})
	type score struct {
		name        string
		word, order float64
		refWords    int
	}
	var scores []score
	refRead, weRead := 0, 0
	for _, f := range files {
		name := f
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		ref, _ := exec.CommandContext(ctx, "pdftotext", "-enc", "UTF-8", f, "-").Output()
		cancel()
		refWords := words(string(ref))
		if len(refWords) == 0 {
			continue
		}
		refRead++
		got, err := in.Inspect(t.Context(), f, "")
		if err != nil {
			t.Logf("%-70s inspector: %v", name, err)
		}
		gotWords := words(got)
		if len(gotWords) > 0 {
			weRead++
		}
		w, o := recall(refWords, gotWords)
		scores = append(scores, score{name, w, o, len(refWords)})
		t.Logf("%-70s %7d words  word recall %.3f  order recall %.3f", name, len(refWords), w, o)
	}
	if refRead == 0 {
		t.Fatal("pdftotext reads none of the files")
	}
	var sumWord, sumOrder float64
	for _, s := range scores {
		sumWord, sumOrder = sumWord+s.word, sumOrder+s.order
	}
	sort.SliceStable(scores, func(i, j int) bool { return scores[i].order < scores[j].order })
	for _, s := range scores[:min(len(scores), 12)] {
		t.Logf("worst: %-70s %7d words  word recall %.3f  order recall %.3f", s.name, s.refWords, s.word, s.order)
	}
	t.Logf("%d PDFs, pdftotext reads %d, the inspector %d of those; mean word recall %.3f, order recall %.3f",
		len(files), refRead, weRead, sumWord/float64(refRead), sumOrder/float64(refRead))
}
