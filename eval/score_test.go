//go:build linux

package eval

import (
	"deskpilot/eval/checks"
	"math"
	"strconv"
	"strings"
	"testing"
)

// Every want below is what GAIA's official question_scorer (the leaderboard's
// scorer.py) returned for the pair under CPython 3.11.7; nothing here is a guess.
func TestScoreGAIA(t *testing.T) {
	tests := []struct {
		name, answer, truth string
		want                bool
	}{
		{"thousands separator in answer", "1,000", "1000", true},
		{"thousands separator in truth", "1000", "1,000", false},
		{"both with separators", "1,000", "1,000", true},
		{"percent vs fraction", "50%", "0.5", false},
		{"percent truth", "50", "50%", true},
		{"percent truth fraction answer", "0.5", "50%", false},
		{"percent truth spaced", "50 %", "50%", true},
		{"dollar", "$1,234.50", "1234.5", true},
		{"trailing zero", "17.000", "17", true},
		{"scientific", "1e3", "1000", true},
		{"spaces around number", "  42 \n", "42", true},
		{"number with unit", "42 km", "42", false},
		{"number word", "forty-two", "42", false},
		{"negative", "-3", "-3.0", true},
		{"plus sign", "+3", "3", true},
		{"underscore digits", "1_000", "1000", true},
		{"truth with underscore", "1000", "1_000", true},
		{"nan truth", "nan", "nan", false},
		{"NaN answer", "NaN", "5", false},
		{"inf truth garbage answer", "no idea", "inf", true},
		{"inf truth inf answer", "Infinity", "inf", true},
		{"empty answer number truth", "", "5", false},
		{"empty answer string truth", "", "Paris", false},
		{"empty both", "", "", true},
		{"punct only answer empty truth", "...", "", true},
		{"curly apostrophe", "don’t", "don't", false},
		{"straight apostrophe", "dont", "don't", true},
		{"curly quotes", "“Paris”", "Paris", false},
		{"straight quotes", "\"Paris\"", "Paris", true},
		{"accent", "cafe", "café", false},
		{"accent same", "CAFÉ", "café", true},
		{"case", "PARIS", "paris", true},
		{"sea gull", "sea gull", "seagull", true},
		{"hyphen", "sea-gull", "seagull", true},
		{"period end", "Paris.", "Paris", true},
		{"list order", "b, a", "a, b", false},
		{"list same", "a,b", "a, b", true},
		{"list case", "A, B", "a, b", true},
		{"list punct kept", "a., b", "a, b", false},
		{"list semicolon vs comma", "a, b", "a; b", true},
		{"list length", "a, b, c", "a, b", false},
		{"list numeric elem", "1.0, x", "1, x", true},
		{"list numeric elem comma money", "$1, x", "1, x", true},
		{"list percent elem", "5%, y", "5, y", true},
		{"list numeric elem bad", "one, x", "1, x", false},
		{"list trailing comma", "a, b,", "a, b", false},
		{"list empty elems", "a,,b", "a,,b", true},
		{"list with and", "a and b", "a, b", false},
		{"list whitespace inside", "new york, la", "New York, LA", true},
		{"nbsp", "New\u00a0York", "new york", true},
		{"unit sep", "New\u001fYork", "new york", true},
		{"zero width space", "New\u200bYork", "new york", false},
		{"ideographic space", "New\u3000York", "new york", true},
		{"arabic digits answer", "٤٢", "42", true},
		{"arabic digits truth", "42", "٤٢", true},
		{"fullwidth digits", "４２", "42", true},
		{"hex answer", "0x2a", "42", false},
		{"hex float", "0x1p5", "32", false},
		{"dot only", ".", "0", false},
		{"leading dot", ".5", "0.5", true},
		{"trailing dot", "5.", "5", true},
		{"exponent underscore", "1e1_0", "10000000000", true},
		{"double underscore", "1__0", "10", false},
		{"big", "1e400", "inf", true},
		{"neg zero", "-0", "0", true},
		{"german sharp s", "STRASSE", "straße", false},
		{"dotted I", "İstanbul", "istanbul", false},
		{"final sigma", "ΟΔΟΣ", "οδος", true},
		{"kelvin sign", "\u212a", "k", true},
		{"tab inside", "a\tb", "ab", true},
		{"truth number with spaces", "5", " 5 ", true},
		{"truth list with number and spaces", "5, a", " 5 , a", true},
		{"answer with comma decimal", "3,5", "3.5", false},
		{"semicolon number answer", "1;000", "1000", false},
		{"truth infinity word", "whatever", "Infinity", true},
		{"truth +inf", "x", "+inf", true},
		{"truth -inf", "x", "-inf", false},
		{"truth nan list", "nan, a", "nan, a", false},
		{"truth inf list garbage", "zzz, a", "inf, a", true},
		{"sigma before punctuation", "ΟΔΟΣ.", "οδος", true},
		{"sigma inside word after whitespace removal", "ας βς", "ΑΣ ΒΣ", false},
		{"sigma alone", "σ", "Σ", true},
		{"sigma alone final", "ς", "Σ", false},
		{"sigma list element", "οδος, x", "ΟΔΟΣ, x", true},
		{"dotted I lowered", "i\u0307stanbul", "İstanbul", true},
		{"file separator space", "a\u001cb", "ab", true},
		{"next line char", "a\u0085b", "ab", true},
		{"mathematical digits", "\U0001d7d2", "4", true},
		{"number truth list-looking answer", "1,2", "12", true},
		{"list numeric truth inf elem", "abc, d", "infinity, d", true},
		{"list numeric underscores", "1_0, d", "10, d", true},
		{"fraction", "1/2", "0.5", false},
		{"word truth with digits", "Route 66", "route66", true},
		{"list of numbers", "3, 4, 5", "3,4,5", true},
		{"list of numbers wrong", "3, 4, 6", "3,4,5", false},
		{"list spaces only differ", "3 ,4 ,5", "3,4,5", true},
		{"currency string truth", "USD 5", "$5", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ScoreGAIA(tt.answer, tt.truth); got != tt.want {
				t.Errorf("ScoreGAIA(%q, %q) = %v, want %v", tt.answer, tt.truth, got, tt.want)
			}
		})
	}
}

// Python's float() on strings, as CPython 3.11.7 answered.
func TestPyFloat(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"42", 42, true},
		{" \t42\n", 42, true},
		{"+1.5", 1.5, true},
		{"-0", math.Copysign(0, -1), true},
		{".5", 0.5, true},
		{"5.", 5, true},
		{"1e3", 1000, true},
		{"1E-2", 0.01, true},
		{"1_000", 1000, true},
		{"1_000.000_5", 1000.0005, true},
		{"1e1_0", 1e10, true},
		{"1e400", math.Inf(1), true},
		{"-1e400", math.Inf(-1), true},
		{"1e-400", 0, true},
		{"InFiNiTy", math.Inf(1), true},
		{"-inf", math.Inf(-1), true},
		{"\u0664\u0662", 42, true},
		{"\uff14\uff12.\uff15", 42.5, true},
		{"\U0001d7d2", 4, true},
		{"\u00a042\u3000", 42, true},
		{"", 0, false},
		{" ", 0, false},
		{".", 0, false},
		{"e5", 0, false},
		{"1e", 0, false},
		{"1e+", 0, false},
		{"_1", 0, false},
		{"1_", 0, false},
		{"1__0", 0, false},
		{"1_.5", 0, false},
		{"1._5", 0, false},
		{"0x2a", 0, false},
		{"0x1p5", 0, false},
		{"1 000", 0, false},
		{"infinit", 0, false},
		{"inf inity", 0, false},
		{"++1", 0, false},
		{"1.5.2", 0, false},
		{"42\u200b", 0, false},
		{"Ⅻ", 0, false}, // a Roman numeral is Nl, not a decimal digit
	}
	for _, tt := range tests {
		t.Run(strconv.Quote(tt.in), func(t *testing.T) {
			got, ok := checks.PyFloat(tt.in)
			if ok != tt.ok || (ok && (got != tt.want || math.Signbit(got) != math.Signbit(tt.want))) {
				t.Errorf("checks.PyFloat(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
	t.Run("nan", func(t *testing.T) {
		if got, ok := checks.PyFloat(" -NaN "); !ok || !math.IsNaN(got) {
			t.Errorf("checks.PyFloat(-NaN) = %v, %v", got, ok)
		}
	})
}

// Python's str.lower where it differs from a rune-by-rune unicode.ToLower.
func TestPyLower(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ΟΔΟΣ", "οδος"},
		{"ΟΔΟΣ.", "οδος."},
		{"ΟΔΟΣ'Α", "οδοσ'α"},
		{"Σ", "σ"},
		{"ΑΣ ΒΣ", "ας βς"},
		{"İ", "i\u0307"},
		{"\u212a", "k"},
		{"ÀÉÎ", "àéî"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := checks.PyLower(tt.in); got != tt.want {
				t.Errorf("checks.PyLower(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzScoreGAIA(f *testing.F) {
	for _, s := range [][2]string{{"1,000", "1000"}, {"a; b", "a, b"}, {"ΟΔΟΣ", "οδος"}, {"1_0", "inf"}, {"\u0664", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, answer, truth string) {
		got := ScoreGAIA(answer, truth)
		if got != ScoreGAIA(answer, truth) {
			t.Fatal("not deterministic")
		}
		// A plain ASCII number is read as strconv reads it.
		if s := strings.TrimSpace(truth); s != "" && !strings.ContainsAny(s, "_xXpPiInN") {
			if want, err := strconv.ParseFloat(s, 64); err == nil {
				if v, ok := checks.PyFloat(s); !ok || v != want {
					t.Fatalf("checks.PyFloat(%q) = %v, %v; strconv says %v", s, v, ok, want)
				}
			}
		}
	})
}
