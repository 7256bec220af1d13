package ocr

import (
	"cmp"
	"image"
	"slices"
	"strings"
)

// Word is one recognised word.
type Word struct {
	// Text is the word as read, never empty, without spaces.
	Text string
	// Box is where the word is, in the frame's pixels.
	Box image.Rectangle
	// Conf is Tesseract's confidence, 0 (a guess) to 1 (certain).
	Conf float64
}

// Line is a row of words that belong together: a text line of a window, a
// table row, a button label.
type Line struct {
	// Text is the words joined by single spaces.
	Text string
	// Box is the union of the words' boxes, in the frame's pixels.
	Box image.Rectangle
	// Words are the line's words, left to right; never empty.
	Words []Word
	// Conf is the mean confidence of the words, 0..1.
	Conf float64
}

// Center returns the centre of the line's box.
func (l Line) Center() image.Point { return center(l.Box) }

// Text is what a Reader read on one frame. It is immutable and safe for
// concurrent use. Boxes are in the pixels of the frame given to Read (for a
// capture of a whole display, whose bounds start at (0, 0), add the display's
// origin to get X root coordinates).
type Text struct {
	// Bounds is the frame's rectangle.
	Bounds image.Rectangle
	// Lines are in reading order: top to bottom, then left to right.
	Lines []Line
}

// Words returns every word of every line, in reading order. Set-of-marks
// overlays number them for apps without an accessibility tree.
func (t *Text) Words() []Word {
	var out []Word
	for _, l := range t.Lines {
		out = append(out, l.Words...)
	}
	return out
}

// String returns the lines joined by newlines.
func (t *Text) String() string {
	var b strings.Builder
	for i, l := range t.Lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.Text)
	}
	return b.String()
}

// newLine builds a line from its words, sorted left to right.
func newLine(words []Word) Line {
	slices.SortFunc(words, func(a, b Word) int { return cmp.Compare(a.Box.Min.X, b.Box.Min.X) })
	l := Line{Words: words}
	texts := make([]string, len(words))
	var conf float64
	for i, w := range words {
		texts[i] = w.Text
		l.Box = l.Box.Union(w.Box)
		conf += w.Conf
	}
	l.Text = strings.Join(texts, " ")
	l.Conf = conf / float64(len(words))
	return l
}

// sortLines puts lines in reading order: rows top to bottom, each row left to
// right. A line joins the row of the line above when its centre is within
// half the smaller height of that row's first line's centre.
func sortLines(lines []Line) {
	slices.SortStableFunc(lines, func(a, b Line) int {
		return cmp.Or(cmp.Compare(center(a.Box).Y, center(b.Box).Y), cmp.Compare(a.Box.Min.X, b.Box.Min.X))
	})
	for start := 0; start < len(lines); {
		first := lines[start]
		end := start + 1
		for end < len(lines) {
			tol := min(first.Box.Dy(), lines[end].Box.Dy()) / 2
			if center(lines[end].Box).Y-center(first.Box).Y > tol {
				break
			}
			end++
		}
		slices.SortStableFunc(lines[start:end], func(a, b Line) int { return cmp.Compare(a.Box.Min.X, b.Box.Min.X) })
		start = end
	}
}

// mergeRows joins lines that sit on the same row with a gap of at most
// maxGap line heights between them (table cells, a label and its value, which
// Tesseract and the tiling may cut apart), so a phrase can match across
// them. lines must be in reading order; the result is too.
func mergeRows(lines []Line, maxGap float64) []Line {
	out := make([]Line, 0, len(lines))
	for _, l := range lines {
		if n := len(out); n > 0 && sameRow(out[n-1], l, maxGap) {
			words := append(slices.Clip(out[n-1].Words), l.Words...)
			out[n-1] = newLine(words)
			continue
		}
		out = append(out, l)
	}
	return out
}

// sameRow reports whether b continues a to the right on the same row: their
// vertical extents overlap by at least 60% of the smaller height, their
// heights are within a factor of 1.6, and the gap is at most maxGap heights.
func sameRow(a, b Line, maxGap float64) bool {
	ha, hb := a.Box.Dy(), b.Box.Dy()
	lo, hi := min(ha, hb), max(ha, hb)
	if lo <= 0 || float64(hi) > 1.6*float64(lo) {
		return false
	}
	overlap := min(a.Box.Max.Y, b.Box.Max.Y) - max(a.Box.Min.Y, b.Box.Min.Y)
	if float64(overlap) < 0.6*float64(lo) {
		return false
	}
	gap := b.Box.Min.X - a.Box.Max.X
	return gap >= -lo/2 && float64(gap) <= maxGap*float64(hi)
}

func center(r image.Rectangle) image.Point {
	return image.Pt((r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2)
}
