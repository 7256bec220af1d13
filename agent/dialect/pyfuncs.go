package dialect

import (
	"errors"
	"fmt"
	"strings"

	"deskpilot/actions"

	"go.starlark.net/starlark"
)

// Limits of the pyautogui module.
const (
	maxPresses      = 100            // presses= of one press() call
	maxScrollClicks = 10 * maxScroll // wheel clicks of one scroll() call
)

// point resolves pyautogui's x, y: numbers, an (x, y) pair in x, or both
// omitted for where the mouse is.
func (m *pyState) point(th *starlark.Thread, x, y starlark.Value) (starlark.Value, starlark.Value, error) {
	if y == starlark.None {
		if seq, ok := x.(starlark.Indexable); ok && seq.Len() == 2 {
			if _, isStr := x.(starlark.String); !isStr {
				x, y = seq.Index(0), seq.Index(1)
			}
		}
	}
	if x == starlark.None && y == starlark.None {
		here, err := m.call(th, "cursor_position", nil, nil)
		if err != nil {
			return nil, nil, err
		}
		t, ok := here.(starlark.Tuple)
		if !ok || len(t) != 2 {
			return nil, nil, errors.New("the mouse pointer is not on this screen; give x and y")
		}
		return t[0], t[1], nil
	}
	for _, v := range []starlark.Value{x, y} {
		switch v.(type) {
		case starlark.Int, starlark.Float:
		default:
			return nil, nil, fmt.Errorf("x and y must be numbers, got %s and %s", x.Type(), y.Type())
		}
	}
	return x, y, nil
}

// modifiers are the keys held by keyDown as a pointer builtin's modifiers
// argument (the keys stay down during the click, as in pyautogui), nil when
// none are held. Keys other than modifiers held during a mouse action are
// refused.
func (m *pyState) modifiers() ([]starlark.Tuple, error) {
	if !m.held.any() {
		return nil, nil
	}
	for _, k := range m.held.keys {
		if !actions.IsModifier(k) {
			return nil, fmt.Errorf("holding %s (keyDown) during a mouse action is not supported: only ctrl, alt, shift and super can be held; keyUp it first",
				strings.Join(m.held.keys, "+"))
		}
	}
	m.held.used = true
	return []starlark.Tuple{{starlark.String("modifiers"), starlark.String(strings.Join(m.held.keys, "+"))}}, nil
}

func (m *pyState) noHeld() error {
	if m.held.any() {
		return fmt.Errorf("holding %s (keyDown) during a mouse action or typing is not supported; keyUp it first, or use pyautogui.hotkey",
			strings.Join(m.held.keys, "+"))
	}
	return nil
}

// mouseButton reads pyautogui's button names.
func mouseButton(v string) (string, error) {
	switch strings.ToLower(v) {
	case "left", "primary":
		return "left", nil
	case "right", "secondary":
		return "right", nil
	case "middle":
		return "middle", nil
	}
	return "", fmt.Errorf("button %q: use 'left', 'right' or 'middle'", v)
}

// doClicks clicks n times (1-3) with button at x, y.
func (m *pyState) doClicks(th *starlark.Thread, x, y starlark.Value, n int, button string) (starlark.Value, error) {
	b, err := mouseButton(button)
	if err != nil {
		return nil, err
	}
	mods, err := m.modifiers()
	if err != nil {
		return nil, err
	}
	if n < 0 || n > 3 {
		return nil, fmt.Errorf("clicks must be 0 to 3, got %d", n)
	}
	x, y, err = m.point(th, x, y)
	if err != nil || n == 0 {
		return nil, err
	}
	at := starlark.Tuple{x, y}
	if b == "right" && n == 1 {
		return m.call(th, "right_click", at, mods)
	}
	if b != "left" {
		for range n {
			if _, err := m.call(th, "click", at, append([]starlark.Tuple{{starlark.String("button"), starlark.String(b)}}, mods...)); err != nil {
				return nil, err
			}
		}
		return starlark.None, nil
	}
	switch n {
	case 1:
		return m.call(th, "click", at, mods)
	case 2:
		return m.call(th, "double_click", at, mods)
	}
	// A click right after a double click counts as the third (see opTripleClick).
	if _, err := m.call(th, "double_click", at, mods); err != nil {
		return nil, err
	}
	return m.call(th, "click", at, mods)
}

func (m *pyState) click(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m.begin(th)
	x, y, clicks, button, ignore := starlark.Value(starlark.None), starlark.Value(starlark.None), 1, "left", starlark.Value(nil)
	if err := starlark.UnpackArgs(name, args, kwargs, "x?", &x, "y?", &y, "clicks?", &clicks, "interval?", &ignore,
		"button?", &button, "duration?", &ignore, "tween?", &ignore, "logScreenshot?", &ignore, "_pause?", &ignore); err != nil {
		return nil, err
	}
	return m.doClicks(th, x, y, clicks, button)
}

// clicks is doubleClick, tripleClick and computer.triple_click.
func (m *pyState) clicks(n int) pyFunc {
	return func(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		m.begin(th)
		x, y, button, ignore := starlark.Value(starlark.None), starlark.Value(starlark.None), "left", starlark.Value(nil)
		if err := starlark.UnpackArgs(name, args, kwargs, "x?", &x, "y?", &y, "interval?", &ignore, "button?", &button,
			"duration?", &ignore, "tween?", &ignore, "logScreenshot?", &ignore, "_pause?", &ignore); err != nil {
			return nil, err
		}
		return m.doClicks(th, x, y, n, button)
	}
}

// button is rightClick and middleClick.
func (m *pyState) button(b string) pyFunc {
	return func(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		m.begin(th)
		x, y, ignore := starlark.Value(starlark.None), starlark.Value(starlark.None), starlark.Value(nil)
		if err := starlark.UnpackArgs(name, args, kwargs, "x?", &x, "y?", &y, "interval?", &ignore,
			"duration?", &ignore, "tween?", &ignore, "logScreenshot?", &ignore, "_pause?", &ignore); err != nil {
			return nil, err
		}
		return m.doClicks(th, x, y, 1, b)
	}
}

func (m *pyState) moveTo(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m.begin(th)
	x, y, ignore := starlark.Value(starlark.None), starlark.Value(starlark.None), starlark.Value(nil)
	if err := starlark.UnpackArgs(name, args, kwargs, "x?", &x, "y?", &y, "duration?", &ignore, "tween?", &ignore,
		"logScreenshot?", &ignore, "_pause?", &ignore); err != nil {
		return nil, err
	}
	mods, err := m.modifiers()
	if err != nil {
		return nil, err
	}
	x, y, err = m.point(th, x, y)
	if err != nil {
		return nil, err
	}
	return m.call(th, "move", starlark.Tuple{x, y}, mods)
}

func (m *pyState) dragTo(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m.begin(th)
	x, y, button, ignore := starlark.Value(starlark.None), starlark.Value(starlark.None), "left", starlark.Value(nil)
	if err := starlark.UnpackArgs(name, args, kwargs, "x?", &x, "y?", &y, "duration?", &ignore, "tween?", &ignore,
		"button?", &button, "logScreenshot?", &ignore, "_pause?", &ignore, "mouseDownUp?", &ignore); err != nil {
		return nil, err
	}
	if b, err := mouseButton(button); err != nil || b != "left" {
		return nil, fmt.Errorf("only the left button drags, got %q", button)
	}
	mods, err := m.modifiers()
	if err != nil {
		return nil, err
	}
	x, y, err = m.point(th, x, y)
	if err != nil {
		return nil, err
	}
	fx, fy, err := m.point(th, starlark.None, starlark.None)
	if err != nil {
		return nil, err
	}
	return m.call(th, "drag", starlark.Tuple{fx, fy, x, y}, mods)
}

// mouseDown presses the left button and keeps it down (mouse_down), so a
// later moveTo drags and a mouseUp, in this program or a later one, drops:
// a drag over several replies, as pyautogui does it. With keys held by
// keyDown, or on a desktop whose input cannot keep a button down, it
// remembers the point instead, and this program's mouseUp drags from it
// (a later program's mouseUp says the press did nothing: never a silent
// no-op).
func (m *pyState) mouseDown(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m.begin(th)
	x, y, button, ignore := starlark.Value(starlark.None), starlark.Value(starlark.None), "left", starlark.Value(nil)
	if err := starlark.UnpackArgs(name, args, kwargs, "x?", &x, "y?", &y, "button?", &button, "duration?", &ignore,
		"tween?", &ignore, "logScreenshot?", &ignore, "_pause?", &ignore); err != nil {
		return nil, err
	}
	if b, err := mouseButton(button); err != nil || b != "left" {
		return nil, fmt.Errorf("only the left button can be held, got %q", button)
	}
	m.lost = nil
	moveFirst := x != starlark.None || y != starlark.None
	x, y, err := m.point(th, x, y)
	if err != nil {
		return nil, err
	}
	if !m.held.any() {
		_, err := m.call(th, "mouse_down", starlark.Tuple{x, y}, nil)
		if err == nil || !cannotHold(err) {
			return starlark.None, err
		}
	}
	if moveFirst {
		if _, err := m.call(th, "move", starlark.Tuple{x, y}, nil); err != nil {
			return nil, err
		}
	}
	m.down = starlark.Tuple{x, y}
	return starlark.None, nil
}

// mouseUp releases the button mouseDown holds, at the point given (the
// pointer drags there first), or ends a remembered mouseDown of this
// program: a drag to here, or a click when it is the same point.
func (m *pyState) mouseUp(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m.begin(th)
	x, y, button, ignore := starlark.Value(starlark.None), starlark.Value(starlark.None), "left", starlark.Value(nil)
	if err := starlark.UnpackArgs(name, args, kwargs, "x?", &x, "y?", &y, "button?", &button, "duration?", &ignore,
		"tween?", &ignore, "logScreenshot?", &ignore, "_pause?", &ignore); err != nil {
		return nil, err
	}
	x, y, err := m.point(th, x, y)
	if err != nil {
		return nil, err
	}
	down, lost := m.down, m.lost
	m.down, m.lost = nil, nil
	if down == nil {
		_, err := m.call(th, "mouse_up", starlark.Tuple{x, y}, nil)
		if err != nil && cannotHold(err) {
			if lost != nil {
				return nil, fmt.Errorf("the mouseDown(%v, %v) of an earlier reply pressed nothing: %w; "+
					"call mouseDown, moveTo and mouseUp in one reply, or use dragTo", lost[0], lost[1], actions.ErrCannotHold)
			}
			return starlark.None, nil // nothing can be down: nothing to release
		}
		return starlark.None, err
	}
	mods, err := m.modifiers()
	if err != nil {
		return nil, err
	}
	if same, err := starlark.Equal(down, starlark.Tuple{x, y}); err == nil && same {
		return m.call(th, "click", down, mods)
	}
	return m.call(th, "drag", starlark.Tuple{down[0], down[1], x, y}, mods)
}

// cannotHold reports whether err says the desktop's input cannot keep a
// button down (actions.ErrCannotHold, whose message crosses the sandbox).
func cannotHold(err error) bool {
	return strings.Contains(err.Error(), actions.ErrCannotHold.Error())
}

// scroll is scroll (positive up) and hscroll (positive right).
func (m *pyState) scroll(pos, neg string) pyFunc {
	return func(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		m.begin(th)
		var clicks starlark.Value
		x, y, ignore := starlark.Value(starlark.None), starlark.Value(starlark.None), starlark.Value(nil)
		if err := starlark.UnpackArgs(name, args, kwargs, "clicks", &clicks, "x?", &x, "y?", &y,
			"logScreenshot?", &ignore, "_pause?", &ignore); err != nil {
			return nil, err
		}
		f, ok := starlark.AsFloat(clicks)
		if !ok {
			return nil, fmt.Errorf("clicks must be a number, got %s", clicks.Type())
		}
		n := int(f)
		if n == 0 {
			return starlark.None, nil
		}
		dir := pos
		if n < 0 {
			dir, n = neg, -n
		}
		if n > maxScrollClicks {
			return nil, fmt.Errorf("%d wheel clicks is too far for one call: scroll at most %d, then look again", n, maxScrollClicks)
		}
		mods, err := m.modifiers()
		if err != nil {
			return nil, err
		}
		x, y, err = m.point(th, x, y)
		if err != nil {
			return nil, err
		}
		for n > 0 {
			k := min(n, maxScroll)
			kw := append([]starlark.Tuple{{starlark.String("direction"), starlark.String(dir)}, {starlark.String("amount"), starlark.MakeInt(k)}}, mods...)
			if _, err := m.call(th, "scroll", starlark.Tuple{x, y}, kw); err != nil {
				return nil, err
			}
			n -= k
		}
		return starlark.None, nil
	}
}
