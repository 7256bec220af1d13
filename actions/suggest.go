package actions

import (
	"strings"
	"unicode/utf8"
)

// maxSuggestLen bounds the names suggestKey compares; longer ones get none.
const maxSuggestLen = 32

// suggestKey returns the accepted spelling closest to an unknown key name, or
// "". A name that is a combo written with another separator ("ctrl-s",
// "ctrl s") gets the combo with "+"; otherwise the canonical name of the
// nearest name or alias within a small edit distance.
func suggestKey(name string) string {
	t := strings.TrimSpace(name)
	if utf8.RuneCountInString(t) > maxSuggestLen {
		return ""
	}
	isSep := func(r rune) bool { return r == '-' || r == ' ' || r == ',' || r == '_' }
	if fields := strings.FieldsFunc(t, isSep); len(fields) > 1 {
		if c, err := ParseCombo(strings.Join(fields, "+")); err == nil {
			return c.String()
		}
	}
	n := normalizeKey(t)
	if utf8.RuneCountInString(n) < 2 {
		return ""
	}
	limit := 1
	switch l := utf8.RuneCountInString(n); {
	case l > 8:
		limit = 3
	case l > 3:
		limit = 2
	}
	best, bestDist := "", limit+1
	consider := func(candidate, canonical string) {
		if len(candidate) < 2 {
			return
		}
		if d := editDistance(n, candidate); d < bestDist {
			best, bestDist = canonical, d
		}
	}
	for _, k := range KeyNames() {
		consider(k, k)
	}
	for _, a := range aliases() {
		consider(a[0], a[1])
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b
// (insertions, deletions, substitutions and adjacent transpositions), by rune.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
