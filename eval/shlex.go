//go:build linux

package eval

import "errors"

// shlexSplit splits s as Python's shlex.split(s) does (POSIX mode, no comments),
// which OSWorld applies to a command given as one string without a shell: blanks
// separate words; '…' is literal; in "…" a backslash escapes only " and \;
// elsewhere a backslash escapes any character; an empty pair of quotes makes an
// empty word.
func shlexSplit(s string) ([]string, error) {
	var (
		words   []string
		word    []rune
		inWord  bool
		quote   rune // 0, '\'' or '"'
		escaped bool
	)
	for _, r := range s {
		switch {
		case escaped:
			if quote == '"' && r != '"' && r != '\\' {
				word = append(word, '\\')
			}
			word = append(word, r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				word = append(word, r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				word = append(word, r)
			}
		case r == ' ' || r == '\t' || r == '\r' || r == '\n':
			if inWord {
				words = append(words, string(word))
				word, inWord = word[:0], false
			}
		case r == '\\':
			escaped, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		default:
			word, inWord = append(word, r), true
		}
	}
	switch {
	case escaped:
		return nil, errors.New("no escaped character after a final backslash")
	case quote != 0:
		return nil, errors.New("no closing quotation")
	case inWord:
		words = append(words, string(word))
	}
	return words, nil
}
