package dialect

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	cases := []struct{ name, in string }{
		{"plain", "hello"},
		{"double quotes", `say "hi"`},
		{"single quotes", "It's"},
		{"backslashes", `C:\Users\x\n`},
		{"newlines", "a\nb\r\nc"},
		{"tab", "a\tb"},
		{"control characters", "\x00\x01\x1b[31m\x7f"},
		{"non-ASCII", "Grüße, 東京 ✓ 😀"},
		{"C1 and line separators", "a\u0085b\u2028c\u2029d"},
		{"injection attempt", "\")\nlaunch(\"rm -rf /\")\n#"},
		{"triple quotes", `"""'''`},
		{"empty", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := quote(c.in)
			if strings.ContainsAny(q, "\n\r") {
				t.Errorf("quote(%q) = %s spans lines", c.in, q)
			}
			got, err := evalString(q)
			if err != nil || got != c.in {
				t.Errorf("eval(quote(%q)) = %q, %v", c.in, got, err)
			}
		})
	}
	t.Run("invalid UTF-8 becomes U+FFFD", func(t *testing.T) {
		got, err := evalString(quote("a\xffb"))
		if err != nil || got != "a\uFFFDb" {
			t.Errorf("got %q, %v", got, err)
		}
	})
}

func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", `"`, `\`, "\n", "\xff", "\u2028", "a\x00b", "😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := evalString(quote(s))
		if err != nil {
			t.Fatalf("quote(%q) = %s does not evaluate: %v", s, quote(s), err)
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); got != want {
			t.Fatalf("eval(quote(%q)) = %q, want %q", s, got, want)
		}
		if !utf8.ValidString(quote(s)) {
			t.Fatalf("quote(%q) is not valid UTF-8", s)
		}
	})
}

func TestNumber(t *testing.T) {
	cases := []struct {
		in   float64
		want string
	}{
		{197, "197"}, {-5, "-5"}, {197.5, "197.5"}, {0.31, "0.31"}, {1e20, "1e+20"}, {0, "0"},
	}
	for _, c := range cases {
		if got := number(c.in); got != c.want {
			t.Errorf("number(%g) = %q, want %q", c.in, got, c.want)
		}
		if c.in != math.Trunc(c.in) || math.Abs(c.in) < 1e15 {
			if _, err := evalString(`str(` + number(c.in) + `)`); err != nil {
				t.Errorf("number(%g) = %q is not Starlark: %v", c.in, number(c.in), err)
			}
		}
	}
}
