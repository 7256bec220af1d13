package checks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"deskpilot/internal/smallfile"
)

// This file reads PDFs' text for the metrics as PyMuPDF's page.get_text()
// gives it, with PDFium compiled to WebAssembly (the engine the file
// inspector uses too): the PDF's lines, each ended by "\n". A reader lives
// for one metric call; its compiled code is cached on disk, so starting one
// takes under a second after the first.

// pdfReadTimeout bounds the reading of the PDFs of one metric call.
const pdfReadTimeout = 2 * time.Minute

// pdfReader is a started PDFium instance; not safe for concurrent use.
type pdfReader struct {
	pool pdfium.Pool
	inst pdfium.Pdfium
}

func newPDFReader(ctx context.Context) (*pdfReader, error) {
	rc := wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(512 << 20 >> 16)
	if d, err := os.UserCacheDir(); err == nil {
		dir := filepath.Join(d, "deskpilot", "pdfium")
		if err := os.MkdirAll(dir, 0o700); err == nil {
			if cache, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
				rc = rc.WithCompilationCache(cache)
			}
		}
	}
	pool, err := webassembly.Init(webassembly.Config{
		MaxIdle: 1, MaxTotal: 1, FSConfig: wazero.NewFSConfig(),
		Stdout: io.Discard, Stderr: io.Discard, RuntimeConfig: rc,
	})
	if err != nil {
		return nil, fmt.Errorf("start the PDF reader: %w", err)
	}
	inst, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("start the PDF reader: %w", err)
	}
	return &pdfReader{pool: pool, inst: inst}, nil
}

func (r *pdfReader) close() {
	_ = r.inst.Kill()
	_ = r.pool.Close()
}

// pageTexts reads the text of each page of the PDF at p.
func (r *pdfReader) pageTexts(ctx context.Context, p string) ([]string, error) {
	var pages []string
	err := r.eachPage(ctx, p, func(doc references.FPDF_DOCUMENT, i int) error {
		page := requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: i}}
		t, err := r.inst.GetPageText(&requests.GetPageText{Page: page})
		if err != nil {
			return fmt.Errorf("%s: page %d: %w", p, i+1, err)
		}
		pages = append(pages, mupdfLines(t.Text))
		return nil
	})
	return pages, err
}

// eachPage opens the PDF at p (at most maxDocFile) and calls f with each of
// its pages in turn, from 0, until f fails or ctx ends; a panic of the
// reader is an error.
func (r *pdfReader) eachPage(ctx context.Context, p string, f func(doc references.FPDF_DOCUMENT, i int) error) (err error) {
	data, err := smallfile.Read(p, maxDocFile)
	if err != nil {
		return err
	}
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("%s: the PDF reader failed: %v", p, x)
		}
	}()
	empty := ""
	doc, err := r.inst.OpenDocument(&requests.OpenDocument{File: &data, Password: &empty})
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	defer r.inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	n, err := r.inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	for i := range n.PageCount {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := f(doc.Document, i); err != nil {
			return err
		}
	}
	return nil
}

// mupdfLines turns PDFium's page text ("\r\n" between lines) into
// PyMuPDF's (each line ended by "\n").
func mupdfLines(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.ReplaceAll(s, "\x00", "")
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// withPDFs runs f with a reader, bounded by pdfReadTimeout.
func withPDFs[T any](ctx context.Context, f func(ctx context.Context, r *pdfReader) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, pdfReadTimeout)
	defer cancel()
	var zero T
	r, err := newPDFReader(ctx)
	if err != nil {
		return zero, err
	}
	defer r.close()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f(ctx, r)
		done <- result{v, err}
	}()
	select {
	case res := <-done:
		return res.v, res.err
	case <-ctx.Done():
		return zero, fmt.Errorf("reading the PDFs: %w", ctx.Err())
	}
}

// pdfMetrics are OSWorld's PDF metrics.
func pdfMetrics() map[string]Metric {
	return map[string]Metric{
		"compare_pdfs":    {Fn: comparePdfs},
		"check_pdf_pages": {Fn: checkPdfPages, Check: rulesWith("relation", "ref_value")},
	}
}

// comparePdfs is compare_pdfs: the similarity (fuzz.ratio) of the PDFs'
// texts, pair by pair for lists, averaged over the expected ones; a pair
// that cannot be read scores 0.
func comparePdfs(ctx context.Context, c Call) (Score, error) {
	var got, want []any
	if l, ok := c.Expected.([]any); ok {
		want = l
		if got, ok = c.Result.([]any); !ok {
			return Score{}, fmt.Errorf("TypeError: the result is %s, the expected value a list", PyType(c.Result))
		}
	} else {
		got, want = []any{c.Result}, []any{c.Expected}
	}
	if len(want) == 0 {
		return Score{}, errors.New("ZeroDivisionError: no expected PDFs")
	}
	return withPDFs(ctx, func(ctx context.Context, r *pdfReader) (Score, error) {
		total := 0.0
		var notes []string
		for i := range min(len(got), len(want)) {
			t1, err1 := r.pdfText(ctx, got[i])
			t2, err2 := r.pdfText(ctx, want[i])
			if err1 != nil || err2 != nil {
				notes = append(notes, fmt.Sprintf("pair %d: %v", i+1, errors.Join(err1, err2)))
				continue
			}
			v, err := fuzzRatio(t1, t2)
			if err != nil {
				return Score{}, err
			}
			total += v
			if v < 1 {
				notes = append(notes, fmt.Sprintf("pair %d: text similarity %.3f", i+1, v))
			}
		}
		return Score{Value: total / float64(len(want)), Note: strings.Join(notes, "; ")}, nil
	})
}

// pdfText is extract_text_from_pdf: all pages' text, stripped.
func (r *pdfReader) pdfText(ctx context.Context, v any) (string, error) {
	p, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("want a PDF path, got %s", PyType(v))
	}
	pages, err := r.pageTexts(ctx, p)
	if err != nil {
		return "", err
	}
	return pyStrip(strings.Join(pages, "")), nil
}

// checkPdfPages is check_pdf_pages: the page count related to
// rules["ref_value"] by the operator module's function rules["relation"].
func checkPdfPages(ctx context.Context, c Call) (Score, error) {
	if c.Result == nil {
		return Score{Note: "no PDF"}, nil
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	rel, _ := r["relation"].(string)
	ref, ok := PyNumber(r["ref_value"])
	if !ok {
		return Score{}, fmt.Errorf("ref_value: want a number, got %s", PyType(r["ref_value"]))
	}
	p, ok := c.Result.(string)
	if !ok {
		return Score{}, fmt.Errorf("want a PDF path, got %s", PyType(c.Result))
	}
	n, err := withPDFs(ctx, func(ctx context.Context, rd *pdfReader) (int, error) {
		pages, err := rd.pageTexts(ctx, p)
		return len(pages), err
	})
	if err != nil {
		return Score{}, err
	}
	x := float64(n)
	var ok2 bool
	switch rel {
	case "eq":
		ok2 = x == ref
	case "ne":
		ok2 = x != ref
	case "lt":
		ok2 = x < ref
	case "le":
		ok2 = x <= ref
	case "gt":
		ok2 = x > ref
	case "ge":
		ok2 = x >= ref
	default:
		return Score{}, fmt.Errorf("relation %q: not an operator comparison", rel)
	}
	if !ok2 {
		return Score{Note: fmt.Sprintf("%d pages, want %s %v", n, rel, ref)}, nil
	}
	return Score{Value: 1}, nil
}
