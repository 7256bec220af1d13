package checks

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// This file reproduces the three pieces of Python's str semantics that GAIA's
// official scorer leans on, where Go's standard library differs:
//
//   - float(s): Python accepts surrounding Unicode whitespace, underscores between
//     digits ("1_000"), any Unicode decimal digit ("٤٢" is 42.0), and "inf",
//     "infinity", "nan" in any case; it rejects hexadecimal ("0x2a") and overflows
//     to ±inf instead of failing. strconv.ParseFloat differs on all of these.
//   - re's \s and str.isspace: Go's unicode.IsSpace plus U+001C..U+001F (Python counts
//     the information separators as whitespace).
//   - str.lower: full case mapping, so "İ" becomes "i̇" (two code points) and a
//     capital sigma at the end of a word becomes "ς", as CPython's
//     handle_capital_sigma decides; unicode.ToLower maps rune by rune.
//
// Each was checked against CPython 3.11; eval's scorer tests pin the outcomes.

// PyIsSpace reports whether Python's str.isspace (and so re's \s) holds for r.
func PyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// PyFloat parses s as Python's float(s) does; ok is false where Python raises
// ValueError.
func PyFloat(s string) (f float64, ok bool) {
	// Python first maps whitespace to ' ' and decimal digits to ASCII; any other
	// non-ASCII character makes the string invalid.
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case PyIsSpace(r):
			b.WriteByte(' ')
		case r < 0x80:
			b.WriteRune(r)
		default:
			d, isDigit := digitValue(r)
			if !isDigit {
				return 0, false
			}
			b.WriteByte(byte('0' + d))
		}
	}
	t := strings.Trim(b.String(), " ")
	body := t
	neg := false
	if body != "" && (body[0] == '+' || body[0] == '-') {
		neg = body[0] == '-'
		body = body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	clean, ok := pyFloatLiteral(body)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(clean, 64)
	if err != nil {
		// Only a range error is possible for a string pyNumber accepted: Python
		// returns ±inf (overflow) or the rounded value (underflow), as ParseFloat
		// does alongside the error.
		if ne, isNum := err.(*strconv.NumError); !isNum || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	if neg {
		f = -f
	}
	return f, true
}

// pyFloatLiteral checks body (no sign, ASCII) against Python's float grammar
//
//	number   ::= [digitpart] "." digitpart | digitpart ["."]
//	exponent ::= ("e" | "E") ["+" | "-"] digitpart
//	digitpart ::= digit (["_"] digit)*
//
// and returns it without underscores.
func pyFloatLiteral(body string) (string, bool) {
	var out strings.Builder
	i := 0
	digits := func() bool { // one digitpart; false when none is there or it is malformed
		start := i
		for i < len(body) {
			c := body[i]
			switch {
			case c >= '0' && c <= '9':
				out.WriteByte(c)
				i++
			case c == '_' && i > start && i+1 < len(body) && body[i-1] != '_' && body[i+1] >= '0' && body[i+1] <= '9':
				i++
			default:
				return i > start && body[i-1] != '_'
			}
		}
		return i > start
	}
	intPart := i < len(body) && body[i] >= '0' && body[i] <= '9'
	if intPart && !digits() {
		return "", false
	}
	if i < len(body) && body[i] == '.' {
		out.WriteByte('.')
		i++
		if i < len(body) && body[i] >= '0' && body[i] <= '9' {
			if !digits() {
				return "", false
			}
		} else if !intPart {
			return "", false // "." alone
		}
	} else if !intPart {
		return "", false
	}
	if i < len(body) && (body[i] == 'e' || body[i] == 'E') {
		out.WriteByte('e')
		i++
		if i < len(body) && (body[i] == '+' || body[i] == '-') {
			out.WriteByte(body[i])
			i++
		}
		if i >= len(body) || body[i] < '0' || body[i] > '9' || !digits() {
			return "", false
		}
	}
	if i != len(body) {
		return "", false
	}
	return out.String(), true
}

// digitValue returns the value of a Unicode decimal digit (category Nd). Every
// range of unicode.Nd starts at a digit zero and holds whole runs of ten.
func digitValue(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	for _, g := range unicode.Nd.R16 {
		if lo, hi := rune(g.Lo), rune(g.Hi); r >= lo && r <= hi {
			if g.Stride != 1 {
				return 0, false
			}
			return int(r-lo) % 10, true
		}
	}
	for _, g := range unicode.Nd.R32 {
		if lo, hi := rune(g.Lo), rune(g.Hi); r >= lo && r <= hi {
			if g.Stride != 1 {
				return 0, false
			}
			return int(r-lo) % 10, true
		}
	}
	return 0, false
}

// PyLower is Python's str.lower.
func PyLower(s string) string {
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range rs {
		switch r {
		case 'İ': // U+0130: the one unconditional multi-rune lowercase mapping
			b.WriteString("i\u0307")
		case 'Σ':
			if finalSigma(rs, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma reports whether the capital sigma at rs[i] ends a word: a cased letter
// before it and none after it, skipping case-ignorable characters both ways
// (Unicode's Final_Sigma condition).
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !cased(rs[j]) {
		return false
	}
	j = i + 1
	for j < len(rs) && caseIgnorable(rs[j]) {
		j++
	}
	return j == len(rs) || !cased(rs[j])
}

// cased is Unicode's Cased property.
func cased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// caseIgnorable is Unicode's Case_Ignorable property: marks, format characters,
// modifiers, and the word-break MidLetter, MidNumLet and Single_Quote characters.
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '·', 0x387, 0x55F, 0x5F4, 0x2018, 0x2019, 0x2024, 0x2027,
		0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
