//go:build cgo && linux

package desktop

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-vgo/robotgo"
)

// How the robotgo backend types on X11.
//
// robotgo.Type types ASCII through the keymap, but any other character
// through input_utf, which opens a new X connection per character, rewrites
// the whole keyboard mapping to put the character on the last keycode and
// never restores it. Measured on Xvfb with the Tk form (internal/testapps), 3
// runs of "Grüße, 東京 ✓ naïve café — 100 € ± ½ «ok» Привет 😀" (43
// characters): every run lost the emoji (robotgo turns it into "\U0001f600",
// which no keysym is), one run typed "京京" for "東京" (the keymap was rewritten
// under the previous key event), and each took 0.53 to 1.45 s. 220 ASCII
// characters arrived exactly, in 1.4 s (6.4 ms a character).
//
// So: a short text (at most 64 characters) of printable ASCII, "\n" and "\t"
// whose keys are all on the keyboard is typed with robotgo's key events,
// which every program accepts; any other text is pasted: CLIPBOARD and
// PRIMARY are set to it, Shift+Insert is pressed (it pastes in GTK, Qt, Tk,
// xterm and VTE terminals, where Ctrl+V does not), the focused window's
// request is served, and both selections get back the text they held
// (selection_x11.go). BenchmarkType, same run, loaded machine:
// "Grüße, 東京 ✓" pasted in 68 ms (x11 backend: 34 ms) and arrived exactly;
// 200 ASCII characters took 1.52 s as robotgo key events (x11: 21 ms), so
// longer ASCII is pasted too.
const maxKeyedText = 64

// typeText types short keyboard text with key events, anything else by paste.
func (b *rgLinux) typeText(ctx context.Context, in *rgInput, text string) error {
	if keyboardText(text) && b.checkText(text) == nil {
		return typeKeys(ctx, in, text)
	}
	if b.clip == nil {
		clip, err := newSelectionOwner(b.name)
		if err != nil {
			return err
		}
		b.clip = clip
	}
	return b.clip.paste(ctx, text, func() error {
		if err := b.checkKeys([]string{"shift", "insert"}); err != nil {
			return err
		}
		return in.pressKeys([]string{"shift", "insert"})
	})
}

// keyboardText reports whether text is short and only printable ASCII, "\n"
// and "\t".
func keyboardText(text string) bool {
	if utf8.RuneCountInString(text) > maxKeyedText {
		return false
	}
	for _, r := range text {
		if (r < ' ' || r > '~') && r != '\n' && r != '\t' {
			return false
		}
	}
	return true
}

// checkText checks that the keysym of every character of ASCII text is on
// the keyboard (robotgo.Type looks each one up by its own keysym, "!" as
// exclam), and Shift when a character needs it.
func (b *rgLinux) checkText(text string) error {
	keys := []string{"enter", "tab"}
	seen := map[rune]bool{}
	for _, r := range text {
		if seen[r] || r == '\n' || r == '\t' {
			continue
		}
		seen[r] = true
		switch {
		case r == ' ':
			keys = append(keys, "space")
		case r == '+':
			keys = append(keys, "plus", "shift")
		case unicode.IsUpper(r):
			keys = append(keys, strings.ToLower(string(r)), "shift")
		default:
			k := string(r)
			if _, ok := shiftedBase(k); ok {
				keys = append(keys, "shift")
			}
			keys = append(keys, k)
		}
	}
	return b.checkNames(keys)
}

// typeKeys types ASCII text with robotgo, Enter for "\n" and Tab for "\t",
// checking ctx between pieces.
func typeKeys(ctx context.Context, in *rgInput, text string) error {
	const piece = 32
	for len(text) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		i := strings.IndexAny(text, "\n\t")
		switch {
		case i == 0:
			key := "enter"
			if text[0] == '\t' {
				key = "tab"
			}
			if err := in.pressKeys([]string{key}); err != nil {
				return err
			}
			text = text[1:]
			continue
		case i < 0 || i > piece:
			i = min(piece, len(text))
		}
		robotgo.Type(text[:i])
		text = text[i:]
	}
	return nil
}
