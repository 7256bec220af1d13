package gdrivetest

import (
	"errors"
	"strings"
	"unicode"
)

// The part of Drive v2's search query language OSWorld's tasks use:
// title, mimeType and trashed compared with = or !=, 'ID' in parents,
// and, or, not and parentheses, strings in single or double quotes with
// backslash escapes. Anything else is "Invalid query", as Drive answers.

type match func(*File) bool

func parseQuery(q string) (match, error) {
	if strings.TrimSpace(q) == "" {
		return nil, nil
	}
	p := &qparser{toks: lex(q)}
	if p.toks == nil {
		return nil, errors.New("lex")
	}
	m, err := p.or()
	if err != nil || p.i != len(p.toks) {
		return nil, errors.New("invalid query")
	}
	return m, nil
}

type qtok struct {
	s   string
	str bool // a quoted string
}

func lex(q string) []qtok {
	var out []qtok
	rs := []rune(q)
	for i := 0; i < len(rs); {
		c := rs[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '(' || c == ')' || c == '=':
			out = append(out, qtok{s: string(c)})
			i++
		case c == '!' && i+1 < len(rs) && rs[i+1] == '=':
			out = append(out, qtok{s: "!="})
			i += 2
		case c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			for ; j < len(rs) && rs[j] != c; j++ {
				if rs[j] == '\\' && j+1 < len(rs) {
					j++
				}
				b.WriteRune(rs[j])
			}
			if j >= len(rs) {
				return nil
			}
			out = append(out, qtok{s: b.String(), str: true})
			i = j + 1
		case unicode.IsLetter(c):
			j := i
			for j < len(rs) && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j])) {
				j++
			}
			out = append(out, qtok{s: string(rs[i:j])})
			i = j
		default:
			return nil
		}
	}
	if out == nil {
		out = []qtok{}
	}
	return out
}

type qparser struct {
	toks []qtok
	i    int
}

func (p *qparser) peek(s string) bool {
	return p.i < len(p.toks) && !p.toks[p.i].str && p.toks[p.i].s == s
}

func (p *qparser) or() (match, error) {
	m, err := p.and()
	for err == nil && p.peek("or") {
		p.i++
		var r match
		if r, err = p.and(); err == nil {
			l := m
			m = func(f *File) bool { return l(f) || r(f) }
		}
	}
	return m, err
}

func (p *qparser) and() (match, error) {
	m, err := p.unary()
	for err == nil && p.peek("and") {
		p.i++
		var r match
		if r, err = p.unary(); err == nil {
			l := m
			m = func(f *File) bool { return l(f) && r(f) }
		}
	}
	return m, err
}

func (p *qparser) unary() (match, error) {
	if p.peek("not") {
		p.i++
		m, err := p.unary()
		if err != nil {
			return nil, err
		}
		return func(f *File) bool { return !m(f) }, nil
	}
	if p.peek("(") {
		p.i++
		m, err := p.or()
		if err != nil || !p.peek(")") {
			return nil, errors.New("want )")
		}
		p.i++
		return m, nil
	}
	return p.cond()
}

func (p *qparser) cond() (match, error) {
	if p.i+3 > len(p.toks) {
		return nil, errors.New("short")
	}
	a, op, b := p.toks[p.i], p.toks[p.i+1], p.toks[p.i+2]
	p.i += 3
	if a.str && !op.str && op.s == "in" && !b.str && b.s == "parents" {
		id := a.s
		return func(f *File) bool {
			for _, x := range f.Parents {
				if x == id {
					return true
				}
			}
			return false
		}, nil
	}
	if a.str || op.str || op.s != "=" && op.s != "!=" {
		return nil, errors.New("bad condition")
	}
	eq := op.s == "="
	switch a.s {
	case "title", "mimeType":
		if !b.str {
			return nil, errors.New("want a string")
		}
		v := b.s
		return func(f *File) bool {
			got := f.MimeType
			if a.s == "title" {
				got, _ = f.Title.(string)
			}
			return (got == v) == eq
		}, nil
	case "trashed":
		if b.str || b.s != "true" && b.s != "false" {
			return nil, errors.New("want true or false")
		}
		v := b.s == "true"
		return func(f *File) bool { return (f.Trashed == v) == eq }, nil
	}
	return nil, errors.New("unknown field")
}
