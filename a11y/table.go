package a11y

import (
	"cmp"
	"fmt"
	"image"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TableOptions configure Linearize. The zero value gives a 4000-character table in
// root-window pixels.
type TableOptions struct {
	// MaxChars is the budget for the whole table, header and cut note included
	// (about four characters a token); 0 means 4000.
	MaxChars int
	// MaxCell is the most characters of a name or text cell; longer ones end in
	// "…". 0 means 80.
	MaxCell int
	// Map converts a rectangle from root-window pixels to the coordinates the model
	// uses (the run's coordinate mode); nil leaves root pixels.
	Map func(image.Rectangle) image.Rectangle
	// Format, when set, writes an element's centre and size itself, given its
	// rectangle in root-window pixels, for coordinate spaces whose values are
	// not whole numbers (fractions of the screen); it takes the place of Map.
	Format func(image.Rectangle) (center, size string)
}

// tableHeader is the first line of every table.
const tableHeader = "role\tname\ttext\tstates\tcenter (x, y)\tsize (w, h)\n"

// Linearize renders elements as the table an --observe a11y observation shows,
// in the manner of OSWorld's accessibility-tree observation: one line per element
// with tab-separated role, name, text, notable states, centre and size. Lines are
// ordered most relevant first: windows (for context) and the focused element, then
// interactive elements, then named ones, then text; equal relevance in reading
// order (top to bottom, left to right). Containers with neither name nor text are
// left out. Names and texts are cleaned of control characters (a hostile name
// cannot forge lines) and cut to MaxCell. Lines that do not fit MaxChars are
// dropped from the least relevant up, and a last line says how many; omitted is
// that count.
func Linearize(elems []Element, o TableOptions) (table string, omitted int) {
	if o.MaxChars <= 0 {
		o.MaxChars = 4000
	}
	if o.MaxCell <= 0 {
		o.MaxCell = 80
	}
	type row struct {
		e     Element
		score int
	}
	rows := make([]row, 0, len(elems))
	for _, e := range elems {
		if s := relevance(e); s > 0 {
			rows = append(rows, row{e, s})
		}
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if c := cmp.Compare(a.e.Bounds.Min.Y, b.e.Bounds.Min.Y); c != 0 {
			return c
		}
		return cmp.Compare(a.e.Bounds.Min.X, b.e.Bounds.Min.X)
	})
	var b strings.Builder
	b.WriteString(tableHeader)
	const noteRoom = 120
	for i, r := range rows {
		line := tableLine(r.e, o)
		if b.Len()+len(line) > o.MaxChars-noteRoom && i < len(rows)-1 || b.Len()+len(line) > o.MaxChars {
			omitted = len(rows) - i
			break
		}
		b.WriteString(line)
	}
	if omitted > 0 {
		fmt.Fprintf(&b, "… %d more elements not shown (table budget %d characters); "+
			"find_elements(name=..., role=...) finds any of them\n", omitted, o.MaxChars)
	}
	return b.String(), omitted
}

// relevance scores an element for the table; 0 leaves it out.
func relevance(e Element) int {
	s := 0
	switch {
	case e.Has("focused"):
		s += 16
	case isWindowRole(e.Role):
		s += 12
	}
	if e.Interactive {
		s += 8
	}
	if e.Name != "" {
		s += 4
	}
	if e.Text != "" {
		s += 2
	}
	return s
}

// isWindowRole reports the roles of top-level windows.
func isWindowRole(role string) bool {
	switch role {
	case "frame", "dialog", "window", "alert", "file chooser":
		return true
	}
	return false
}

// tableLine renders one element.
func tableLine(e Element, o TableOptions) string {
	var center, size string
	if o.Format != nil {
		center, size = o.Format(e.Bounds)
	} else {
		r := e.Bounds
		if o.Map != nil {
			r = o.Map(r)
		}
		c := image.Pt((r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2)
		center, size = fmt.Sprintf("%d, %d", c.X, c.Y), fmt.Sprintf("%d, %d", r.Dx(), r.Dy())
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t(%s)\t(%s)\n",
		CleanText(e.Role, o.MaxCell), CleanText(e.Name, o.MaxCell), CleanText(e.Text, o.MaxCell),
		strings.Join(notableStates(e), ","), center, size)
}

// notableStates are the states worth the model's attention, plus "disabled" for an
// interactive element that is not enabled.
func notableStates(e Element) []string {
	var out []string
	for _, s := range e.States {
		switch s {
		case "focused", "checked", "indeterminate", "selected", "expanded", "pressed",
			"modal", "active", "is-default", "required", "invalid-entry", "read-only":
			out = append(out, s)
		}
	}
	if e.Interactive && !e.Has("enabled") {
		out = append(out, "disabled")
	}
	return out
}

// CleanText makes text from an application safe to show the model: invalid UTF-8
// and control characters (line breaks and tabs included, so text cannot forge
// lines or columns of a table) become spaces, runs of white space one space, and s
// is cut to max characters, a cut string ending in "…".
func CleanText(s string, max int) string {
	s = strings.ToValidUTF8(s, " ")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max-1]) + "…"
	}
	return s
}
