package ocr

import (
	"cmp"
	"fmt"
	"image"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// LayerOptions configures Text.Layer. The zero value is the default.
type LayerOptions struct {
	// MaxChars bounds the layer's length in bytes, note included; 0 means
	// 3000 (about 1000 tokens). Below 200 it is raised to 200.
	MaxChars int
	// Position formats a line's centre, given in frame pixels, the way the
	// model writes coordinates (for example mapped to the run's coordinate
	// mode); nil writes the frame pixels as "x,y".
	Position func(image.Point) string
	// MinConf leaves out lines read with less confidence than this, 0..1;
	// 0 means 0.5. Noise (lines without a letter or digit) is always left out.
	MinConf float64
}

const (
	defaultLayerChars = 3000
	minLayerChars     = 200
	defaultLayerConf  = 0.5
	// maxLayerLine is the most runes of one line the layer shows.
	maxLayerLine = 160
)

// Layer returns the text of the screen as lines for a model's observation:
// one line per text line, "(x,y) text" with the line's centre, top to bottom
// and left to right. When the lines do not fit in MaxChars, the most useful
// ones are kept (confident, mostly letters and digits, short labels before
// long runs of text: controls are short) and a last line says how many were
// left out and why. An empty screen gives "".
func (t *Text) Layer(o LayerOptions) string {
	o = o.withDefaults()
	type cand struct {
		idx    int
		text   string
		worth  float64
		length int
	}
	var cands []cand
	noise := 0
	for i, l := range t.Lines {
		text := truncRunes(l.Text, maxLayerLine)
		if text != l.Text {
			text += "…"
		}
		share := wordShare(l.Text)
		if share == 0 || l.Conf < o.MinConf {
			noise++
			continue
		}
		row := fmt.Sprintf("(%s) %s\n", o.Position(l.Center()), text)
		// Confident, wordy lines first; among them, short ones (labels,
		// buttons, menu items) before long ones.
		worth := l.Conf * share / (1 + float64(utf8.RuneCountInString(text))/80)
		cands = append(cands, cand{idx: i, text: row, worth: worth, length: len(row)})
	}
	if len(cands) == 0 {
		return ""
	}
	byWorth := slices.Clone(cands)
	slices.SortStableFunc(byWorth, func(a, b cand) int { return cmp.Compare(b.worth, a.worth) })
	budget := o.MaxChars - 120 // room for the note
	keep := map[int]bool{}
	for _, c := range byWorth {
		if c.length <= budget {
			keep[c.idx] = true
			budget -= c.length
		}
	}
	var b strings.Builder
	for _, c := range cands {
		if keep[c.idx] {
			b.WriteString(c.text)
		}
	}
	if cut := len(cands) - len(keep); cut > 0 {
		fmt.Fprintf(&b, "[%d more lines not shown: over the %d-character budget]\n", cut, o.MaxChars)
	}
	if noise > 0 && len(keep) < len(t.Lines) {
		fmt.Fprintf(&b, "[%d unreadable lines left out]\n", noise)
	}
	return b.String()
}

func (o LayerOptions) withDefaults() LayerOptions {
	if o.MaxChars <= 0 {
		o.MaxChars = defaultLayerChars
	}
	o.MaxChars = max(o.MaxChars, minLayerChars)
	if o.Position == nil {
		o.Position = func(p image.Point) string { return fmt.Sprintf("%d,%d", p.X, p.Y) }
	}
	if o.MinConf <= 0 {
		o.MinConf = defaultLayerConf
	}
	return o
}

// wordShare returns the share of s's non-space runes that are letters or
// digits.
func wordShare(s string) float64 {
	all, word := 0, 0
	for _, r := range s {
		if unicode.IsSpace(r) {
			continue
		}
		all++
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			word++
		}
	}
	if all == 0 {
		return 0
	}
	return float64(word) / float64(all)
}
