package actions

import (
	"strings"
	"unicode/utf8"

	"deskpilot/internal/editdist"
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
		if d := editdist.Distance(n, candidate); d < bestDist {
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
