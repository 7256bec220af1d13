// Package editdist measures how far apart two words are, for the "did you
// mean" hints deskpilot gives the model and the person: a mistyped key name,
// accessibility role, or global name.
package editdist

// MaxRunes is how much of each word Distance reads: words come from the
// model and other untrusted input, and a hint needs no more.
const MaxRunes = 64

// Distance is the optimal string alignment distance between a and b: the
// fewest insertions, deletions, substitutions and swaps of adjacent runes
// that turn one into the other. Only the first MaxRunes runes of each count.
// Time and memory are bounded by MaxRunes².
func Distance(a, b string) int {
	ra, rb := runes(a), runes(b)
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

// runes returns the first MaxRunes runes of s.
func runes(s string) []rune {
	out := make([]rune, 0, min(len(s), MaxRunes))
	for _, r := range s {
		if len(out) == MaxRunes {
			break
		}
		out = append(out, r)
	}
	return out
}
