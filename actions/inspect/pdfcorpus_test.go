package inspect_test

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"

	"deskpilot/actions/inspect"
)

// words splits text into lower-case words, joining words hyphenated at a
// line end first (pdftotext keeps the hyphen, the inspector joins them) and
// dropping page markers and notes.
func words(text string) []string {
	text = markers.ReplaceAllString(text, " ")
	text = strings.ReplaceAll(text, "-\n", "")
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) })
}

var markers = regexp.MustCompile(`<!-- Page \d+ of \d+ -->|\[(Pages|Page|Text recognised|This page)[^\]]*\]`)

// recall is the share of the reference's words found in got (as a
// multiset), and the share of its runs of five consecutive words found in
// got in the same order.
func recall(ref, got []string) (word, order float64) {
	have := map[string]int{}
	for _, w := range got {
		have[w]++
	}
	hit := 0
	for _, w := range ref {
		if have[w] > 0 {
			have[w]--
			hit++
		}
	}
	runs := func(ws []string) map[string]int {
		m := map[string]int{}
		for i := 0; i+5 <= len(ws); i++ {
			m[strings.Join(ws[i:i+5], " ")]++
		}
		return m
	}
	gotRuns, refRuns := runs(got), runs(ref)
	hitRuns, allRuns := 0, 0
	for r, n := range refRuns {
		allRuns += n
		hitRuns += min(n, gotRuns[r])
	}
	if len(ref) == 0 {
		return 1, 1
	}
	word = float64(hit) / float64(len(ref))
	order = word // too short for runs of five
	if allRuns > 0 {
		order = float64(hitRuns) / float64(allRuns)
	}
	return word, order
}

// TestPDFCorpus reads every PDF of testdata/pdf, each made for one of the
// ways PDFs defeat text extraction (see testdata/README.md), and compares
// the text with poppler's pdftotext output stored next to it: every file
// pdftotext reads must read, each with word recall of at least 0.95 and order
// recall (runs of five words) of at least 0.7 (a table read row by row where
// pdftotext reads it column by column scores lower), 0.85 on average.
func TestPDFCorpus(t *testing.T) {
	dir := filepath.Join(testdata(t), "pdf")
	in := inspect.New(inspect.Options{Roots: []string{dir}, Home: t.TempDir(), PDF: pdfEngine, MaxChars: 1 << 30})
	files, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
	sort.Strings(files)
	var sumWord, sumOrder float64
	n := 0
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			got, err := in.Inspect(t.Context(), f, "")
			refData, rerr := os.ReadFile(strings.TrimSuffix(f, ".pdf") + ".pdftotext.txt")
			switch {
			case name == "password.pdf":
				var fe *inspect.FormatError
				if !errors.As(err, &fe) || err.Error() != "pdf: file is password-protected: password.pdf" {
					t.Errorf("error = %v, want a password-protected FormatError", err)
				}
				return
			case name == "scanned.pdf":
				if err != nil || !strings.HasPrefix(got, "This PDF has no text layer (it is scanned): its page is an image.") {
					t.Errorf("scanned PDF: %q, %v", got, err)
				}
				return
			case err != nil:
				t.Fatalf("Inspect: %v", err)
			case rerr != nil:
				t.Fatalf("no reference text: %v", rerr)
			}
			w, o := recall(words(string(refData)), words(got))
			t.Logf("%-28s word recall %.3f  order recall %.3f", name, w, o)
			sumWord, sumOrder, n = sumWord+w, sumOrder+o, n+1
			if w < 0.95 || o < 0.7 {
				t.Errorf("word recall %.3f, order recall %.3f; want at least 0.95 and 0.7\n%s", w, o, got[:min(len(got), 1500)])
			}
		})
	}
	if n == 0 {
		t.Fatal("no PDFs in the corpus")
	}
	t.Logf("mean over %d files: word recall %.3f, order recall %.3f", n, sumWord/float64(n), sumOrder/float64(n))
	if sumOrder/float64(n) < 0.85 {
		t.Errorf("mean order recall %.3f, want at least 0.85", sumOrder/float64(n))
	}
}

// TestPDFPaging: a PDF longer than MaxChars comes a run of pages at a time,
// ending with how to read on; the next call starts at that page.
func TestPDFPaging(t *testing.T) {
	dir := filepath.Join(testdata(t), "pdf")
	in := inspect.New(inspect.Options{Roots: []string{dir}, Home: t.TempDir(), PDF: pdfEngine})
	long := filepath.Join(dir, "long.pdf")
	first, err := in.Read(t.Context(), inspect.Request{Path: long})
	if err != nil {
		t.Fatal(err)
	}
	note := regexp.MustCompile(`\[Pages 1–(\d+) of 90 shown\. Read on with inspect_file\("` + regexp.QuoteMeta(long) + `", page=(\d+)\)\.\]$`)
	m := note.FindStringSubmatch(first.Text)
	if m == nil {
		t.Fatalf("first read does not end with a note on reading on: %q", first.Text[max(0, len(first.Text)-200):])
	}
	if first.Page >= 90 || first.Pages != 90 || len([]rune(first.Text)) > inspect.DefaultMaxChars+200 {
		t.Errorf("first read: page %d of %d, %d characters", first.Page, first.Pages, len([]rune(first.Text)))
	}
	var next int
	fmt.Sscan(m[2], &next)
	rest, err := in.Read(t.Context(), inspect.Request{Path: long, Page: next})
	if err != nil || !strings.HasPrefix(rest.Text, fmt.Sprintf("<!-- Page %d of 90 -->", next)) || rest.Page != 90 {
		t.Errorf("second read: page %d, %v: %.80q", rest.Page, err, rest.Text)
	}
	if strings.Contains(rest.Text, "Read on with") {
		t.Error("the last part says to read on")
	}
	beyond, err := in.Read(t.Context(), inspect.Request{Path: long, Page: 500})
	if err != nil || beyond.Text != "The document has 90 pages; there is no page 500." {
		t.Errorf("page past the end: %q, %v", beyond.Text, err)
	}
}

// TestScannedPDF: without OCR the inspector says the PDF has no text layer;
// with OCR the rendered page goes to it; with a question and a model the page
// images go to the model.
func TestScannedPDF(t *testing.T) {
	dir := filepath.Join(testdata(t), "pdf")
	scanned := filepath.Join(dir, "scanned.pdf")
	var size image.Point
	ocr := func(_ context.Context, img image.Image) (string, error) {
		size = img.Bounds().Size()
		return "Scanned invoice number 4711", nil
	}
	in := inspect.New(inspect.Options{Roots: []string{dir}, Home: t.TempDir(), PDF: pdfEngine, OCR: ocr})
	got, err := in.Inspect(t.Context(), scanned, "")
	if err != nil || got != "<!-- Page 1 of 1 -->\n[Text recognised by OCR from the page image.]\nScanned invoice number 4711" {
		t.Errorf("with OCR: %q, %v", got, err)
	}
	if size.X < 1000 || size.Y < 400 {
		t.Errorf("page rendered at %v pixels, want about 1240 × 600", size)
	}
	m := &model{answer: "Invoice 4711."}
	asker := inspect.New(inspect.Options{Roots: []string{dir}, Home: t.TempDir(), PDF: pdfEngine, Ask: m.ask})
	got, err = asker.Inspect(t.Context(), scanned, "What is the invoice number?")
	if err != nil || got != "Invoice 4711." || len(m.images) != 1 || m.images[0].MIME != "image/png" {
		t.Errorf("question on a scanned PDF: %q, %v, %d images", got, err, len(m.images))
	}
	if !strings.Contains(m.text, "no text layer") {
		t.Errorf("the model was not told the PDF is scanned: %q", m.text)
	}
}

// TestPDFCancel: cancelling a read in the middle of a long PDF ends it
// within a second (the PDFium instance is killed), and the engine reads the
// next file as usual.
func TestPDFCancel(t *testing.T) {
	dir := filepath.Join(testdata(t), "pdf")
	in := inspect.New(inspect.Options{Roots: []string{dir}, Home: t.TempDir(), PDF: pdfEngine, MaxChars: 1 << 30})
	if _, err := pdfEngine.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var cancelled time.Time
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancelled = time.Now()
		cancel()
	}()
	_, err := in.Inspect(ctx, filepath.Join(dir, "long.pdf"), "")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if late := time.Since(cancelled); late > 5*time.Second {
		t.Errorf("the read ended %s after the cancel", late)
	}
	got, err := in.Inspect(t.Context(), filepath.Join(dir, "trivial-writer.pdf"), "")
	if err != nil || !strings.Contains(got, "Lorem ipsum") {
		t.Errorf("the engine did not recover: %v", err)
	}
}

// TestPDFMemoryCap: an engine whose memory cap is below what PDFium needs
// to start fails with an EngineError that says so — not a crash, and not a
// claim that the file is corrupt.
func TestPDFMemoryCap(t *testing.T) {
	dir := filepath.Join(testdata(t), "pdf")
	small := inspect.NewPDFEngine(inspect.PDFOptions{MaxMemory: 8 << 20})
	defer small.Close()
	in := inspect.New(inspect.Options{Roots: []string{dir}, Home: t.TempDir(), PDF: small})
	_, err := in.Inspect(t.Context(), filepath.Join(dir, "trivial-writer.pdf"), "")
	var ee *inspect.EngineError
	var fe *inspect.FormatError
	if !errors.As(err, &ee) || errors.As(err, &fe) || !strings.Contains(err.Error(), "over limit") {
		t.Errorf("error = %v, want an EngineError about the memory limit", err)
	}
}

// TestPDFCancelDuringStart: a cancel while the engine is still starting
// (compiling PDFium takes from one to many seconds) returns at once.
func TestPDFCancelDuringStart(t *testing.T) {
	dir := filepath.Join(testdata(t), "pdf")
	fresh := inspect.NewPDFEngine(inspect.PDFOptions{CacheDir: testCache})
	defer fresh.Close()
	in := inspect.New(inspect.Options{Roots: []string{dir}, Home: t.TempDir(), PDF: fresh})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := in.Inspect(ctx, filepath.Join(dir, "trivial-writer.pdf"), "")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error = %v, want the caller's deadline", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("returned %s after a 20ms deadline", d)
	}
}
