//go:build linux

package eval

import (
	"deskpilot/eval/checks"
	"math"
	"strings"
)

// ScoreGAIA reports whether answer is correct for the ground truth truth, with the
// semantics of GAIA's official question_scorer (the gaia-benchmark leaderboard's
// scorer.py). The ground truth picks the branch:
//
//   - truth is a number (Python float() accepts it): answer with every "$", "%"
//     and "," removed, read as a float (anything unreadable counts as +inf), must
//     equal float(truth). So "1,000" is right for "1000", and "50%" is wrong for
//     "0.5" (50 ≠ 0.5).
//   - truth contains "," or ";": both are split on either character; the element
//     counts must match and each pair must match in order, as numbers when the
//     truth element is a number (as above), else with whitespace removed and
//     lower-cased (punctuation kept).
//   - otherwise: both with whitespace and ASCII punctuation removed and
//     lower-cased must be equal. Curly quotes and accents are not ASCII
//     punctuation: "don’t" is wrong for "don't", "cafe" for "café".
//
// The quirks are kept on purpose, since scores must compare with published ones:
// a truth of "1,000" is a two-element list (so "1000" is wrong), NaN equals
// nothing, and a truth of "inf" accepts any answer that is not a number.
func ScoreGAIA(answer, truth string) bool {
	if t, ok := checks.PyFloat(truth); ok {
		return gaiaNumber(answer) == t
	}
	if !strings.ContainsAny(truth, ",;") {
		return gaiaNormalize(answer, true) == gaiaNormalize(truth, true)
	}
	gt, ma := gaiaSplit(truth), gaiaSplit(answer)
	if len(gt) != len(ma) {
		return false
	}
	for i, g := range gt {
		if t, ok := checks.PyFloat(g); ok {
			if gaiaNumber(ma[i]) != t {
				return false
			}
		} else if gaiaNormalize(ma[i], false) != gaiaNormalize(g, false) {
			return false
		}
	}
	return true
}

// gaiaNumber is normalize_number_str: "$", "%" and "," removed, then float();
// +inf when that fails.
func gaiaNumber(s string) float64 {
	s = strings.NewReplacer("$", "", "%", "", ",", "").Replace(s)
	if f, ok := checks.PyFloat(s); ok {
		return f
	}
	return math.Inf(1)
}

// gaiaSplit is split_string: re.split("[,;]", s), empty elements kept.
func gaiaSplit(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ',' || s[i] == ';' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// asciiPunct is Python's string.punctuation.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// gaiaNormalize is normalize_str: every whitespace character removed, lower-cased,
// then (with removePunct) ASCII punctuation removed.
func gaiaNormalize(s string, removePunct bool) string {
	s = strings.Map(func(r rune) rune {
		if checks.PyIsSpace(r) {
			return -1
		}
		return r
	}, s)
	s = checks.PyLower(s)
	if removePunct {
		s = strings.Map(func(r rune) rune {
			if r < 0x80 && strings.ContainsRune(asciiPunct, r) {
				return -1
			}
			return r
		}, s)
	}
	return s
}
