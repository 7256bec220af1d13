//go:build linux

package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"deskpilot/eval/checks"
)

// pyautoguiExec runs a pyautogui script in the box, as the tasks' execute
// steps do.
func pyautoguiExec(t *testing.T, b *box, code string) {
	t.Helper()
	res, err := b.exec(t.Context(), command{args: []string{"python", "-c", code}})
	if err != nil || res.code != 0 {
		t.Fatalf("pyautogui %q: exit %d, %v\n%s", code, res.code, err, res.stderr)
	}
}

// terminalOutput runs the vm_terminal_output getter on the box.
func terminalOutput(ctx context.Context, b *box) (any, error) {
	return checks.Get(ctx, b.checkEnv(""), map[string]any{"type": "vm_terminal_output"})
}

// waitTerminal reads the getter until its text holds want (the shell's
// output reaches the accessibility tree a moment after the keys).
func waitTerminal(t *testing.T, b *box, want string) string {
	t.Helper()
	var last any
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(300 * time.Millisecond) {
		v, err := terminalOutput(t.Context(), b)
		if err != nil {
			t.Fatalf("vm_terminal_output: %v", err)
		}
		if s, ok := v.(string); ok && strings.Contains(s, want) {
			return s
		}
		last = v
	}
	t.Fatalf("vm_terminal_output never held %q; last %#v", want, last)
	return ""
}

// waitWindow waits for a window whose WM_CLASS has class.
func waitWindow(t *testing.T, b *box, class string) {
	t.Helper()
	env := b.checkEnv("")
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		wins, _ := env.Windows(t.Context())
		for _, w := range wins {
			for _, c := range w.Class {
				if strings.EqualFold(c, class) {
					return
				}
			}
		}
	}
	t.Fatalf("no %s window appeared", class)
}

// TestTerminalOutput: Ctrl+Alt+T, pressed through XTest as the tasks press
// it, opens GNOME Terminal in the task's box; a command typed right after
// reaches it and runs in the box, and vm_terminal_output reads its output from the terminal's
// accessible text. With no terminal open, and with the terminal's window no
// longer the active one, the getter gives None, as OSWorld's endpoint does.
func TestTerminalOutput(t *testing.T) {
	needTools(t, "gnome-terminal", "xterm")
	b := testBox(t)
	b.startShortcuts()
	if v, err := terminalOutput(t.Context(), b); err != nil || v != nil {
		t.Fatalf("no terminal open: vm_terminal_output = %#v, %v; want None", v, err)
	}
	// Typed right after the keys (os/13584542 waits half a second, which a
	// cold terminal here may miss): the keyboard waits for the terminal's
	// window, and the keys reach it.
	pyautoguiExec(t, b, "import pyautogui; pyautogui.hotkey('ctrl', 'alt', 't'); "+
		"pyautogui.write('echo made in $(hostname): $((6 * 7))'); pyautogui.press('enter')")
	text := waitTerminal(t, b, "made in "+boxHost+": 42")
	t.Logf("terminal text: %q", text)
	if text != strings.TrimRight(text, " \n\t") {
		t.Errorf("the terminal's text is not right-stripped: %q", text)
	}
	if !strings.Contains(text, "echo made in $(hostname): $((6 * 7))") {
		t.Errorf("the typed command is not in the terminal's text:\n%s", text)
	}
	// Another window takes the focus: the terminal's frame is not active.
	if err := b.launch(t.Context(), []string{"xterm", "-title", "other"}); err != nil {
		t.Fatal(err)
	}
	waitWindow(t, b, "xterm")
	var v any
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(300 * time.Millisecond) {
		var err error
		if v, err = terminalOutput(t.Context(), b); err != nil {
			t.Fatal(err)
		}
		if v == nil {
			break
		}
	}
	if v != nil {
		t.Errorf("with xterm active: vm_terminal_output = %s; want None", fmt.Sprintf("%q", v))
	}
}
