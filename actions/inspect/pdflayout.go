package inspect

import (
	"slices"
	"sort"
	"strings"
	"unicode"
)

// box is one run of text PDFium found on a page: a piece of one line in one
// font, with its bounding box in points (PDF space: y grows upwards, so top >
// bottom).
type box struct {
	left, top, right, bottom float64
	text                     string
}

func (b box) height() float64 { return b.top - b.bottom }

// maxBoxes bounds the text runs laid out per page; a page with more (a
// hostile or machine-made file) keeps the first ones in content order.
const maxBoxes = 20000

// minColumnShare is the least width, as a share of the page's text width, a
// column needs on each side of a gutter; narrower "columns" are table cells,
// which read better row by row.
const minColumnShare = 0.15

// layoutPage puts a page's text runs in reading order and renders them as
// lines: columns are read one after the other (a recursive XY cut: a region is
// split at its widest gutter or its widest horizontal gap, whichever is wider
// for the text size), runs on one baseline are joined with spaces, a blank
// line marks a paragraph gap, and words hyphenated at a line end are joined.
func layoutPage(boxes []box) string {
	var kept []box
	for _, b := range boxes {
		b.text = cleanRun(b.text)
		if strings.TrimSpace(b.text) == "" || b.right < b.left || b.top < b.bottom {
			continue
		}
		kept = append(kept, b)
		if len(kept) == maxBoxes {
			break
		}
	}
	if len(kept) == 0 {
		return ""
	}
	l := &layout{unit: medianHeight(kept)}
	minX, maxX := kept[0].left, kept[0].right
	for _, b := range kept {
		minX, maxX = min(minX, b.left), max(maxX, b.right)
	}
	l.pageWidth = maxX - minX
	l.cut(kept, 0)
	return l.render()
}

// cleanRun drops control characters PDFium reports, keeping its mark for a
// hyphen at a line end (U+0002) for render to join the word.
func cleanRun(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == 2:
			return r
		case r == '\t', r == '\n', r == '\r':
			return ' '
		case unicode.IsControl(r), r == 0xFFFE, r == 0xFFFF:
			return -1
		}
		return r
	}, s)
}

func medianHeight(bs []box) float64 {
	hs := make([]float64, len(bs))
	for i, b := range bs {
		hs[i] = b.height()
	}
	sort.Float64s(hs)
	return max(hs[len(hs)/2], 1)
}

// layout collects a page's lines in reading order.
type layout struct {
	unit      float64 // median text height, the scale of gaps
	pageWidth float64
	lines     [][]box // each line's runs, left to right
	breaks    []bool  // a column break after line i
}

// maxCutDepth bounds the recursion of the XY cut.
const maxCutDepth = 64

// cut orders a region's runs. A region splits at a vertical gutter (columns,
// left then right) or at horizontal gaps (top to bottom), whichever gap is
// wider; a region with neither is one line, or runs that overlap.
func (l *layout) cut(bs []box, depth int) {
	if len(bs) == 0 {
		return
	}
	vx, vw := l.gutter(bs)
	hw := widestGap(bs, func(b box) (float64, float64) { return -b.top, -b.bottom }) / l.unit
	switch {
	case depth >= maxCutDepth:
	case vw > 0 && vw >= hw:
		var left, right []box
		for _, b := range bs {
			if b.right <= vx {
				left = append(left, b)
			} else {
				right = append(right, b)
			}
		}
		l.cut(left, depth+1)
		l.brk()
		l.cut(right, depth+1)
		return
	case hw > 0:
		// Split at every gap nearly as wide as the widest, top to bottom.
		slices.SortStableFunc(bs, func(a, b box) int { return cmpFloat(b.top, a.top) })
		start, bottom := 0, bs[0].bottom
		for i := 1; i < len(bs); i++ {
			if gap := bottom - bs[i].top; gap > 0 && gap >= 0.8*hw*l.unit {
				l.cut(slices.Clone(bs[start:i]), depth+1)
				start = i
			}
			bottom = min(bottom, bs[i].bottom)
		}
		l.cut(slices.Clone(bs[start:]), depth+1)
		return
	}
	l.leaf(bs)
}

// brk marks a break before the next line.
func (l *layout) brk() {
	if len(l.breaks) > 0 {
		l.breaks[len(l.breaks)-1] = true
	}
}

// leaf adds runs that no gap separates: grouped into lines by vertical
// overlap, top to bottom, each line left to right.
func (l *layout) leaf(bs []box) {
	slices.SortStableFunc(bs, func(a, b box) int { return cmpFloat(b.top, a.top) })
	var line []box
	var lo, hi float64
	flush := func() {
		if len(line) == 0 {
			return
		}
		slices.SortStableFunc(line, func(a, b box) int { return cmpFloat(a.left, b.left) })
		l.lines = append(l.lines, line)
		l.breaks = append(l.breaks, false)
		line = nil
	}
	for _, b := range bs {
		if len(line) > 0 {
			overlap := min(hi, b.top) - max(lo, b.bottom)
			if overlap < 0.5*min(hi-lo, b.height()) {
				flush()
			}
		}
		if len(line) == 0 {
			lo, hi = b.bottom, b.top
		} else {
			lo, hi = min(lo, b.bottom), max(hi, b.top)
		}
		line = append(line, b)
	}
	flush()
}

// gutter finds the widest vertical gap between columns of text: x where to
// split and its width in text heights, 0 when there is none. Each side must
// be at least minColumnShare of the page's text width and hold more than one
// line, so table cells and words on one line are not taken for columns.
func (l *layout) gutter(bs []box) (float64, float64) {
	type gap struct{ at, width float64 }
	var gaps []gap
	forEachGap(bs, func(b box) (float64, float64) { return b.left, b.right }, func(lo, hi float64) {
		gaps = append(gaps, gap{lo, hi - lo})
	})
	sort.Slice(gaps, func(i, j int) bool { return gaps[i].width > gaps[j].width })
	for _, g := range gaps {
		if g.width < 0.8*l.unit {
			break
		}
		var left, right []box
		for _, b := range bs {
			if b.right <= g.at {
				left = append(left, b)
			} else {
				right = append(right, b)
			}
		}
		if l.columnLike(left) && l.columnLike(right) {
			return g.at, g.width / l.unit
		}
	}
	return 0, 0
}

// columnLike reports whether runs look like a column of text: wide enough and
// more than one line.
func (l *layout) columnLike(bs []box) bool {
	if len(bs) < 2 {
		return false
	}
	minX, maxX := bs[0].left, bs[0].right
	top, bottom := bs[0].top, bs[0].bottom
	lines := false
	for _, b := range bs {
		minX, maxX = min(minX, b.left), max(maxX, b.right)
		if b.top < bottom || b.bottom > top {
			lines = true
		}
	}
	return lines && maxX-minX >= minColumnShare*l.pageWidth
}

// widestGap is the width of the widest gap between the intervals span
// gives (0 when they leave none).
func widestGap(bs []box, span func(box) (float64, float64)) float64 {
	width := 0.0
	forEachGap(bs, span, func(lo, hi float64) { width = max(width, hi-lo) })
	return width
}

// forEachGap calls fn for every gap between the merged intervals of bs.
func forEachGap(bs []box, span func(box) (float64, float64), fn func(lo, hi float64)) {
	type iv struct{ lo, hi float64 }
	ivs := make([]iv, len(bs))
	for i, b := range bs {
		lo, hi := span(b)
		ivs[i] = iv{lo, hi}
	}
	sort.Slice(ivs, func(i, j int) bool { return ivs[i].lo < ivs[j].lo })
	end := ivs[0].hi
	for _, v := range ivs[1:] {
		if v.lo > end {
			fn(end, v.lo)
		}
		end = max(end, v.hi)
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// render joins the ordered lines into text. A blank line marks a column
// break and a paragraph: a gap between lines clearly wider than the page's
// usual one.
func (l *layout) render() string {
	var gaps []float64
	for i := 1; i < len(l.lines); i++ {
		if g := lineGap(l.lines[i-1], l.lines[i]); g > 0 && !l.breaks[i-1] {
			gaps = append(gaps, g)
		}
	}
	para := 0.4 * l.unit
	if len(gaps) > 2 {
		sort.Float64s(gaps)
		para = max(para, 1.6*gaps[len(gaps)/2])
	}
	var b strings.Builder
	joinNext := false
	for i, line := range l.lines {
		if i > 0 && !joinNext {
			b.WriteByte('\n')
			if l.breaks[i-1] || lineGap(l.lines[i-1], line) > para {
				b.WriteByte('\n')
			}
		}
		text := lineText(line, l.unit)
		joinNext = false
		if t, ok := strings.CutSuffix(text, "\x02"); ok {
			// PDFium marks a hyphen at a line end: the word goes on.
			text, joinNext = t, i+1 < len(l.lines) && !l.breaks[i]
			if !joinNext {
				text += "-"
			}
		}
		b.WriteString(strings.ReplaceAll(text, "\x02", "-"))
	}
	return b.String()
}

// lineGap is the vertical space between a line and the next below it.
func lineGap(a, b []box) float64 {
	bottom, top := a[0].bottom, b[0].top
	for _, x := range a {
		bottom = min(bottom, x.bottom)
	}
	for _, x := range b {
		top = max(top, x.top)
	}
	return bottom - top
}

// lineText joins one line's runs, with a space where they leave a gap.
func lineText(line []box, unit float64) string {
	var b strings.Builder
	for i, r := range line {
		t := strings.Join(strings.Fields(r.text), " ")
		if i > 0 {
			prev := line[i-1]
			if r.left-prev.right > 0.1*unit || r.left < prev.right {
				b.WriteByte(' ')
			}
		}
		b.WriteString(t)
	}
	return strings.TrimSpace(b.String())
}
