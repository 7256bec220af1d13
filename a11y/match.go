package a11y

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
)

// Match returns the elements of elems that q selects, best first: with a Name,
// exact names before names that start with it, before names where it starts a word,
// before other substrings; then interactive elements before the rest; otherwise in
// the order of elems (the tree order Elements returns). An unknown role or state is
// a *QueryError. elems is not modified.
func Match(elems []Element, q Query) ([]Element, error) {
	var roles []string
	if strings.TrimSpace(q.Role) != "" {
		var err error
		if roles, err = ParseRole(q.Role); err != nil {
			return nil, err
		}
	}
	states, err := parseStates(q.States)
	if err != nil {
		return nil, err
	}
	want := foldName(q.Name)
	type hit struct {
		e    Element
		rank int
	}
	var hits []hit
	for _, e := range elems {
		if roles != nil && !slices.Contains(roles, e.Role) {
			continue
		}
		if q.Interactive && !e.Interactive {
			continue
		}
		if !q.Within.Empty() && !e.Bounds.Overlaps(q.Within) {
			continue
		}
		if !statesHold(e, states) {
			continue
		}
		rank := 0
		if want != "" {
			if rank = nameRank(foldName(e.Name), want, q.Exact); rank < 0 {
				continue
			}
			rank *= 2
			if !e.Interactive {
				rank++
			}
		}
		hits = append(hits, hit{e, rank})
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(a.rank, b.rank) })
	out := make([]Element, len(hits))
	for i, h := range hits {
		out[i] = h.e
	}
	return out, nil
}

// nameRank says how well name matches want (both folded): 0 equal, 1 prefix,
// 2 at a word start, 3 elsewhere; -1 no match.
func nameRank(name, want string, exact bool) int {
	switch {
	case name == want:
		return 0
	case exact:
		return -1
	case strings.HasPrefix(name, want):
		return 1
	}
	if !strings.Contains(name, want) {
		return -1
	}
	for off := 0; ; {
		j := strings.Index(name[off:], want)
		if j < 0 {
			return 3
		}
		if c := name[off+j-1]; c < 0x80 && !unicode.IsLetter(rune(c)) && !unicode.IsDigit(rune(c)) {
			return 2
		}
		off += j + 1
	}
}

// foldName lower-cases s and collapses every run of white space to one space.
func foldName(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// statesHold reports whether every wanted state holds (or, negated, does not).
func statesHold(e Element, want []stateWant) bool {
	for _, w := range want {
		if e.Has(stateNames[w.bit]) == w.negate {
			return false
		}
	}
	return true
}
