package inspect

import (
	"math"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"
)

// glyphSegments asks PDFium for the box of each character of a page's text
// (turned back by q), decides the word breaks from the glyphs' spacing (glyphWords) and groups
// the runs as segments does; ok is false when a box cannot be read.
func glyphSegments(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, runes []rune, q turn) ([]box, bool) {
	looseBox := func(i int) (responses.CharPosition, bool) {
		// The loose box spans the font's ascent to descent: every glyph of
		// a line gets the same height, which keeps line and paragraph gaps
		// apart, and its width is the glyph's advance, so the gap to the
		// next glyph is the spacing the file set.
		cb, err := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp, Index: i})
		if err != nil {
			return responses.CharPosition{}, false
		}
		rc := cb.Rect
		l, r, t, b := float64(rc.Left), float64(rc.Right), float64(rc.Top), float64(rc.Bottom)
		l, t, r, b = q.box(min(l, r), max(t, b), max(l, r), min(t, b))
		return responses.CharPosition{Left: l, Right: r, Top: t, Bottom: b}, true
	}
	var gs []glyph
	next := glyph{spaceMid: math.Inf(1)} // what comes before the next glyph
	for i, r := range runes {
		switch {
		case r == '\r' || r == '\n':
			next = glyph{newline: true, spaceMid: math.Inf(1)}
			continue
		case isBreak(r):
			next.space = true
			if sp, ok := looseBox(i); ok && sp.Right > sp.Left {
				next.spaceMid = min(next.spaceMid, (sp.Left+sp.Right)/2)
			}
			continue
		}
		if unmapped(inst, tp, i, r) {
			continue // as mappedRunes
		}
		pos, ok := looseBox(i)
		if !ok {
			return nil, false
		}
		if r == 0xFFFE {
			r = 2 // PDFium's mark for a hyphen at a line end, as per character
		}
		next.r, next.pos = r, pos
		gs = append(gs, next)
		next = glyph{spaceMid: math.Inf(1)}
	}
	return segments(glyphWords(gs)), true
}

// glyph is one character PDFium placed, with what its text holds before it.
type glyph struct {
	r        rune
	pos      responses.CharPosition
	newline  bool    // a line break before it
	space    bool    // a space before it
	spaceMid float64 // the middle of the leftmost space glyph before it; +Inf = none
}

// glyphWords decides the word breaks between glyphs from their spacing
// alone, rather than from PDFium's spaces, which turn kerning in a TJ array
// into spaces (splitting words) and miss words set apart by positioning alone
// (gluing them). On one line, a break is:
//   - a gap wider than wordGap of the text height, except between glyphs of
//     one width set at an even pitch (the same distance from one glyph's left
//     edge to the next as in a neighbouring pair of that width), where it must
//     also pass monoGap of the pitch: letter-spaced monospaced code (beamer
//     listings, letters 0.12 of the text height apart) reads as words;
//   - a space glyph the next glyph starts after; a space inside the next
//     glyph's box is kerning PDFium took for a space.
//
// Across lines a space before the glyph is a break, and a line break is kept.
func glyphWords(gs []glyph) []*responses.GetPageTextStructuredChar {
	var chars []*responses.GetPageTextStructuredChar
	line := func(i int) bool { return i > 0 && i < len(gs) && !gs[i].newline && sameLine(gs[i-1].pos, gs[i].pos) }
	for i, g := range gs {
		if g.newline && i > 0 {
			chars = append(chars, &responses.GetPageTextStructuredChar{Text: "\n"})
		}
		if i > 0 && !g.newline {
			prev := gs[i-1].pos
			h := max(min(g.pos.Top-g.pos.Bottom, prev.Top-prev.Bottom), 1)
			gap := g.pos.Left - prev.Right
			limit := wordGap * h
			pitch := g.pos.Left - prev.Left
			width := g.pos.Right - g.pos.Left
			same := func(j int) bool { // glyph j is as wide as glyph i
				return math.Abs(gs[j].pos.Right-gs[j].pos.Left-width) <= pitchTolerance*h
			}
			even := func(j int) bool { // the pair ending at glyph j has the same pitch and widths
				return line(j) && math.Abs(gs[j].pos.Left-gs[j-1].pos.Left-pitch) <= pitchTolerance*h && same(j) && same(j-1)
			}
			if line(i) && (even(i-1) || even(i+1)) {
				limit = max(limit, monoGap*pitch)
			}
			if (line(i) && (gap > limit || g.pos.Left >= g.spaceMid)) || (!line(i) && g.space) {
				chars = append(chars, &responses.GetPageTextStructuredChar{Text: " "})
			}
		}
		chars = append(chars, &responses.GetPageTextStructuredChar{Text: string(g.r), PointPosition: g.pos})
	}
	return chars
}

// sameLine reports whether glyph b follows glyph a on one line: their boxes
// overlap by more than 0.3 of the text height, and b does not start more than
// a text height left of a's end.
func sameLine(a, b responses.CharPosition) bool {
	h := max(min(b.Top-b.Bottom, a.Top-a.Bottom), 1)
	return min(b.Top, a.Top)-max(b.Bottom, a.Bottom) > 0.3*h && b.Left-a.Right > -h
}

// wordGap is the least gap between two glyphs, as a share of the text
// height, that separates words: a space is about a quarter of it, kerning
// under a twentieth, the letter spacing of a listing's keywords 0.085 to
// 0.13 (docs/benchmarks-documents.md: a tenth read those as "fu n c").
const wordGap = 0.07

// monoGap is the least gap, as a share of the pitch, that separates words
// between glyphs at an even pitch. Letter spacing is under a fifth of the
// pitch; a space in a proportional font that happens to give two pairs the
// same pitch is over a third of it; in a monospaced font a space is a whole
// pitch.
const monoGap = 0.25

// pitchTolerance is how far, as a share of the text height, two pitches may
// differ and still be even (PDFium's boxes are rounded to the font's units).
const pitchTolerance = 0.03
