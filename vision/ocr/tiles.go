package ocr

import (
	"hash/maphash"
	"image"
)

// Tiling. A frame is cut into full-width horizontal bands; each band is read
// through a window that reaches overlap rows into its neighbours, and a line
// belongs to the band whose core holds its centre (see own), so a line cut by one
// band's edge is read whole by the band that owns it (lines up to 2*overlap
// tall) and kept once; lines lying wholly in the overlap rows are left to the
// neighbour that owns them (toCore). Inside a window, columns without ink for the whole
// window height are gutters: no text crosses them, so the window is split
// there into segments (one per window or column of a table, say) and blank
// areas are never read. Bands and segments are cached by the hash of their
// pixels, so an unchanged band costs one hash, and a changed band re-reads
// only the segments whose pixels changed.

// band is one horizontal strip of a frame, in the frame's coordinates.
type band struct {
	core   image.Rectangle // lines whose centre lies here belong to the band
	window image.Rectangle // core plus the overlap rows: what is hashed and read
}

// bands cuts bounds into strips of height rows, each read with overlap extra
// rows above and below (clipped to bounds).
func bands(bounds image.Rectangle, height, overlap int) []band {
	var out []band
	for y := bounds.Min.Y; y < bounds.Max.Y; y += height {
		core := image.Rect(bounds.Min.X, y, bounds.Max.X, min(y+height, bounds.Max.Y))
		window := image.Rect(core.Min.X, core.Min.Y-overlap, core.Max.X, core.Max.Y+overlap).Intersect(bounds)
		out = append(out, band{core: core, window: window})
	}
	return out
}

// inkLevel is the prepared grey level below which a pixel counts as ink when
// looking for gutters and blank rows.
const inkLevel = 128

// segmentPad is the blank margin, in frame pixels, kept around a segment's
// ink so glyphs never touch the image edge.
const segmentPad = 4

// segments splits a prepared window (scale 1, origin (0, 0)) into the
// rectangles worth reading, in the window's coordinates: runs of columns with
// ink, split at gutters of at least minGutter blank columns, each trimmed to
// the rows holding its ink and padded by segmentPad. Segments too small or
// too faint to hold a glyph are dropped.
func segments(ink *image.Gray, minGutter int) []image.Rectangle {
	w, h := ink.Rect.Dx(), ink.Rect.Dy()
	colInk := make([]int, w)
	for y := range h {
		row := ink.Pix[y*ink.Stride:][:w]
		for x, v := range row {
			if v < inkLevel {
				colInk[x]++
			}
		}
	}
	var out []image.Rectangle
	for x := 0; x < w; {
		if colInk[x] == 0 {
			x++
			continue
		}
		start, end := x, x+1 // end: one past the last inked column
		for blank := 0; x < w && blank < minGutter; x++ {
			if colInk[x] == 0 {
				blank++
				continue
			}
			blank, end = 0, x+1
		}
		if r, ok := trimRows(ink, start, end); ok {
			out = append(out, r.Inset(-segmentPad).Intersect(ink.Rect))
		}
	}
	return out
}

// toCore trims segments (window coordinates) to the rows the band must
// read: its core, and the lines that cross the core's edges. A line lying
// wholly in the overlap rows belongs to the neighbour band, which reads it
// whole; reading it here too cost about a fifth of every read. A segment is
// cut at the blank row nearest each edge of the core, outside it; where no
// blank row separates the lines (a tall heading across the edge) it keeps
// its rows. The margin kept around the ink is up to segmentPad blank rows,
// never a row of the line cut off. Segments left without ink are dropped.
func toCore(ink *image.Gray, segs []image.Rectangle, core image.Rectangle) []image.Rectangle {
	out := segs[:0]
	for _, s := range segs {
		blank := func(y int) bool {
			for _, v := range ink.Pix[y*ink.Stride+s.Min.X : y*ink.Stride+s.Max.X] {
				if v < inkLevel {
					return false
				}
			}
			return true
		}
		top, bottom := s.Min.Y, s.Max.Y // rows kept: [top, bottom)
		for y := min(core.Min.Y, bottom) - 1; y >= top; y-- {
			if blank(y) {
				top = y
				break
			}
		}
		for y := max(core.Max.Y, top); y < bottom; y++ {
			if blank(y) {
				bottom = y + 1
				break
			}
		}
		c0, c1 := top, bottom // the ink between
		for c0 < c1 && blank(c0) {
			c0++
		}
		for c1 > c0 && blank(c1-1) {
			c1--
		}
		if c1-c0 < 4 {
			continue
		}
		out = append(out, image.Rect(s.Min.X, max(c0-segmentPad, top), s.Max.X, min(c1+segmentPad, bottom)))
	}
	return out
}

// trimRows returns the rectangle of columns [x0, x1) limited to the rows that
// hold ink there, and whether it is big and dark enough to hold text.
func trimRows(ink *image.Gray, x0, x1 int) (image.Rectangle, bool) {
	const minSide, minInk = 4, 8
	y0, y1, total := -1, 0, 0
	for y := range ink.Rect.Dy() {
		n := 0
		for _, v := range ink.Pix[y*ink.Stride+x0 : y*ink.Stride+x1] {
			if v < inkLevel {
				n++
			}
		}
		if n > 0 {
			if y0 < 0 {
				y0 = y
			}
			y1 = y + 1
			total += n
		}
	}
	r := image.Rect(x0, y0, x1, y1)
	return r, y0 >= 0 && r.Dx() >= minSide && r.Dy() >= minSide && total >= minInk
}

// key identifies pixels by content: the hash of the pixels and the size of
// their rectangle. kind tells band windows from segments.
type key struct {
	kind byte
	sum  uint64
	w, h int
}

const (
	kindBand    = 'b'
	kindSegment = 's'
)

// hashRect returns the key of the pixels of frame in r (r inside frame).
func hashRect(seed maphash.Seed, kind byte, frame *image.RGBA, r image.Rectangle) key {
	var h maphash.Hash
	h.SetSeed(seed)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		h.Write(frame.Pix[frame.PixOffset(r.Min.X, y):][:4*r.Dx()])
	}
	return key{kind: kind, sum: h.Sum64(), w: r.Dx(), h: r.Dy()}
}
