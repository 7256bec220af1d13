package browser

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// page is the text of one visited address, cut into viewports.
type page struct {
	address string
	title   string
	text    string
	bounds  []int // byte offsets: viewport i is text[bounds[i]:bounds[i+1]]
	current int   // index of the viewport shown
	index   *wordIndex
	links   []string // link addresses by number (from 1), for "[N]" references
}

func newPage(address, title, text string, viewport int, split bool) *page {
	p := &page{address: address, title: title, text: text}
	if split {
		p.bounds = splitViewports(text, viewport)
	} else {
		p.bounds = []int{0, len(text)}
	}
	return p
}

// splitViewports cuts text into pieces of about size characters, each extended
// to end just after whitespace (by at most another size characters) so words
// are not cut. There is always at least one, possibly empty, viewport.
func splitViewports(text string, size int) []int {
	bounds := []int{0}
	for start := 0; start < len(text); {
		end := advance(text, start, size)
		limit := advance(text, end, size)
		for end < limit && !isSpaceByte(text[end-1]) {
			_, n := utf8.DecodeRuneInString(text[end:])
			end += n
		}
		bounds = append(bounds, end)
		start = end
	}
	if len(bounds) == 1 {
		bounds = append(bounds, 0)
	}
	return bounds
}

// advance moves n runes forward from byte offset i, stopping at the end.
func advance(s string, i, n int) int {
	for ; n > 0 && i < len(s); n-- {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return i
}

func isSpaceByte(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

func (p *page) pages() int { return len(p.bounds) - 1 }

func (p *page) viewport() string { return p.text[p.bounds[p.current]:p.bounds[p.current+1]] }

// viewportAt is the viewport holding byte offset off.
func (p *page) viewportAt(off int) int {
	i := sort.SearchInts(p.bounds[1:], off+1) // first viewport whose end is past off
	return min(i, p.pages()-1)
}

func (p *page) scroll(delta int) {
	p.current = min(max(p.current+delta, 0), p.pages()-1)
}

// render is the answer every browser call gives: a header and one viewport.
func (p *page) render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Address: %s\n", p.address)
	if p.title != "" {
		fmt.Fprintf(&b, "Title: %s\n", p.title)
	}
	fmt.Fprintf(&b, "Viewport position: Showing page %d of %d.\n", p.current+1, p.pages())
	b.WriteString("=======================\n")
	view := p.viewport()
	b.WriteString(view)
	if len(p.links) > 0 {
		b.WriteString(linkFooter(view, p.links, p.address))
	}
	return b.String()
}
