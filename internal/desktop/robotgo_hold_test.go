//go:build cgo && linux

package desktop

import (
	"testing"

	"deskpilot/actions"
)

// TestRobotgoCannotHold: robotgo's input keeps nothing down between
// primitives (it is no actions.Holder), so mouse_down, mouse_up and the
// modifiers of a pointer builtin fail with actions.ErrCannotHold and its
// hint (agent/script's TestHeldModifiersAndButton covers the message the model reads, and
// pyautogui's mouseDown across replies says the press did nothing). hold
// (Anthropic's hold_key) needs no Holder: robotgo presses the keys for the
// duration. README's backend table and docs/wayland.md say the same; a
// robotgo input that learns to hold must change them.
func TestRobotgoCannotHold(t *testing.T) {
	d := openTest(t, Options{Backend: "robotgo"})
	if _, ok := d.Input().(actions.Holder); ok {
		t.Fatal("the robotgo input holds keys and buttons now: update README's backend table and docs/wayland.md")
	}
	if err := d.Input().Hold(t.Context(), combo(t, "shift"), 0); err != nil {
		t.Errorf("hold shift: %v", err)
	}
}
