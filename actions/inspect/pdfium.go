package inspect

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	pdferrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// PDFOptions configure a PDFEngine. The zero value is a working engine.
type PDFOptions struct {
	// CacheDir keeps PDFium's compiled machine code between processes, which
	// cuts the engine's start from seconds to under one; "" means
	// os.UserCacheDir()/deskpilot/pdfium, "-" means no cache (compile on every
	// start).
	CacheDir string
	// MaxMemory caps the memory of one PDFium instance, in bytes; 0 means
	// 512 MiB. A file that needs more fails with an error.
	MaxMemory int64
	// Workers is how many PDFs are read at once; 0 means 2. More calls wait.
	Workers int
}

// PDFEngine reads PDFs with PDFium, compiled to WebAssembly, embedded in the
// binary and run by a pure-Go runtime (wazero): no cgo, nothing to install,
// and the engine sees no file system (PDF bytes are handed over in memory).
// It starts on first use — compiling the module takes seconds without the
// cache — and then keeps a small pool of instances for the life of the
// process: share one engine between Inspectors (Options.PDF). It is safe for
// concurrent use; Close releases it.
type PDFEngine struct {
	opts PDFOptions

	once    sync.Once
	ready   chan struct{} // closed when starting is over
	pool    pdfium.Pool
	err     error
	startup time.Duration

	mu     sync.Mutex
	closed bool
}

// NewPDFEngine returns an engine that starts on first use.
func NewPDFEngine(o PDFOptions) *PDFEngine {
	if o.MaxMemory <= 0 {
		o.MaxMemory = 512 << 20
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	return &PDFEngine{opts: o}
}

// Start starts the engine now rather than on the first PDF (call it in the
// background at program start to hide the cost), waits until it is ready,
// and reports how long starting took.
func (e *PDFEngine) Start() (time.Duration, error) {
	_, err := e.instancePool(context.Background())
	return e.startup, err
}

// instancePool starts the engine once, in the background, and waits for it
// as long as ctx allows: a cancel during the seconds of compilation returns
// at once (the compilation finishes for the next caller).
func (e *PDFEngine) instancePool(ctx context.Context) (pdfium.Pool, error) {
	e.once.Do(func() {
		e.ready = make(chan struct{})
		go func() {
			defer close(e.ready)
			t0 := time.Now()
			e.pool, e.err = e.start()
			e.startup = time.Since(t0)
		}()
	})
	select {
	case <-e.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, errors.New("the PDF engine is closed")
	}
	return e.pool, e.err
}

func (e *PDFEngine) start() (pdfium.Pool, error) {
	rc := wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(uint32(min(e.opts.MaxMemory>>16, 65536)))
	if dir := e.cacheDir(); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err == nil {
			if cache, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
				rc = rc.WithCompilationCache(cache)
			}
		}
	}
	pool, err := webassembly.Init(webassembly.Config{
		MaxIdle:       e.opts.Workers,
		MaxTotal:      e.opts.Workers,
		ReuseWorkers:  true,
		FSConfig:      wazero.NewFSConfig(), // no file system at all
		Stdout:        io.Discard,
		Stderr:        io.Discard,
		RuntimeConfig: rc,
	})
	if err != nil {
		return nil, fmt.Errorf("start the PDF engine: %w", err)
	}
	return pool, nil
}

func (e *PDFEngine) cacheDir() string {
	switch e.opts.CacheDir {
	case "-":
		return ""
	case "":
		d, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(d, "deskpilot", "pdfium")
	}
	return e.opts.CacheDir
}

// Close stops the engine (waiting for a start under way); later reads fail.
func (e *PDFEngine) Close() error {
	e.once.Do(func() { e.ready = make(chan struct{}); close(e.ready) })
	<-e.ready
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	if e.pool != nil {
		return e.pool.Close()
	}
	return nil
}

// pdfRequest says which part of a PDF to read.
type pdfRequest struct {
	first  int // 1-based page to start at
	budget int // stop after the page that passes this many characters
	ocr    func(ctx context.Context, img image.Image) (string, error)
	images int // pages to render for the model when there is no text (0 = none)
}

// pdfDoc is what was read of a PDF.
type pdfDoc struct {
	pages       int      // in the document
	first, last int      // pages read, 1-based, inclusive
	text        []string // per page read
	noText      []int    // pages read that have no text layer
	ocred       []int    // pages whose text came from OCR
	rendered    []image.Image
}

// EngineError reports the PDF engine failing to start or to serve a read:
// a problem of this machine or configuration, not of the file.
type EngineError struct{ Err error }

// Error implements error.
func (e *EngineError) Error() string { return "the PDF engine failed: " + e.Err.Error() }

// Unwrap returns the cause.
func (e *EngineError) Unwrap() error { return e.Err }

// errEncrypted marks a PDF that needs a password.
var errEncrypted = errors.New("the file is password-protected")

// read opens data and extracts the requested pages. The work runs in a
// pooled PDFium instance; when ctx ends first the instance is killed, so
// cancellation ends even a hostile file within moments.
func (e *PDFEngine) read(ctx context.Context, data []byte, req pdfRequest) (*pdfDoc, error) {
	pool, err := e.instancePool(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &EngineError{err}
	}
	inst, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &EngineError{err}
	}
	type result struct {
		doc *pdfDoc
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r = result{nil, fmt.Errorf("PDF engine failed: %v", p)}
			}
			done <- r
		}()
		r.doc, r.err = readDoc(ctx, inst, data, req)
	}()
	select {
	case r := <-done:
		if r.err != nil && !errors.Is(r.err, errEncrypted) {
			_ = inst.Kill() // a failed instance may be in any state: start afresh
		} else {
			_ = inst.Close()
		}
		return r.doc, r.err
	case <-ctx.Done():
		_ = inst.Kill()
		return nil, ctx.Err()
	}
}

// maxRenderSide bounds the pixels of a page rendered for OCR or the model.
const maxRenderSide = 2000

func readDoc(ctx context.Context, inst pdfium.Pdfium, data []byte, req pdfRequest) (*pdfDoc, error) {
	empty := ""
	opened, err := inst.OpenDocument(&requests.OpenDocument{File: &data, Password: &empty})
	switch {
	case errors.Is(err, pdferrors.ErrPassword), errors.Is(err, pdferrors.ErrSecurity):
		return nil, errEncrypted
	case err != nil:
		return nil, pdfiumError(err)
	}
	doc := opened.Document
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc})
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc})
	if err != nil {
		return nil, pdfiumError(err)
	}
	out := &pdfDoc{pages: count.PageCount}
	if out.pages <= 0 {
		return nil, errors.New("the document has no pages")
	}
	if req.first > out.pages {
		return out, nil
	}
	out.first = max(req.first, 1)
	forms := newFormReader(inst, doc)
	defer forms.close()
	size := 0
	for i := out.first - 1; i < out.pages && i < out.first-1+maxPages; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fields := preparePage(inst, forms, doc, i)
		page := requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: i}}
		text := pageText(inst, page, fields)
		if text == "" {
			out.noText = append(out.noText, i+1)
			if req.ocr != nil || len(out.rendered) < req.images {
				if img, err := renderPage(inst, doc, i); err == nil {
					if req.ocr != nil {
						if t, err := req.ocr(ctx, img); err == nil && t != "" {
							text = t
							out.ocred = append(out.ocred, i+1)
						}
					} else {
						out.rendered = append(out.rendered, img)
					}
				}
			}
		}
		n := utf8.RuneCountInString(text) + 60 // the page marker and notes
		if len(out.text) > 0 && size+n > req.budget {
			break // this page starts the next part
		}
		out.text = append(out.text, text)
		out.last = i + 1
		size += n
		if size >= req.budget || size > maxOutput {
			break
		}
	}
	return out, nil
}

// preparePage reads page i's form widgets, then draws its annotations
// (filled-in form fields, stamps, free-text notes) into its content, as a
// viewer shows them, so their text is read with the page's; the document is
// the engine's copy, never written back. A page without annotations is left
// as it is.
func preparePage(inst pdfium.Pdfium, forms *formReader, doc references.FPDF_DOCUMENT, i int) []formField {
	p, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: i})
	if err != nil {
		return nil
	}
	defer inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: p.Page})
	fields := forms.pageFields(p.Page)
	inst.FPDFPage_Flatten(&requests.FPDFPage_Flatten{Page: requests.Page{ByReference: &p.Page}, Usage: requests.FPDFPage_FlattenUsageNormalDisplay})
	return fields
}

// pageText lays out one page's text with the values of its form fields
// (fields); a page PDFium cannot read (a broken content stream, an image it
// cannot decode) reads as its form values alone rather than failing the
// document.
func pageText(inst pdfium.Pdfium, page requests.Page, fields []formField) string {
	boxes, q, huge := pageBoxes(inst, page)
	if huge != "" {
		return joinSection(huge, formSection(fields))
	}
	for i, f := range fields {
		r := f.rect
		r.left, r.top, r.right, r.bottom = q.box(r.left, r.top, r.right, r.bottom)
		fields[i].rect = r
	}
	boxes, unplaced := mergeFields(boxes, fields)
	return joinSection(layoutPage(boxes), formSection(unplaced))
}

// joinSection puts a section after a page's text.
func joinSection(text, section string) string {
	switch {
	case section == "":
		return text
	case text == "":
		return section
	}
	return text + "\n\n" + section
}

// pageBoxes reads a page's text runs, turned back by the turn of most of
// its text (q), or for a page of more than maxPageChars characters its text
// in the file's order (huge).
func pageBoxes(inst pdfium.Pdfium, page requests.Page) (boxes []box, q turn, huge string) {
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: page})
	if err != nil {
		return nil, 0, ""
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	count, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil || count.Count <= 0 {
		return nil, 0, ""
	}
	if count.Count > maxPageChars {
		return nil, 0, hugePageText(inst, tp.TextPage, count.Count)
	}
	res, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, StartIndex: 0, Count: count.Count})
	if err != nil {
		return nil, 0, ""
	}
	runes := []rune(strings.TrimRight(res.Text, "\x00"))
	q = pageTurn(inst, tp.TextPage, runes)
	if len(runes) == count.Count {
		if boxes, ok := wordSegments(inst, tp.TextPage, runes, q); ok {
			return boxes, q, ""
		}
	}
	st, err := inst.GetPageTextStructured(&requests.GetPageTextStructured{Page: page, Mode: requests.GetPageTextStructuredModeChars})
	if err != nil || st == nil {
		return nil, q, ""
	}
	chars := st.Chars[:0:0]
	for i, c := range st.Chars {
		if r, _ := utf8.DecodeRuneInString(c.Text); c.Text == "" || !unmapped(inst, tp.TextPage, i, r) {
			p := &c.PointPosition // one per character, in the text page's order
			p.Left, p.Top, p.Right, p.Bottom = q.box(min(p.Left, p.Right), max(p.Top, p.Bottom), max(p.Left, p.Right), min(p.Top, p.Bottom))
			chars = append(chars, c)
		}
	}
	return segments(chars), q, ""
}

// wordSegments reads a page's text in one call and asks PDFium for the
// boxes of the first and last character of each word only — a tenth of the
// calls of asking for every character — then groups the words into runs as
// segments does, its boxes turned back by q. runes is the page's text, one
// rune per character; ok is false when a box cannot be read.
func wordSegments(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, runes []rune, q turn) ([]box, bool) {
	charBox := func(i int) (float64, float64, float64, float64, bool) {
		// The loose box spans the font's ascent to descent: every word of a
		// line gets the same height, which keeps line and paragraph gaps
		// apart.
		cb, err := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp, Index: i})
		if err != nil {
			return 0, 0, 0, 0, false
		}
		rc := cb.Rect
		l, r, t, b := float64(rc.Left), float64(rc.Right), float64(rc.Top), float64(rc.Bottom)
		l, t, r, b = q.box(min(l, r), max(t, b), max(l, r), min(t, b))
		return l, t, r, b, true
	}
	var chars []*responses.GetPageTextStructuredChar
	var prev *responses.CharPosition // the last word's last glyph
	for i := 0; i < len(runes); {
		if runes[i] == '\r' || runes[i] == '\n' {
			prev = nil
		}
		if isBreak(runes[i]) {
			chars = append(chars, &responses.GetPageTextStructuredChar{Text: string(runes[i])})
			i++
			continue
		}
		j := i
		for j < len(runes) && !isBreak(runes[j]) {
			j++
		}
		l1, t1, r1, b1, ok1 := charBox(i)
		l2, t2, r2, b2, ok2 := charBox(j - 1)
		if !ok1 || !ok2 {
			return nil, false
		}
		if t2 < b1 || t1 < b2 || l2 < l1-(t1-b1) {
			// The word is not on one line left to right: place it by its
			// first character only.
			l2, t2, r2, b2 = l1, t1, r1, b1
		}
		if prev != nil && i > 0 && runes[i-1] != '\r' && runes[i-1] != '\n' {
			h := max(min(t1-b1, prev.Top-prev.Bottom), 1)
			gap := l1 - prev.Right
			if min(t1, prev.Top)-max(b1, prev.Bottom) > 0.3*h && gap > -h && gap <= wordGap*h {
				return glyphSegments(inst, tp, runes, q)
			}
		}
		last := responses.CharPosition{Left: l2, Right: r2, Top: t2, Bottom: b2}
		prev = &last
		w := string(runes[i:j])
		if kept, ok := mappedRunes(inst, tp, runes, i, j); !ok {
			if kept == "" {
				i = j
				continue
			}
			w = kept
		}
		if t, ok := strings.CutSuffix(w, "\uFFFE"); ok {
			// PDFium's mark for a hyphen at a line end; inside a word that
			// goes on on the next line it is dropped (cleanRun), and the
			// word joined.
			w = t + "\x02"
		}
		chars = append(chars, &responses.GetPageTextStructuredChar{Text: w, PointPosition: responses.CharPosition{
			Left: min(l1, l2), Right: max(r1, r2), Top: max(t1, t2), Bottom: min(b1, b2),
		}})
		i = j
	}
	return segments(chars), true
}

// mappedRunes drops from runes[i:j] the characters PDFium could not map to
// Unicode and reports as their font's code instead (a CID font whose
// ToUnicode map leaves glyphs out, or maps them to nothing: its glyph
// numbers read as stray Greek or Cyrillic letters); pdftotext drops them
// too. Only codes past U+00FF are asked about: a simple font's unmapped
// code is often its letter (and costs no call). ok is true when nothing was
// dropped.
func mappedRunes(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, runes []rune, i, j int) (string, bool) {
	var b []rune
	dropped := false
	for k := i; k < j; k++ {
		if unmapped(inst, tp, k, runes[k]) {
			if !dropped {
				b = append(b, runes[i:k]...)
			}
			dropped = true
			continue
		}
		if dropped {
			b = append(b, runes[k])
		}
	}
	if !dropped {
		return "", true
	}
	return string(b), false
}

// unmapped reports whether character i (rune r) of a text page is a font
// code PDFium could not map to Unicode, for codes past U+00FF.
func unmapped(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, i int, r rune) bool {
	if r <= 0xFF || r == 0xFFFE {
		return false
	}
	e, err := inst.FPDFText_HasUnicodeMapError(&requests.FPDFText_HasUnicodeMapError{TextPage: tp, Index: i})
	return err == nil && e.HasUnicodeMapError
}

// isBreak reports the characters that separate words in PDFium's text.
func isBreak(r rune) bool {
	return r == ' ' || r == '\r' || r == '\n' || r == '\t' || r == '\u00a0'
}

// maxPageChars bounds the characters laid out on one page: placing each
// costs calls into the engine, so a page with more (machine-made or hostile)
// is read in PDFium's own order instead, cut at this many.
const maxPageChars = 100_000

// hugePageText reads a page of more than maxPageChars characters in one
// call, without positions, cut at maxPageChars.
func hugePageText(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, n int) string {
	res, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp, StartIndex: 0, Count: maxPageChars})
	if err != nil {
		return ""
	}
	text := strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == 2:
			return '-'
		case r < 0x20, r == 0x7f, r == 0xFFFE, r == 0xFFFF:
			return -1
		}
		return r
	}, res.Text)
	return fmt.Sprintf("%s\n[This page holds %d characters; the first %d are shown, in the order the file stores them.]", text, n, maxPageChars)
}

// segments groups PDFium's characters, in its text order, into runs of text
// on one line: a run ends at a line break PDFium made, at a jump back or down,
// or at a gap wider than one and a half characters (a column gutter or a
// table cell). Spaces PDFium inserted between words stay in the run, so word
// boundaries are PDFium's, which reads glyph spacing well.
func segments(chars []*responses.GetPageTextStructuredChar) []box {
	var out []box
	var cur *box
	var sb strings.Builder
	space := false
	flush := func() {
		if cur != nil {
			cur.text = sb.String()
			out = append(out, *cur)
		}
		cur, space = nil, false
		sb.Reset()
	}
	for _, c := range chars {
		if c == nil {
			continue
		}
		switch c.Text {
		case "\r", "\n", "\r\n":
			flush()
			continue
		case " ", "\t", "\u00a0":
			space = cur != nil
			continue
		case "":
			continue
		}
		p := c.PointPosition
		l, r := min(p.Left, p.Right), max(p.Left, p.Right)
		t, b := max(p.Top, p.Bottom), min(p.Top, p.Bottom)
		h := max(t-b, 1)
		if cur != nil {
			gap := l - cur.right
			sameLine := min(t, cur.top)-max(b, cur.bottom) > 0.3*min(h, cur.height())
			if !sameLine || gap > 1.5*max(h, cur.height()) || l < cur.left-h {
				flush()
			}
		}
		if cur == nil {
			cur = &box{left: l, right: r, top: t, bottom: b}
		} else {
			cur.left, cur.right = min(cur.left, l), max(cur.right, r)
			cur.top, cur.bottom = max(cur.top, t), min(cur.bottom, b)
			if space {
				sb.WriteByte(' ')
			}
		}
		space = false
		sb.WriteString(c.Text)
		if len(out) >= maxBoxes {
			break
		}
	}
	flush()
	return out
}

// renderPage renders page i at up to 150 dpi, keeping the longer side within
// maxRenderSide pixels, and copies the image out of the engine's memory.
func renderPage(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, i int) (image.Image, error) {
	size, err := inst.FPDF_GetPageSizeByIndex(&requests.FPDF_GetPageSizeByIndex{Document: doc, Index: i})
	if err != nil {
		return nil, err
	}
	side := max(size.Width, size.Height, 1)
	dpi := min(150, int(maxRenderSide*72/side))
	if dpi < 10 {
		return nil, errors.New("the page is too large to render")
	}
	res, err := inst.RenderPageInDPI(&requests.RenderPageInDPI{
		Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: i}},
		DPI:  dpi,
	})
	if err != nil {
		return nil, err
	}
	defer func() {
		if res.CleanupFunc != nil {
			res.CleanupFunc()
		}
	}()
	src := res.Result.RenderedImage
	if src == nil {
		return nil, errors.New("the page did not render")
	}
	b := src.Bounds()
	dst := image.NewRGBA(b)
	draw.Draw(dst, b, src, b.Min, draw.Src)
	return dst, nil
}

// pdfiumError words PDFium's error codes for the model.
func pdfiumError(err error) error {
	switch {
	case errors.Is(err, pdferrors.ErrFormat):
		return errors.New("not a PDF file, or damaged beyond repair")
	case errors.Is(err, pdferrors.ErrFile):
		return errors.New("the file cannot be read as a PDF")
	}
	return err
}
