package checks

import "fmt"

// maxFuzzy is the longest string (in code points) fuzzy matching compares.
const maxFuzzy = 20000

// fuzzRatio is rapidfuzz's fuzz.ratio(a, b) / 100: the normalized InDel
// similarity of the two strings' code points, 2·LCS / (len(a) + len(b)); 1 when
// both are empty.
func fuzzRatio(a, b string) (float64, error) {
	return indelRatio([]rune(a), []rune(b))
}

func indelRatio(ra, rb []rune) (float64, error) {
	if len(ra) > maxFuzzy || len(rb) > maxFuzzy {
		return 0, fmt.Errorf("fuzzy match: strings longer than %d characters", maxFuzzy)
	}
	if len(ra)+len(rb) == 0 {
		return 1, nil
	}
	if len(rb) > len(ra) {
		ra, rb = rb, ra
	}
	prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1)
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			if ra[i-1] == rb[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		prev, cur = cur, prev
	}
	return 2 * float64(prev[len(rb)]) / float64(len(ra)+len(rb)), nil
}

// seqRatio is difflib.SequenceMatcher(None, a, b).ratio(): 2·M / (len(a) +
// len(b)) where M counts the elements of the matching blocks difflib finds
// (longest match first, recursively on both sides), with its autojunk rule:
// when b has 200 elements or more, an element making up more than 1% of b
// (plus one) is junk and starts no match.
func seqRatio[T comparable](a, b []T) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	b2j := map[T][]int{}
	for j, x := range b {
		b2j[x] = append(b2j[x], j)
	}
	if n := len(b); n >= 200 {
		ntest := n/100 + 1
		for x, idx := range b2j {
			if len(idx) > ntest {
				delete(b2j, x)
			}
		}
	}
	type span struct{ alo, ahi, blo, bhi int }
	matched := 0
	queue := []span{{0, len(a), 0, len(b)}}
	for len(queue) > 0 {
		s := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		i, j, k := longestMatch(a, b, b2j, s.alo, s.ahi, s.blo, s.bhi)
		if k == 0 {
			continue
		}
		matched += k
		if s.alo < i && s.blo < j {
			queue = append(queue, span{s.alo, i, s.blo, j})
		}
		if i+k < s.ahi && j+k < s.bhi {
			queue = append(queue, span{i + k, s.ahi, j + k, s.bhi})
		}
	}
	return 2 * float64(matched) / float64(len(a)+len(b))
}

// longestMatch is SequenceMatcher.find_longest_match with no isjunk function:
// the longest run among b's non-popular elements, then extended over equal
// elements (popular ones included) on both sides.
func longestMatch[T comparable](a, b []T, b2j map[T][]int, alo, ahi, blo, bhi int) (int, int, int) {
	besti, bestj, bestsize := alo, blo, 0
	j2len := map[int]int{}
	for i := alo; i < ahi; i++ {
		newj2len := map[int]int{}
		for _, j := range b2j[a[i]] {
			if j < blo {
				continue
			}
			if j >= bhi {
				break
			}
			k := j2len[j-1] + 1
			newj2len[j] = k
			if k > bestsize {
				besti, bestj, bestsize = i-k+1, j-k+1, k
			}
		}
		j2len = newj2len
	}
	for besti > alo && bestj > blo && a[besti-1] == b[bestj-1] {
		besti, bestj, bestsize = besti-1, bestj-1, bestsize+1
	}
	for besti+bestsize < ahi && bestj+bestsize < bhi && a[besti+bestsize] == b[bestj+bestsize] {
		bestsize++
	}
	return besti, bestj, bestsize
}
