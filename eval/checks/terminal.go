package checks

import (
	"context"
	"fmt"
	"strings"

	"deskpilot/a11y"
)

// A11yReader is the display's accessibility tree as a getter reads it: the
// elements of its applications in tree order (atspi.Client.Elements) and the
// whole text of one of them (atspi.Client.Text).
type A11yReader interface {
	Elements(ctx context.Context, q a11y.Query) ([]a11y.Element, a11y.Note, error)
	Text(ctx context.Context, e a11y.Element) (string, error)
	Close() error
}

// terminalApp is GNOME Terminal's application on the accessibility bus: the
// server process that owns its windows.
const terminalApp = "gnome-terminal-server"

// getTerminalOutput is OSWorld's vm_terminal_output, which its VM server's
// /terminal endpoint answers over AT-SPI: when a window (frame) of
// gnome-terminal-server is active, the text of the one focused terminal
// inside an active window of it, right-stripped, with U+FFFC and U+FFFD left
// out as the server's tree leaves them out; None when no terminal window is
// active or not exactly one terminal is focused in it. No accessibility bus
// is an error wrapping ErrUnavailable (the VM always has one).
func getTerminalOutput(ctx context.Context, env Env, _ map[string]any) (any, error) {
	r, err := env.Accessibility(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: vm_terminal_output: %v", ErrUnavailable, err)
	}
	defer r.Close()
	return TerminalOutput(ctx, r)
}

// TerminalOutput is what vm_terminal_output reads over r: the focused GNOME
// Terminal's text, or nil (None).
func TerminalOutput(ctx context.Context, r A11yReader) (any, error) {
	els, _, err := r.Elements(ctx, a11y.Query{})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: vm_terminal_output: %v", ErrUnavailable, err)
	}
	term, ok := focusedTerminal(els)
	if !ok {
		return nil, nil
	}
	text, err := r.Text(ctx, term)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// The server's walk raises on a terminal it cannot read: an error
		// status, which the controller turns into None.
		return nil, nil
	}
	text = strings.NewReplacer("\ufffc", "", "\ufffd", "").Replace(text)
	return strings.TrimRightFunc(text, PyIsSpace), nil
}

// focusedTerminal picks the terminal the /terminal endpoint reads from
// elements in tree order (an application's windows at depth 1): some frame
// of gnome-terminal-server is active, and exactly one terminal with the
// focused state is inside an active frame of it.
func focusedTerminal(els []a11y.Element) (a11y.Element, bool) {
	var found []a11y.Element
	anyActive, inActive := false, false
	for _, e := range els {
		if e.App != terminalApp {
			inActive = false
			continue
		}
		if e.Depth <= 1 {
			inActive = e.Depth == 1 && e.Role == "frame" && e.Has("active")
			anyActive = anyActive || inActive
			continue
		}
		if inActive && e.Role == "terminal" && e.Has("focused") {
			found = append(found, e)
		}
	}
	if !anyActive || len(found) != 1 {
		return a11y.Element{}, false
	}
	return found[0], true
}
