package dialect

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// pyCall is one Python-style call as a model wrote it, e.g.
// click(start_box='(235,512)') or pyautogui.click(x=10, y=20).
type pyCall struct {
	name string
	args []pyArg // positional and keyword, in the order written
}

// pyArg is one argument: a string literal (decoded) or the raw text of any
// other value (a number, a tuple, a list).
type pyArg struct {
	key    string // "" for a positional argument
	val    string
	quoted bool
}

// kw returns the first keyword argument with one of the names.
func (c pyCall) kw(names ...string) (pyArg, bool) {
	for _, n := range names {
		for _, a := range c.args {
			if a.key == n {
				return a, true
			}
		}
	}
	return pyArg{}, false
}

// pos returns the i-th positional argument.
func (c pyCall) pos(i int) (pyArg, bool) {
	for _, a := range c.args {
		if a.key != "" {
			continue
		}
		if i == 0 {
			return a, true
		}
		i--
	}
	return pyArg{}, false
}

// maxCalls bounds the actions one reply may hold.
const maxCalls = 100

// callScanner reads calls off a string.
type callScanner struct {
	s   string
	i   int
	sep func(rest string) int // length of a separator at rest (e.g. "Action:"), 0 for none
}

// parseCalls reads a sequence of calls separated by blank space, ";" or
// comments ("# ..."). A string literal closes only at a quote followed by
// "," or ")", so content with an unescaped quote of its own kind (It's)
// still reads whole, as UI-TARS's reference parser allows.
func parseCalls(s string, sep func(rest string) int) ([]pyCall, error) {
	sc := &callScanner{s: s, sep: sep}
	var calls []pyCall
	for {
		sc.skipBlank()
		if sc.i >= len(sc.s) {
			return calls, nil
		}
		if len(calls) == maxCalls {
			return nil, fmt.Errorf("more than %d actions in one reply", maxCalls)
		}
		c, err := sc.call()
		if err != nil {
			return nil, err
		}
		calls = append(calls, c)
	}
}

func (sc *callScanner) skipBlank() {
	for sc.i < len(sc.s) {
		switch c := sc.s[sc.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';':
			sc.i++
		case c == '#':
			for sc.i < len(sc.s) && sc.s[sc.i] != '\n' {
				sc.i++
			}
		case sc.sep != nil && sc.sep(sc.s[sc.i:]) > 0:
			sc.i += sc.sep(sc.s[sc.i:])
		default:
			return
		}
	}
}

func isIdentByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && (c >= '0' && c <= '9' || c == '.')
}

// ident reads a (dotted) name.
func (sc *callScanner) ident() string {
	start := sc.i
	for sc.i < len(sc.s) && isIdentByte(sc.s[sc.i], sc.i == start) {
		sc.i++
	}
	return sc.s[start:sc.i]
}

func (sc *callScanner) spaces() {
	for sc.i < len(sc.s) && (sc.s[sc.i] == ' ' || sc.s[sc.i] == '\t') {
		sc.i++
	}
}

// errCut is a reply that ends inside an action.
var errCut = errors.New("the reply ends inside an action (cut off?)")

func (sc *callScanner) call() (pyCall, error) {
	name := sc.ident()
	if name == "" {
		return pyCall{}, fmt.Errorf("expected an action such as click(...), found %q", clip(sc.s[sc.i:], 40))
	}
	sc.spaces()
	if sc.i >= len(sc.s) || sc.s[sc.i] != '(' {
		return pyCall{}, fmt.Errorf("expected \"(\" after %q", name)
	}
	sc.i++
	c := pyCall{name: name}
	for {
		sc.blankInCall()
		if sc.i >= len(sc.s) {
			return pyCall{}, errCut
		}
		if sc.s[sc.i] == ')' {
			sc.i++
			return c, nil
		}
		a, err := sc.arg()
		if err != nil {
			return pyCall{}, err
		}
		c.args = append(c.args, a)
		sc.blankInCall()
		switch {
		case sc.i >= len(sc.s):
			return pyCall{}, errCut
		case sc.s[sc.i] == ',':
			sc.i++
		case sc.s[sc.i] != ')':
			return pyCall{}, fmt.Errorf("in %s(...): expected \",\" or \")\", found %q", name, clip(sc.s[sc.i:], 20))
		}
	}
}

func (sc *callScanner) blankInCall() {
	for sc.i < len(sc.s) && strings.IndexByte(" \t\r\n", sc.s[sc.i]) >= 0 {
		sc.i++
	}
}

// arg reads [name=]value.
func (sc *callScanner) arg() (pyArg, error) {
	var a pyArg
	save := sc.i
	if k := sc.ident(); k != "" {
		sc.spaces()
		if sc.i < len(sc.s) && sc.s[sc.i] == '=' && (sc.i+1 >= len(sc.s) || sc.s[sc.i+1] != '=') {
			a.key = k
			sc.i++
			sc.blankInCall()
		} else {
			sc.i = save
		}
	}
	if sc.i >= len(sc.s) {
		return a, errCut
	}
	switch c := sc.s[sc.i]; c {
	case '\'', '"':
		v, err := sc.str(c)
		a.val, a.quoted = v, true
		return a, err
	case '(', '[', '{':
		v, err := sc.bracketed()
		a.val = v
		return a, err
	}
	start := sc.i
	for sc.i < len(sc.s) && sc.s[sc.i] != ',' && sc.s[sc.i] != ')' && sc.s[sc.i] != '\n' {
		sc.i++
	}
	a.val = strings.TrimSpace(sc.s[start:sc.i])
	if a.val == "" {
		return a, fmt.Errorf("an argument has no value")
	}
	return a, nil
}

// str reads a string literal opened by q, triple-quoted ones too.
func (sc *callScanner) str(q byte) (string, error) {
	triple := strings.Repeat(string(q), 3)
	if strings.HasPrefix(sc.s[sc.i:], triple) {
		sc.i += 3
		end := strings.Index(sc.s[sc.i:], triple)
		if end < 0 {
			return "", errCut
		}
		v := unescape(sc.s[sc.i : sc.i+end])
		sc.i += end + 3
		return v, nil
	}
	sc.i++
	start := sc.i
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case '\\':
			sc.i += 2
			continue
		case q:
			if sc.closes(sc.i + 1) {
				v := unescape(sc.s[start:sc.i])
				sc.i++
				return v, nil
			}
		}
		sc.i++
	}
	return "", errCut
}

// closes reports whether a quote just before j ends its literal: what
// follows, after blanks, is "," or ")" or the end.
func (sc *callScanner) closes(j int) bool {
	for j < len(sc.s) && strings.IndexByte(" \t\r\n", sc.s[j]) >= 0 {
		j++
	}
	return j >= len(sc.s) || sc.s[j] == ',' || sc.s[j] == ')'
}

// bracketed reads a balanced (...), [...] or {...} value, quotes respected,
// and returns its raw text.
func (sc *callScanner) bracketed() (string, error) {
	start := sc.i
	depth := 0
	for sc.i < len(sc.s) {
		switch c := sc.s[sc.i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				sc.i++
				return sc.s[start:sc.i], nil
			}
		case '\'', '"':
			end := strings.IndexByte(sc.s[sc.i+1:], c)
			if end < 0 {
				return "", errCut
			}
			sc.i += end + 1
		}
		sc.i++
	}
	return "", errCut
}

// unescape decodes the escapes a Python string literal may hold (\n, \t,
// \r, \\, \', \", \uXXXX); any other backslash stays, as in Python.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch c := s[i+1]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\', '\'', '"':
			b.WriteByte(c)
		case 'u':
			if r, err := strconv.ParseUint(s[i+2:min(i+6, len(s))], 16, 32); err == nil && i+6 <= len(s) && utf8.ValidRune(rune(r)) {
				b.WriteRune(rune(r))
				i += 4
			} else {
				b.WriteString(`\u`)
			}
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
		i++
	}
	return b.String()
}

// clip shortens s for an error message.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "..."
}
