package cli

import (
	"bufio"
	"context"
	"deskpilot/agent/secret"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"golang.org/x/term"
)

// isTerminal reports whether r is a terminal: an *os.File on which the terminal
// ioctl succeeds. /dev/null, a pipe or a file are not, though /dev/null is a
// character device.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// errNoPerson is an answer read at end of input: nobody is at the terminal.
var errNoPerson = errors.New("nobody answered: standard input is closed")

// askLine asks a question on w and reads one line from in, honouring ctx. End of
// input before any text is errNoPerson.
func askLine(ctx context.Context, in *bufio.Reader, w io.Writer, q string) (string, error) {
	fmt.Fprintf(w, "%s\n> ", q)
	type line struct {
		s   string
		err error
	}
	ch := make(chan line, 1)
	go func() {
		s, err := in.ReadString('\n')
		ch <- line{strings.TrimRight(s, "\r\n"), err}
	}()
	select {
	case l := <-ch:
		if l.err != nil && l.s == "" {
			if errors.Is(l.err, io.EOF) {
				return "", errNoPerson
			}
			return "", fmt.Errorf("no answer: %w", l.err)
		}
		return l.s, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// sanitizer makes text from models, pages and files safe to print on a
// terminal: secrets become [redacted], and control characters other than
// newline and tab — escape sequences that move the cursor, recolour, retitle or
// clear the screen, a carriage return that overwrites a line, a backspace —
// are shown as visible escapes (\x1b, \r) instead of being obeyed.
type sanitizer struct {
	red *secret.Redactor // nil hides nothing
}

// clean returns s safe to print.
func (z sanitizer) clean(s string) string {
	return visibleControls(z.red.Text(s))
}

// visibleControls shows control characters (except newline and tab) and
// invalid UTF-8 as escapes.
func visibleControls(s string) string {
	clean := true
	for _, r := range s {
		if (unicode.IsControl(r) && r != '\n' && r != '\t') || r == unicode.ReplacementChar {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == unicode.ReplacementChar && len(s[i:]) > 0 && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r) && r != '\n' && r != '\t':
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
