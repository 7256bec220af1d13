package actions

import (
	"fmt"
	"strings"
)

// Button is a mouse button. The zero value is Left.
type Button int

// The mouse buttons deskpilot presses.
const (
	Left Button = iota
	Middle
	Right
)

// String returns "left", "middle" or "right" ("button(N)" for an invalid value).
func (b Button) String() string {
	switch b {
	case Left:
		return "left"
	case Middle:
		return "middle"
	case Right:
		return "right"
	}
	return fmt.Sprintf("button(%d)", int(b))
}

// Valid reports whether b is Left, Middle or Right.
func (b Button) Valid() bool { return b >= Left && b <= Right }

// ParseButton parses "left", "middle" (also "center", "centre", "wheel") or
// "right", ignoring case and surrounding space.
func ParseButton(s string) (Button, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "left":
		return Left, nil
	case "middle", "center", "centre", "wheel":
		return Middle, nil
	case "right":
		return Right, nil
	}
	return 0, fmt.Errorf("unknown mouse button %q: accepted buttons are left, middle, right", clip(s))
}

// Direction is a scroll direction: "up", "down", "left" or "right".
type Direction string

// The scroll directions.
const (
	ScrollUp    Direction = "up"
	ScrollDown  Direction = "down"
	ScrollLeft  Direction = "left"
	ScrollRight Direction = "right"
)

// Valid reports whether d is one of the four directions.
func (d Direction) Valid() bool {
	switch d {
	case ScrollUp, ScrollDown, ScrollLeft, ScrollRight:
		return true
	}
	return false
}

// ParseDirection parses "up", "down", "left" or "right", ignoring case and
// surrounding space.
func ParseDirection(s string) (Direction, error) {
	d := Direction(strings.ToLower(strings.TrimSpace(s)))
	if !d.Valid() {
		return "", fmt.Errorf("unknown scroll direction %q: accepted directions are up, down, left, right", clip(s))
	}
	return d, nil
}

// clip shortens s for an error message.
func clip(s string) string {
	const max = 40
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
