package trace

import (
	"slices"
	"strings"
	"unicode/utf8"

	"go.starlark.net/syntax"
)

// visibleCode returns code written so that every line shows as it reads
// (VisibleLine changes none): the string and bytes literals holding escape
// sequences, bidirectional controls or other characters a terminal or an
// editor would not show as themselves are written with escapes instead
// (the same value), and comments as VisibleLine writes them. ok is false when such a
// character is anywhere else, or code does not compile.
func visibleCode(code string) (_ string, ok bool) {
	if visibleLines(code) {
		return code, true
	}
	f, err := ScriptFileOptions().Parse("step", code+"\n", syntax.RetainComments)
	if err != nil {
		return code, false
	}
	starts := lineStarts(code)
	type edit struct {
		from, to int
		with     string
	}
	var edits []edit
	comments := func(n syntax.Node) {
		if n == nil {
			return // Walk's end of a node's children
		}
		c := n.Comments()
		if c == nil {
			return
		}
		for _, cm := range slices.Concat(c.Before, c.Suffix, c.After) {
			from := offset(code, starts, cm.Start)
			if !visibleLines(cm.Text) && from >= 0 && strings.HasPrefix(code[from:], cm.Text) {
				edits = append(edits, edit{from, from + len(cm.Text), VisibleLine(cm.Text)})
			}
		}
	}
	comments(f)
	syntax.Walk(f, func(n syntax.Node) bool {
		comments(n)
		lit, isLit := n.(*syntax.Literal)
		if !isLit || (lit.Token != syntax.STRING && lit.Token != syntax.BYTES) || visibleLines(lit.Raw) {
			return true
		}
		from := offset(code, starts, lit.TokenPos)
		if from < 0 || from+len(lit.Raw) > len(code) || code[from:from+len(lit.Raw)] != lit.Raw {
			return true // not where it says: left as it is, and the check below refuses it
		}
		var with string
		switch v := lit.Value.(type) {
		case string:
			with = syntax.Quote(v, lit.Token == syntax.BYTES)
		default:
			return true
		}
		edits = append(edits, edit{from, from + len(lit.Raw), with})
		return true
	})
	slices.SortFunc(edits, func(a, b edit) int { return b.from - a.from })
	for _, e := range edits {
		code = code[:e.from] + e.with + code[e.to:]
	}
	return code, visibleLines(code)
}

// visibleLines reports whether VisibleLine leaves every line of s as it is.
func visibleLines(s string) bool {
	for _, l := range strings.Split(s, "\n") {
		if VisibleLine(l) != l {
			return false
		}
	}
	return true
}

// lineStarts are the byte offsets where the lines of s start.
func lineStarts(s string) []int {
	out := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}

// offset converts a position (1-based line, 1-based column in runes) into
// a byte offset in s; -1 when it lies outside.
func offset(s string, starts []int, p syntax.Position) int {
	line, col := int(p.Line), int(p.Col)
	if line < 1 || line > len(starts) || col < 1 {
		return -1
	}
	at := starts[line-1]
	for k := 1; k < col; k++ {
		if at >= len(s) || s[at] == '\n' {
			return -1
		}
		_, n := utf8.DecodeRuneInString(s[at:])
		at += n
	}
	return at
}
