package checks

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"deskpilot/internal/smallfile"
)

// Limits of what a check reads.
const (
	maxTextFile = 16 << 20  // a text, JSON or CSV file
	maxDocFile  = 256 << 20 // an office document, image, PDF or archive
	maxPart     = 64 << 20  // one member of a zip container, unpacked
)

// readText reads a file as Python's open(path).read() does: UTF-8 (anything
// else is the UnicodeDecodeError Python raises) with universal newlines ("\r\n"
// and "\r" read as "\n").
func readText(path string) (string, error) {
	data, err := smallfile.Read(path, maxTextFile)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(data) {
		return "", fmt.Errorf("%s is not UTF-8 text", path)
	}
	return universalNewlines(string(data)), nil
}

// universalNewlines reads "\r\n" and "\r" as "\n", as Python's text files do.
func universalNewlines(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// pathArg returns a getter value that must be a file path (a string); nil is
// ok=false, as Python's "if not path".
func pathArg(v any, what string) (string, bool, error) {
	switch x := v.(type) {
	case nil:
		return "", false, nil
	case string:
		return x, x != "", nil
	}
	return "", false, fmt.Errorf("%s: want a file path, got %s", what, PyType(v))
}

// splitLines is Python's str.splitlines() on text read with universal
// newlines (plus the other line boundaries Python knows).
func splitLines(s string) []string {
	var out []string
	start := 0
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			out = append(out, string(rs[start:i]))
			if rs[i] == '\r' && i+1 < len(rs) && rs[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	if start < len(rs) {
		out = append(out, string(rs[start:]))
	}
	return out
}

// pyStrip is Python's str.strip() with no argument.
func pyStrip(s string) string { return strings.TrimFunc(s, PyIsSpace) }

// pyStripChars is str.strip(chars), lstrip and rstrip with an argument.
func pyStripChars(s, chars string, left, right bool) string {
	in := func(r rune) bool { return strings.ContainsRune(chars, r) }
	if left {
		s = strings.TrimLeftFunc(s, in)
	}
	if right {
		s = strings.TrimRightFunc(s, in)
	}
	return s
}

// squeezeSpace is re.sub(r'\s+', ' ', s).
func squeezeSpace(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if PyIsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// pySplit is Python's str.split() with no argument: runs of whitespace
// separate, none at the ends.
func pySplit(s string) []string { return strings.FieldsFunc(s, PyIsSpace) }
