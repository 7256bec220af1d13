package script

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// output collects printed text up to a limit in characters (runes): it
// keeps the first limit/2 and the last limit-limit/2 and counts what falls
// between, so a runaway print loop costs bounded memory. The result is
// middle-truncated with a notice.
type output struct {
	limit     int // <= 0: unlimited
	head      strings.Builder
	headRunes int
	tail      []byte // the newest text once head is full; trimmed lazily
	total     int    // runes written
}

func (o *output) write(s string) {
	n := utf8.RuneCountInString(s)
	o.total += n
	half := o.limit / 2
	if o.limit <= 0 || o.headRunes+n <= half && len(o.tail) == 0 {
		o.head.WriteString(s)
		o.headRunes += n
		return
	}
	if room := half - o.headRunes; room > 0 {
		cut := prefixRunes(s, room)
		o.head.WriteString(cut)
		o.headRunes += room
		s = s[len(cut):]
	}
	o.tail = append(o.tail, s...)
	if keep := o.limit - half; len(o.tail) > 8*keep+1024 {
		o.tail = append(o.tail[:0], lastRunes(o.tail, keep)...)
	}
}

// String returns everything printed, or when it exceeded the limit the head
// and the tail around a notice saying how much was left out.
func (o *output) String() string {
	if o.limit <= 0 || o.total <= o.limit {
		return o.head.String() + string(o.tail)
	}
	keep := o.limit - o.limit/2
	tail := lastRunes(o.tail, keep)
	omitted := o.total - o.headRunes - utf8.RuneCount(tail)
	return fmt.Sprintf("%s\n..._output truncated: %d characters omitted to stay below %d characters_...\n%s",
		o.head.String(), omitted, o.limit, tail)
}

// prefixRunes returns the first n runes of s.
func prefixRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// lastRunes returns the last n runes of b.
func lastRunes(b []byte, n int) []byte {
	i := len(b)
	for i > 0 && n > 0 {
		_, size := utf8.DecodeLastRune(b[:i])
		i -= size
		n--
	}
	return b[i:]
}

// cutUTF8 returns the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence.
func cutUTF8(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// startsRune reports whether s begins at a UTF-8 sequence boundary.
func startsRune(s string) bool { return s == "" || utf8.RuneStart(s[0]) }
