package desktop

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// rgKey maps a canonical key name (actions.KeyNames) to robotgo's name for
// it. Most are the same; robotgo presses shifted punctuation ("!", "?") as
// Shift plus the unshifted key of a US layout.
func rgKey(name string) string {
	switch name {
	case "super":
		return "cmd" // robotgo: Super_L on X11, the Windows key, Command on macOS
	case "plus":
		return "+"
	case "numlock":
		return "num_lock"
	case "scrolllock":
		return "scroll_lock"
	case "pause":
		return "pause_break"
	}
	return name
}

// normalizeText checks text for typing and rewrites "\r\n" and a lone "\r"
// to "\n". Other control characters and invalid UTF-8 are refused, with
// where they are.
func normalizeText(text string) (string, error) {
	if !utf8.ValidString(text) {
		return "", fmt.Errorf("the text is not valid UTF-8")
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	for i, r := range text {
		if r == '\n' || r == '\t' {
			continue
		}
		if unicode.IsControl(r) {
			return "", fmt.Errorf("control character %U at byte %d cannot be typed (only \\n and \\t are: they press Enter and Tab)", r, i)
		}
	}
	return text, nil
}
