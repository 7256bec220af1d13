package dialect

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"go.starlark.net/starlark"
)

// Caller runs one of the agent's builtins (click, press, wait, ...) by name
// with Starlark arguments, on the thread running the program, so the guard,
// takeover, policy and action log apply as if the code had called it.
type Caller func(thread *starlark.Thread, builtin string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

// Moduler is implemented by dialects whose programs call modules rather than
// the builtins directly (pyautogui). The agent adds the modules to the run's
// executor as globals.
type Moduler interface {
	// Modules returns the modules by global name. Every function in them
	// reaches the desktop only through call. The modules keep a little
	// state (keys held by keyDown, a button held by mouseDown) for the
	// program running on one thread; a new thread starts clean. Safe for
	// one program at a time.
	Modules(call Caller) starlark.StringDict
}

// Modules implements Moduler: pyautogui, time and computer (OpenCUA's
// triple_click, terminate and wait).
//
// Mapping onto the builtins: click (clicks 1-3, any button), doubleClick,
// tripleClick and computer.triple_click (double_click then click at the
// same point), rightClick, middleClick, moveTo, dragTo (drag from where the
// mouse is), mouseDown/mouseUp (remembered; mouseUp drags from the
// mouseDown point, or clicks when the mouse did not move), scroll and
// hscroll (wheel clicks, positive is up or right, in calls of at most 50),
// write/typewrite (type_text; a list presses each key), press (each key,
// presses times), hotkey (one combination), keyDown/keyUp (see heldKeys:
// keys held combine with later presses, a sleep while held is hold(), a key
// released unused is tapped; a key still down when the program ends is
// released without a press), sleep and time.sleep (wait), position
// (cursor_position), size (screen_size). A point omitted is where the mouse
// is. Keys are pyautogui's names (ctrlleft, pgdn, win, ...) mapped onto
// deskpilot's. Setting pyautogui.FAILSAFE or pyautogui.PAUSE is accepted and
// ignored.
func (g PyAutoGUI) Modules(call Caller) starlark.StringDict {
	m := &pyState{call: call}
	return starlark.StringDict{
		"pyautogui": m.module("pyautogui", map[string]pyFunc{
			"click": m.click, "doubleClick": m.clicks(2), "tripleClick": m.clicks(3),
			"rightClick": m.button("right"), "middleClick": m.button("middle"),
			"moveTo": m.moveTo, "dragTo": m.dragTo, "mouseDown": m.mouseDown, "mouseUp": m.mouseUp,
			"scroll": m.scroll("up", "down"), "hscroll": m.scroll("right", "left"),
			"write": m.write, "typewrite": m.write, "press": m.press, "hotkey": m.hotkey,
			"keyDown": m.keyDown, "keyUp": m.keyUp, "sleep": m.sleep,
			"position": m.builtin("cursor_position"), "size": m.builtin("screen_size"),
		}),
		"time":     m.module("time", map[string]pyFunc{"sleep": m.sleep}),
		"computer": m.module("computer", map[string]pyFunc{"triple_click": m.clicks(3), "terminate": m.terminate, "wait": m.computerWait}),
	}
}

// pyFunc is one module function.
type pyFunc func(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

// pyState is the modules' shared state for the program on one thread.
type pyState struct {
	call Caller

	mu     sync.Mutex
	thread *starlark.Thread
	held   heldKeys
	down   starlark.Tuple // where mouseDown pressed, nil when no button is down
	// lost is where the mouseDown of an earlier program was remembered but
	// pressed nothing (keys were held, or the desktop cannot keep a button
	// down) and its program ended without a mouseUp; nil = none. A later
	// mouseUp says so instead of doing nothing.
	lost starlark.Tuple
}

// begin returns the state for th, reset when a new program (thread) starts.
func (m *pyState) begin(th *starlark.Thread) *pyState {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.thread != th {
		if m.down != nil {
			m.lost = m.down
		}
		m.thread, m.held, m.down = th, heldKeys{}, nil
	}
	return m
}

// module is a Starlark value with the functions as attributes.
func (m *pyState) module(name string, fns map[string]pyFunc) *pyModule {
	mod := &pyModule{name: name, attrs: starlark.StringDict{}}
	for n, f := range fns {
		qual := name + "." + n
		mod.attrs[n] = starlark.NewBuiltin(qual, func(th *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			v, err := f(th, qual, args, kwargs)
			if err != nil {
				if !strings.HasPrefix(err.Error(), qual) {
					err = fmt.Errorf("%s: %w", qual, err)
				}
				return nil, err
			}
			if v == nil {
				v = starlark.None
			}
			return v, nil
		})
	}
	return mod
}

// pyModule is a module value: attributes only, plus pyautogui's settings
// that may be assigned and are ignored.
type pyModule struct {
	name  string
	attrs starlark.StringDict
}

var (
	_ starlark.HasAttrs    = (*pyModule)(nil)
	_ starlark.HasSetField = (*pyModule)(nil)
)

func (p *pyModule) String() string        { return "<module " + p.name + ">" }
func (p *pyModule) Type() string          { return "module" }
func (p *pyModule) Freeze()               { p.attrs.Freeze() }
func (p *pyModule) Truth() starlark.Bool  { return true }
func (p *pyModule) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: module") }

// Attr returns a function; an unknown name is an error listing them.
func (p *pyModule) Attr(name string) (starlark.Value, error) {
	if v, ok := p.attrs[name]; ok {
		return v, nil
	}
	if p.name == "pyautogui" && (name == "FAILSAFE" || name == "PAUSE") {
		return starlark.None, nil
	}
	return nil, fmt.Errorf("%s.%s is not available; %s has: %s", p.name, name, p.name, strings.Join(p.AttrNames(), ", "))
}

// AttrNames lists the functions, sorted.
func (p *pyModule) AttrNames() []string {
	names := p.attrs.Keys()
	sort.Strings(names)
	return names
}

// SetField accepts pyautogui.FAILSAFE and pyautogui.PAUSE and ignores them:
// deskpilot's own stop and takeover do that job.
func (p *pyModule) SetField(name string, _ starlark.Value) error {
	if p.name == "pyautogui" && (name == "FAILSAFE" || name == "PAUSE") {
		return nil
	}
	return fmt.Errorf("cannot set %s.%s", p.name, name)
}
