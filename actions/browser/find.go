package browser

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxQuery bounds the length of a find_on_page query (bytes).
const maxQuery = 1000

// wordIndex is a page's text reduced to lower-case words separated by single
// spaces, with the byte offset of each word in both texts, so a match in the
// reduced text can be mapped back to a viewport.
type wordIndex struct {
	norm   string
	normAt []int32 // start of word i in norm
	origAt []int32 // start of word i in the page text
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func buildIndex(text string) *wordIndex {
	w := &wordIndex{}
	var b strings.Builder
	b.Grow(len(text))
	inWord := false
	for i, r := range text {
		if !isWordRune(r) {
			inWord = false
			continue
		}
		if !inWord {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			w.normAt = append(w.normAt, int32(b.Len()))
			w.origAt = append(w.origAt, int32(i))
			inWord = true
		}
		b.WriteRune(unicode.ToLower(r))
	}
	w.norm = b.String()
	return w
}

// wordAt is the index of the word holding norm offset off.
func (w *wordIndex) wordAt(off int) int {
	return max(sort.Search(len(w.normAt), func(i int) bool { return int(w.normAt[i]) > off })-1, 0)
}

// firstWordFrom is the norm offset of the first word starting at or after the
// page text offset orig (len(norm) when there is none).
func (w *wordIndex) firstWordFrom(orig int) int {
	i := sort.Search(len(w.origAt), func(i int) bool { return int(w.origAt[i]) >= orig })
	if i == len(w.origAt) {
		return len(w.norm)
	}
	return int(w.normAt[i])
}

// nextWordAfter is the norm offset of the first word starting after off.
func (w *wordIndex) nextWordAfter(off int) int {
	i := sort.Search(len(w.normAt), func(i int) bool { return int(w.normAt[i]) > off })
	if i == len(w.normAt) {
		return len(w.norm)
	}
	return int(w.normAt[i])
}

// search finds the first match starting at or after from (a word start),
// wrapping to the top; it reports the match's norm offset.
func (w *wordIndex) search(re *regexp.Regexp, from int) (int, bool) {
	if loc := re.FindStringSubmatchIndex(w.norm[from:]); loc != nil {
		return from + loc[2], true
	}
	if loc := re.FindStringSubmatchIndex(w.norm); loc != nil && loc[2] < from {
		return loc[2], true
	}
	return 0, false
}

// origOffset maps a norm offset to a page text offset.
func (w *wordIndex) origOffset(off int) int {
	if len(w.origAt) == 0 {
		return 0
	}
	return int(w.origAt[w.wordAt(off)])
}

// compileQuery turns a find_on_page query into a regexp over a wordIndex's
// text. Matching ignores case and punctuation; "*" stands for any run of
// characters ("the * fox" also matches "the fox"; "photo*" matches
// "photosynthesis"). Group 1 spans the match. It returns nil when the query has
// no letters or digits.
func compileQuery(q string) *regexp.Regexp {
	if len(q) > maxQuery {
		q = q[:maxQuery]
	}
	q = strings.ToValidUTF8(q, "")
	var n strings.Builder
	space := false
	for _, r := range q {
		switch {
		case isWordRune(r):
			if space && n.Len() > 0 {
				n.WriteByte(' ')
			}
			space = false
			n.WriteRune(unicode.ToLower(r))
		case r == '*':
			if space && n.Len() > 0 {
				n.WriteByte(' ')
			}
			space = false
			n.WriteByte('*')
		default:
			space = true
		}
	}
	nq := n.String()
	if strings.Trim(nq, "* ") == "" {
		return nil
	}
	lead, trail := !strings.HasPrefix(nq, "*"), !strings.HasSuffix(nq, "*")
	nq = strings.TrimSpace(strings.Trim(nq, "*"))
	var body strings.Builder
	for i := 0; i < len(nq); {
		c := nq[i]
		if c != '*' {
			_, size := utf8.DecodeRuneInString(nq[i:])
			body.WriteString(regexp.QuoteMeta(nq[i : i+size]))
			i += size
			continue
		}
		spaced := i > 0 && nq[i-1] == ' ' && i+1 < len(nq) && nq[i+1] == ' '
		if spaced {
			body.WriteString(`(?:.*? )?`) // zero or more whole words
			i += 2                        // the star and the space after it
		} else {
			body.WriteString(`.*?`)
			i++
		}
	}
	pat := "(" + body.String() + ")"
	if lead {
		pat = "(?:^| )" + pat
	}
	if trail {
		pat += "(?: |$)"
	}
	return regexp.MustCompile(pat)
}
