package inspect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ledongthuc/pdf"
)

// maxPages bounds the pages read from one PDF.
const maxPages = 2000

// errEncrypted marks a PDF that needs a password.
var errEncrypted = errors.New("the file is password-protected")

// pdfConvert extracts a PDF's text page by page, each page introduced by
// "<!-- Page N of M -->". Lines are rebuilt from glyph positions (top to
// bottom, left to right, a space where glyphs leave a gap, a blank line
// between paragraphs), which reads single-column documents in order.
func pdfConvert(ctx context.Context, data []byte) (string, error) {
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if errors.Is(err, pdf.ErrInvalidPassword) {
		return "", errEncrypted
	}
	if err != nil {
		return "", err
	}
	n := r.NumPage()
	if n <= 0 {
		return "", errors.New("the page tree is missing or empty")
	}
	var b strings.Builder
	read := 0
	for i := 1; i <= min(n, maxPages); i++ {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		pg := r.Page(i)
		if pg.V.IsNull() {
			if i == 1 {
				return "", errors.New("the first page cannot be found")
			}
			fmt.Fprintf(&b, "\n\n[Pages %d to %d cannot be found in the file.]", i, n)
			break
		}
		if i > 1 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "<!-- Page %d of %d -->\n", i, n)
		text, err := pageText(pg)
		if err != nil {
			fmt.Fprintf(&b, "[This page could not be read: %v]", err)
			continue
		}
		read++
		b.WriteString(text)
		if b.Len() > maxOutput {
			b.WriteString("\n\n[The document is too long; the rest was not read.]")
			break
		}
	}
	if read == 0 {
		return "", errors.New("no page could be read")
	}
	if n > maxPages {
		fmt.Fprintf(&b, "\n\n[Only the first %d of %d pages were read.]", maxPages, n)
	}
	return b.String(), nil
}

// pageText lays out one page's glyphs as lines of text.
func pageText(pg pdf.Page) (text string, err error) {
	defer func() {
		if p := recover(); p != nil {
			text, err = "", fmt.Errorf("%v", p)
		}
	}()
	contents := pg.V.Key("Contents")
	if contents.IsNull() {
		return "", nil
	}
	w := &glyphWalker{page: pg, fonts: map[string]*pdfFont{}, st: textState{ctm: identity, scale: 1}}
	pdf.Interpret(contents, w.op)
	return layoutText(w.glyphs), nil
}

// layoutText groups glyphs into lines by their baseline, orders each line by
// x, inserts spaces at gaps and blank lines at paragraph gaps.
func layoutText(glyphs []pdf.Text) string {
	if len(glyphs) == 0 {
		return ""
	}
	g := append([]pdf.Text(nil), glyphs...)
	sort.SliceStable(g, func(i, j int) bool { return g[i].Y > g[j].Y })
	type line struct {
		y, size float64
		glyphs  []pdf.Text
	}
	var lines []*line
	for _, t := range g {
		size := max(t.FontSize, 1)
		if l := lastLine(lines); l != nil && l.y-t.Y <= 0.5*max(l.size, size) {
			l.glyphs = append(l.glyphs, t)
			l.size = max(l.size, size)
			continue
		}
		lines = append(lines, &line{y: t.Y, size: size, glyphs: []pdf.Text{t}})
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
			if gap := lines[i-1].y - l.y; gap > 1.5*max(lines[i-1].size, l.size) {
				b.WriteByte('\n')
			}
		}
		sort.SliceStable(l.glyphs, func(i, j int) bool { return l.glyphs[i].X < l.glyphs[j].X })
		var prev *pdf.Text
		for k := range l.glyphs {
			t := &l.glyphs[k]
			if prev != nil && t.X-(prev.X+prev.W) > 0.2*l.size &&
				!strings.HasSuffix(prev.S, " ") && !strings.HasPrefix(t.S, " ") {
				b.WriteByte(' ')
			}
			b.WriteString(t.S)
			prev = t
		}
	}
	return b.String()
}

func lastLine[T any](s []*T) *T {
	if len(s) == 0 {
		return nil
	}
	return s[len(s)-1]
}
