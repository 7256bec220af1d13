package app

import (
	"deskpilot/agent/script"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// tokenKind classifies a piece of Starlark source for colouring.
type tokenKind int

const (
	tokPlain tokenKind = iota
	tokKeyword
	tokBuiltin
	tokString
	tokNumber
	tokComment
)

// codeToken is a run of source text of one kind.
type codeToken struct {
	Kind tokenKind
	Text string
}

// isKeyword reports whether w is a Starlark keyword or constant.
func isKeyword(w string) bool {
	switch w {
	case "and", "break", "continue", "def", "elif", "else", "for", "if", "in", "lambda",
		"load", "not", "or", "pass", "return", "while", "True", "False", "None":
		return true
	}
	return false
}

// builtinNames are the words shown as builtins: the catalogue's
// (script.Builtins) and Starlark's print.
func builtinNames() map[string]bool {
	names := map[string]bool{"print": true}
	for _, t := range script.Builtins() {
		names[t.Name] = true
	}
	return names
}

// tokenize splits Starlark source into coloured runs. It is forgiving: unterminated
// strings run to the end of the line, so half-streamed code still colours sensibly.
func tokenize(src string) []codeToken {
	var out []codeToken
	add := func(k tokenKind, s string) {
		if s == "" {
			return
		}
		if n := len(out); n > 0 && out[n-1].Kind == k {
			out[n-1].Text += s
			return
		}
		out = append(out, codeToken{k, s})
	}
	builtins := builtinNames()
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '#':
			j := indexFrom(src, i, "\n")
			add(tokComment, src[i:j])
			i = j
		case c == '"' || c == '\'':
			j := stringEnd(src, i)
			add(tokString, src[i:j])
			i = j
		case isIdentStart(c):
			j := i
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			word := src[i:j]
			switch {
			case isKeyword(word):
				add(tokKeyword, word)
			case builtins[word]:
				add(tokBuiltin, word)
			default:
				add(tokPlain, word)
			}
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && (isIdentPart(src[j]) || src[j] == '.') {
				j++
			}
			add(tokNumber, src[i:j])
			i = j
		default:
			add(tokPlain, src[i:i+1])
			i++
		}
	}
	return out
}

func indexFrom(s string, i int, sub string) int {
	if j := strings.Index(s[i:], sub); j >= 0 {
		return i + j
	}
	return len(s)
}

// stringEnd returns the index just past the string literal starting at i.
func stringEnd(src string, i int) int {
	q := src[i : i+1]
	if strings.HasPrefix(src[i:], q+q+q) {
		return min(indexFrom(src, i+3, q+q+q)+3, len(src))
	}
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '\n':
			return j
		case src[i]:
			return j + 1
		}
	}
	return len(src)
}

func isIdentStart(c byte) bool {
	return c == '_' || unicode.IsLetter(rune(c))
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9')
}

// continuation marks a code line that was wrapped to fit the width.
const continuation = "↪ "

// codeSegments renders src as monospace rich-text segments coloured by token kind,
// hard-wrapped at cols columns (0 = no wrapping). Wrapped rows start with a dim
// continuation mark so they are not mistaken for indentation.
func codeSegments(src string, cols int) []widget.RichTextSegment {
	var segs []widget.RichTextSegment
	col := 0
	add := func(k tokenKind, text string) {
		if text == "" {
			return
		}
		if n := len(segs); n > 0 {
			if last := segs[n-1].(*widget.TextSegment); last.Style == tokenStyle(k) {
				last.Text += text
				return
			}
		}
		segs = append(segs, &widget.TextSegment{Style: tokenStyle(k), Text: text})
	}
	for _, t := range tokenize(src) {
		var run strings.Builder
		for _, r := range t.Text {
			if r == '\n' {
				run.WriteRune(r)
				col = 0
				continue
			}
			if cols > len(continuation)+1 && col >= cols {
				run.WriteRune('\n')
				add(t.Kind, run.String())
				run.Reset()
				add(tokComment, continuation)
				col = len([]rune(continuation))
			}
			run.WriteRune(r)
			col++
		}
		add(t.Kind, run.String())
	}
	return segs
}

// tokenStyle is the rich-text style of a token kind: monospace, coloured by theme names.
func tokenStyle(k tokenKind) widget.RichTextStyle {
	st := widget.RichTextStyle{Inline: true, TextStyle: fyne.TextStyle{Monospace: true}}
	switch k {
	case tokKeyword:
		st.ColorName = theme.ColorNamePrimary
		st.TextStyle.Bold = true
	case tokBuiltin:
		st.ColorName = theme.ColorNamePrimary
	case tokString:
		st.ColorName = theme.ColorNameSuccess
	case tokNumber:
		st.ColorName = theme.ColorNameWarning
	case tokComment:
		st.ColorName = theme.ColorNamePlaceHolder
	}
	return st
}

// codeBlock shows Starlark code coloured and hard-wrapped to its width. Fyne's own
// wrapping of multi-segment rich text is unreliable while the width is still
// unknown, so the block wraps by itself whenever its width in columns changes.
type codeBlock struct {
	widget.BaseWidget
	src   string
	cols  int // current wrap width; 0 until the first layout
	text  *widget.RichText
	grown func() // called when re-wrapping changed the height; may be nil
}

// newCodeBlock makes an empty block; grown is called when a new width changed its
// height, so the owner can lay its parents out again.
func newCodeBlock(grown func()) *codeBlock {
	c := &codeBlock{text: widget.NewRichText(), grown: grown}
	c.ExtendBaseWidget(c)
	return c
}

// SetCode replaces the code shown.
func (c *codeBlock) SetCode(src string) {
	if src == c.src && len(c.text.Segments) > 0 {
		return
	}
	c.src = src
	c.text.Segments = codeSegments(src, c.cols)
	c.text.Refresh()
}

// Text is the code shown, unwrapped.
func (c *codeBlock) Text() string { return c.src }

// CreateRenderer lays the rich text out and re-wraps it on width changes.
func (c *codeBlock) CreateRenderer() fyne.WidgetRenderer {
	return &codeBlockRenderer{c: c}
}

type codeBlockRenderer struct{ c *codeBlock }

func (r *codeBlockRenderer) Layout(s fyne.Size) {
	c := r.c
	th := c.Theme()
	cell := fyne.MeasureText("M", th.Size(theme.SizeNameText), fyne.TextStyle{Monospace: true})
	cols := int((s.Width - 2*th.Size(theme.SizeNameInnerPadding)) / cell.Width)
	if cols != c.cols && cols > 0 {
		c.cols = cols
		before := c.text.MinSize().Height
		c.text.Segments = codeSegments(c.src, cols)
		c.text.Refresh()
		if c.text.MinSize().Height != before && c.grown != nil {
			c.grown() // the height depends on the width, known only now
		}
	}
	c.text.Resize(s)
}

func (r *codeBlockRenderer) MinSize() fyne.Size {
	return fyne.NewSize(120, r.c.text.MinSize().Height)
}

func (r *codeBlockRenderer) Refresh()                     { r.c.text.Refresh() }
func (r *codeBlockRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.c.text} }
func (r *codeBlockRenderer) Destroy()                     {}
