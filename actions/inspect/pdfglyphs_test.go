package inspect

import (
	"math"
	"strings"
	"testing"

	"github.com/klippa-app/go-pdfium/responses"
)

// setLine places text as glyphs on one line 10 points high: each rune
// width[r] wide (default w), the next one gap after it; a '_' is a gap
// of space points with no glyph, a ' ' a space glyph in the middle of it.
func setLine(text string, w, gap, space float64, width map[rune]float64) []glyph {
	var gs []glyph
	x := 0.0
	next := glyph{spaceMid: math.Inf(1)}
	for _, r := range text {
		switch r {
		case '_':
			x += space
			continue
		case ' ':
			next.space, next.spaceMid = true, x+space/2
			x += space
			continue
		}
		gw := w
		if v, ok := width[r]; ok {
			gw = v
		}
		next.r, next.pos = r, responses.CharPosition{Left: x, Right: x + gw, Top: 10, Bottom: 0}
		gs = append(gs, next)
		next = glyph{spaceMid: math.Inf(1)}
		x += gw + gap
	}
	return gs
}

func wordsOf(gs []glyph) string {
	var b strings.Builder
	for _, c := range glyphWords(gs) {
		b.WriteString(c.Text)
	}
	return b.String()
}

// Word breaks from the glyphs' spacing: letter-spaced monospaced code reads
// as words (go-lecture.pdf's beamer listings: 4.23-point glyphs 5.01 points
// apart, a gap of 0.12 of the text height), while a proportional font with
// the same gaps, kerning and spaces keep the rule by text height.
func TestGlyphWords(t *testing.T) {
	prop := map[rune]float64{'i': 2.2, 'l': 2.2, 'm': 7.5, 'w': 7, 'a': 5, 'r': 3.3, 'f': 3, 'o': 5.5, 'n': 5.5}
	tests := []struct {
		name string
		gs   []glyph
		want string
	}{
		{"monospaced, letter-spaced, words set apart by a pitch", setLine("var_omitNewline_=_flag.Bool", 6.4, 1.2, 7.6, nil), "var omitNewline = flag.Bool"},
		{"monospaced, letter-spaced, space glyphs between words", setLine("omitNewline IntSequence", 6.4, 1.2, 7.6, nil), "omitNewline IntSequence"},
		{"monospaced, set tight", setLine("fmt.Printf(x)", 6, 0, 6, nil), "fmt.Printf(x)"},
		{"proportional, letter-spaced: every gap past wordGap of the height", setLine("formal", 5, 1.2, 0, prop), "f o r m a l"},
		{"proportional, kerned, spaces by position alone", setLine("form_a_line", 5, 0.3, 3, prop), "form a line"},
		{"proportional, two pairs at one pitch by chance, a space between", setLine("nn_o", 5, 0.3, 2.5, map[rune]float64{'n': 5.5, 'o': 5.5}), "nn o"},
		{"space glyph inside the next glyph is kerning", []glyph{
			{r: 'A', pos: responses.CharPosition{Left: 0, Right: 6, Top: 10}, spaceMid: math.Inf(1)},
			{r: 'V', pos: responses.CharPosition{Left: 5.5, Right: 11.5, Top: 10}, space: true, spaceMid: 5.8},
		}, "AV"},
		{"a line break is kept, a space across lines too", []glyph{
			{r: 'a', pos: responses.CharPosition{Left: 0, Right: 5, Top: 30, Bottom: 20}, spaceMid: math.Inf(1)},
			{r: 'b', pos: responses.CharPosition{Left: 0, Right: 5, Top: 10}, newline: true, spaceMid: math.Inf(1)},
			{r: 'c', pos: responses.CharPosition{Left: 0, Right: 5, Top: -10, Bottom: -20}, space: true, spaceMid: math.Inf(1)},
		}, "a\nb c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := wordsOf(tt.gs); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
