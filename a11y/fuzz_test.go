package a11y

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzQuery feeds model-written queries to Match: it never panics, and a failure is
// always a *QueryError.
func FuzzQuery(f *testing.F) {
	for _, s := range [][3]string{{"save", "button", "checked"}, {"", "PUSH_BUTTON", "!focused"},
		{"Ünïcode", "chekbox", "not disabled"}, {"\x00\xff", "", "!!!"}} {
		f.Add(s[0], s[1], s[2], false)
	}
	f.Fuzz(func(t *testing.T, name, role, state string, exact bool) {
		q := Query{Name: name, Role: role, Exact: exact}
		if state != "" {
			q.States = strings.Split(state, ",")
		}
		got, err := Match(sample(), q)
		if err != nil {
			var qe *QueryError
			if !errors.As(err, &qe) {
				t.Fatalf("Match error %T %v is not a QueryError", err, err)
			}
			return
		}
		if len(got) > len(sample()) {
			t.Fatalf("Match returned %d elements from %d", len(got), len(sample()))
		}
	})
}

// FuzzLinearize feeds application-written names and texts to the table: every line
// keeps its six columns, cells stay valid UTF-8 within MaxCell, the budget holds.
func FuzzLinearize(f *testing.F) {
	f.Add("OK", "text", 200)
	f.Add("a\nb\tc\r\u2028d", "\x1b[31m", 60)
	f.Add(strings.Repeat("é", 500), "\xff\xfe", 1000)
	f.Fuzz(func(t *testing.T, name, text string, budget int) {
		els := sample()
		els[2].Name, els[2].Text = name, text
		els[4].Name = text
		o := TableOptions{MaxChars: max(budget%5000, -(budget%5000)) + 1, MaxCell: 40}
		table, _ := Linearize(els, o)
		if !utf8.ValidString(table) {
			t.Fatalf("table is not valid UTF-8: %q", table)
		}
		lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
		for i, l := range lines {
			if i == len(lines)-1 && strings.HasPrefix(l, "… ") {
				continue
			}
			if strings.Count(l, "\t") != 5 {
				t.Fatalf("line %q has %d tabs", l, strings.Count(l, "\t"))
			}
			for _, cell := range strings.Split(l, "\t")[:3] {
				if utf8.RuneCountInString(cell) > 40 {
					t.Fatalf("cell %q longer than MaxCell", cell)
				}
			}
		}
		if len(lines) > 2 && len(table) > o.MaxChars {
			t.Fatalf("table of %d bytes over a %d budget", len(table), o.MaxChars)
		}
	})
}
