package dialect

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// quote renders s as a Starlark string literal that evaluates to s (invalid
// UTF-8 replaced by U+FFFD). Every quote, backslash, newline and control
// character is escaped, so model text can never end the literal early: a
// hostile type(content=...) stays one string argument.
func quote(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case !unicode.IsPrint(r) && r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		case !unicode.IsPrint(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// number renders a finite coordinate or amount as a Starlark literal: an
// integer when it is one, else the shortest float that reads back the same.
func number(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// expr is a piece of Starlark the compiler wrote itself (never model text),
// passed through unquoted, e.g. here[0].
type expr string

// program accumulates the Starlark a dialect compiles a reply into: one
// builtin call per line, every argument a literal or an expr.
type program struct{ b strings.Builder }

// call appends fn(args...). Arguments are float64 (numbers), string
// (quoted), expr (as is) or kw (keyword arguments).
func (p *program) call(fn string, args ...any) {
	p.b.WriteString(fn)
	p.b.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			p.b.WriteString(", ")
		}
		p.b.WriteString(arg(a))
	}
	p.b.WriteString(")\n")
}

// line appends a statement the compiler wrote itself.
func (p *program) line(s string) {
	p.b.WriteString(s)
	p.b.WriteByte('\n')
}

func (p *program) String() string { return strings.TrimSuffix(p.b.String(), "\n") }

// kw is a keyword argument of program.call.
type kw struct {
	name  string
	value any
}

func arg(a any) string {
	switch v := a.(type) {
	case float64:
		return number(v)
	case int:
		return strconv.Itoa(v)
	case string:
		return quote(v)
	case expr:
		return string(v)
	case kw:
		return v.name + "=" + arg(v.value)
	}
	panic(fmt.Sprintf("dialect: unsupported argument %T", a))
}
