package ocr

import (
	"cmp"
	"image"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Match is a place where the text asked for was read.
type Match struct {
	// Text is what was read there: the matched words, or the part of a word
	// that matched.
	Text string
	// Box is the matched text's box in the frame's pixels; Center is where to
	// click.
	Box image.Rectangle
	// Score is 1 for the text as asked (case and spaces aside) standing as
	// whole words, a little less for part of a word or for OCR look-alikes
	// (l/1/I, O/0, rn/m), and down to MinScore for a few edits.
	Score float64
	// Line is the whole line the match is on, for context.
	Line string
}

// Center returns the centre of the match's box.
func (m Match) Center() image.Point { return center(m.Box) }

// Scores of Find, best first.
const (
	scoreWhole     = 1.0  // the text as asked, whole words
	scorePart      = 0.9  // inside a longer word ("Char" in "Charlie")
	scoreLookWhole = 0.95 // the same up to OCR look-alikes, whole words
	scoreLookPart  = 0.85
	// MinScore is the lowest score Find returns: a fuzzy match with edits on
	// up to a fifth of the text's characters scores between MinScore and 0.8.
	MinScore = 0.6
)

// Limits that keep matching bounded on hostile input.
const (
	// maxQuery is the most runes of a query that are matched; the rest is
	// ignored.
	maxQuery = 256
	// maxFuzzyQuery is the longest query matched with edits (the edit
	// distance costs query length x line length per line).
	maxFuzzyQuery = 64
	// maxMatches bounds the matches Find returns.
	maxMatches = 100
)

// Find returns where text was read, best first (then top to bottom, left to
// right), at most 100 matches.
//
// By default (exact false) case, accents' compatibility forms and white
// space are ignored, a phrase matches across the words of one line ("save
// as" finds "Save As" and "SaveAs"), OCR look-alikes are equal (l, 1, I, |
// and !; O and 0; rn and m; vv and w), and a text of 4 or more characters
// may differ by a few edits (one per 5 characters); see Match.Score. With
// exact true, text must appear case-sensitively as whole words (punctuation
// may border it: "Save" is found in "[Save]" but not in "Saved"), white space
// runs counting as one space.
//
// A text without letters, digits or symbols finds nothing.
func (t *Text) Find(text string, exact bool) []Match {
	var out []Match
	if exact {
		q := strings.Join(strings.Fields(truncRunes(text, maxQuery)), " ")
		if q == "" {
			return nil
		}
		for _, l := range t.Lines {
			out = append(out, findExact(l, q)...)
		}
	} else {
		q := fold(truncRunes(text, maxQuery))
		if len(q.plain) == 0 {
			return nil
		}
		for _, l := range t.Lines {
			out = append(out, findFuzzy(l, q)...)
		}
	}
	sortMatches(out)
	if len(out) > maxMatches {
		out = out[:maxMatches]
	}
	return out
}

// Closest returns up to n places whose text is most like text, best first,
// whatever their score: what an observation shows when Find found nothing
// ("not found; closest: ..."). Each line contributes its best place, widened
// to whole words; Score is 1 minus the edits per character of text.
func (t *Text) Closest(text string, n int) []Match {
	q := fold(truncRunes(text, maxFuzzyQuery))
	if len(q.plain) == 0 || n <= 0 {
		return nil
	}
	var out []Match
	for _, l := range t.Lines {
		lf := foldLine(l)
		if len(lf.look) == 0 {
			continue
		}
		d, s, e := bestSubstring(q.look, lf.look)
		score := 1 - float64(d)/float64(max(len(q.look), 1))
		s, e = wholeWords(lf.lookSrc, s, e)
		out = append(out, matchAt(l, lf.lookSrc, s, e, max(score, 0)))
	}
	sortMatches(out)
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func sortMatches(m []Match) {
	slices.SortStableFunc(m, func(a, b Match) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Box.Min.Y, b.Box.Min.Y), cmp.Compare(a.Box.Min.X, b.Box.Min.X))
	})
}

// findExact finds q (white space collapsed) case-sensitively as whole words
// in l.
func findExact(l Line, q string) []Match {
	// The line's text joined by single spaces, with each rune's word and
	// rune offset in that word.
	var src []srcRune
	var text []rune
	for wi, w := range l.Words {
		if wi > 0 {
			text = append(text, ' ')
			src = append(src, srcRune{word: wi, at: -1})
		}
		for ri, r := range []rune(w.Text) {
			text = append(text, r)
			src = append(src, srcRune{word: wi, at: ri, end: ri + 1})
		}
	}
	qr := []rune(q)
	var out []Match
	for s := 0; s+len(qr) <= len(text); s++ {
		if !slices.Equal(text[s:s+len(qr)], qr) {
			continue
		}
		e := s + len(qr)
		if s > 0 && isWordRune(text[s-1]) && isWordRune(text[s]) {
			continue
		}
		if e < len(text) && isWordRune(text[e]) && isWordRune(text[e-1]) {
			continue
		}
		out = append(out, matchAt(l, src, s, e, scoreWhole))
		s = e - 1
	}
	return out
}

// findFuzzy finds q in l: as is, up to look-alikes, or with a few edits.
func findFuzzy(l Line, q folded) []Match {
	lf := foldLine(l)
	var out []Match
	for _, s := range indexAll(lf.plain, q.plain) {
		e := s + len(q.plain)
		score := pick(whole(lf.plain, lf.src, s, e), scoreWhole, scorePart)
		out = append(out, matchAt(l, lf.src, s, e, score))
	}
	if len(out) > 0 {
		return out
	}
	for _, s := range indexAll(lf.look, q.look) {
		e := s + len(q.look)
		score := pick(whole(lf.look, lf.lookSrc, s, e), scoreLookWhole, scoreLookPart)
		out = append(out, matchAt(l, lf.lookSrc, s, e, score))
	}
	if len(out) > 0 || len(q.look) < 4 || len(q.look) > maxFuzzyQuery {
		return out
	}
	allowed := len(q.look) / 5
	if d, s, e := bestSubstring(q.look, lf.look); d <= allowed && e > s {
		score := math.Round(100*(0.8-(0.8-MinScore)*float64(d)/float64(max(allowed, 1)))) / 100
		out = append(out, matchAt(l, lf.lookSrc, s, e, score))
	}
	return out
}

// wholeWords widens runes [s, e) to the words they touch.
func wholeWords(src []srcRune, s, e int) (int, int) {
	if s >= e || e > len(src) {
		return s, e
	}
	for s > 0 && src[s-1].word == src[s].word {
		s--
	}
	for e < len(src) && src[e].word == src[e-1].word {
		e++
	}
	return s, e
}

func pick(whole bool, a, b float64) float64 {
	if whole {
		return a
	}
	return b
}

// indexAll returns the starts of the non-overlapping occurrences of q in t.
func indexAll(t, q []rune) []int {
	var out []int
	for s := 0; s+len(q) <= len(t); s++ {
		if slices.Equal(t[s:s+len(q)], q) {
			out = append(out, s)
			s += len(q) - 1
		}
	}
	return out
}

// bestSubstring returns the smallest edit distance between q and a substring
// of t, and that substring's bounds [s, e) (the shortest, leftmost one). It
// costs len(q) x len(t).
func bestSubstring(q, t []rune) (d, s, e int) {
	if len(q) == 0 {
		return 0, 0, 0
	}
	// prev[j], cur[j]: distance of q[:i] to the best substring of t ending at
	// j; start[j] where that substring starts.
	prev, cur := make([]int, len(t)+1), make([]int, len(t)+1)
	pstart, cstart := make([]int, len(t)+1), make([]int, len(t)+1)
	for j := range prev {
		pstart[j] = j
	}
	for i := 1; i <= len(q); i++ {
		cur[0], cstart[0] = i, 0
		for j := 1; j <= len(t); j++ {
			sub := prev[j-1]
			if q[i-1] != t[j-1] {
				sub++
			}
			best, st := sub, pstart[j-1]
			if v := prev[j] + 1; v < best {
				best, st = v, pstart[j]
			}
			if v := cur[j-1] + 1; v < best {
				best, st = v, cstart[j-1]
			}
			cur[j], cstart[j] = best, st
		}
		prev, cur = cur, prev
		pstart, cstart = cstart, pstart
	}
	d, e = len(q)+1, 0
	for j := 0; j <= len(t); j++ {
		if prev[j] < d || (prev[j] == d && j-pstart[j] < e-s) {
			d, s, e = prev[j], pstart[j], j
		}
	}
	return d, s, e
}

// srcRune says where a matchable rune came from: word index, and the runes
// [at, end) of that word it stands for (at -1 for the space between words).
type srcRune struct{ word, at, end int }

// folded is a text prepared for matching: plain is lower case without white
// space; look also has OCR look-alikes made equal.
type folded struct{ plain, look []rune }

// foldedLine is a line prepared for matching, with where each rune of plain
// (src) and of look (lookSrc: look-alike folding can join two runes, rn -> m)
// came from.
type foldedLine struct {
	plain   []rune
	src     []srcRune
	look    []rune
	lookSrc []srcRune
}

// fold prepares a query.
func fold(s string) folded {
	var f folded
	f.plain = append(f.plain, foldRunes(s)...)
	f.look = lookAlike(f.plain, nil, nil)
	return f
}

// foldLine prepares a line, word by word.
func foldLine(l Line) foldedLine {
	var f foldedLine
	for wi, w := range l.Words {
		ri := 0
		for _, r := range w.Text {
			for _, fr := range foldRunes(string(r)) {
				f.plain = append(f.plain, fr)
				f.src = append(f.src, srcRune{word: wi, at: ri, end: ri + 1})
			}
			ri++
		}
	}
	f.look = lookAlike(f.plain, f.src, &f.lookSrc)
	return f
}

// foldRunes returns s in compatibility form, lower case, without white space
// or control characters.
func foldRunes(s string) []rune {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var out []rune
	for _, r := range norm.NFKC.String(s) {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			continue
		}
		out = append(out, unicode.ToLower(r))
	}
	return out
}

// lookAlike maps runes OCR confuses to one representative. When src is not
// nil, the source of each output rune is appended to *outSrc.
func lookAlike(in []rune, src []srcRune, outSrc *[]srcRune) []rune {
	out := make([]rune, 0, len(in))
	for i := 0; i < len(in); i++ {
		r, n := in[i], 1
		switch {
		case r == 'r' && i+1 < len(in) && in[i+1] == 'n':
			r, n = 'm', 2
		case r == 'v' && i+1 < len(in) && in[i+1] == 'v':
			r, n = 'w', 2
		case strings.ContainsRune("1il|!", r):
			r = 'l'
		case r == '0':
			r = 'o'
		case strings.ContainsRune("‘’`´", r):
			r = '\''
		case strings.ContainsRune("“”", r):
			r = '"'
		case strings.ContainsRune("–—‐‑−", r):
			r = '-'
		}
		out = append(out, r)
		if src != nil {
			s := src[i]
			if n == 2 && src[i+1].word == s.word {
				s.end = src[i+1].end
			}
			*outSrc = append(*outSrc, s)
		}
		i += n - 1
	}
	return out
}

// whole reports whether runes[s:e] (src saying where each came from) starts
// and ends at word edges: the edge of an OCR word, or between a letter or
// digit and anything else.
func whole(runes []rune, src []srcRune, s, e int) bool {
	edge := func(a, b int) bool { // between runes[a] and runes[b]
		if a < 0 || b >= len(runes) || src[a].word != src[b].word {
			return true
		}
		return !isWordRune(runes[a]) || !isWordRune(runes[b])
	}
	return edge(s-1, s) && edge(e-1, e)
}

// matchAt builds the Match for runes [s, e) of a line's prepared text, src
// saying where each rune came from.
func matchAt(l Line, src []srcRune, s, e int, score float64) Match {
	if s < 0 || e > len(src) || s >= e {
		return Match{Text: l.Text, Box: l.Box, Score: score, Line: l.Text}
	}
	for src[s].at < 0 && s < e-1 { // a space at either end (exact mode)
		s++
	}
	for src[e-1].at < 0 && e-1 > s {
		e--
	}
	first, last := src[s], src[e-1]
	var box image.Rectangle
	var words []string
	for wi := first.word; wi <= last.word; wi++ {
		w := l.Words[wi]
		runes := []rune(w.Text)
		lo, hi := 0, len(runes)
		if wi == first.word {
			lo = max(first.at, 0)
		}
		if wi == last.word {
			hi = min(max(last.end, lo+1), len(runes))
		}
		box = box.Union(partBox(w.Box, lo, hi, len(runes)))
		words = append(words, string(runes[lo:hi]))
	}
	return Match{Text: strings.Join(words, " "), Box: box, Score: score, Line: l.Text}
}

// partBox returns the part of a word's box holding runes [lo, hi) of n,
// assuming runes of equal width.
func partBox(b image.Rectangle, lo, hi, n int) image.Rectangle {
	if n <= 0 || (lo == 0 && hi == n) {
		return b
	}
	w := b.Dx()
	return image.Rect(b.Min.X+w*lo/n, b.Min.Y, b.Min.X+(w*hi+n-1)/n, b.Max.Y)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// truncRunes returns s cut to at most n runes.
func truncRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
