package dialect

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"
)

// keyStrings reads a key or a list of keys.
func keyStrings(v starlark.Value) ([]string, error) {
	if s, ok := v.(starlark.String); ok {
		return []string{string(s)}, nil
	}
	it, ok := v.(starlark.Iterable)
	if !ok {
		return nil, fmt.Errorf("keys must be a string or a list of strings, got %s", v.Type())
	}
	var keys []string
	iter := it.Iterate()
	defer iter.Done()
	var x starlark.Value
	for iter.Next(&x) {
		s, ok := x.(starlark.String)
		if !ok {
			return nil, fmt.Errorf("keys must be strings, got %s", x.Type())
		}
		if len(keys) == maxPresses {
			return nil, fmt.Errorf("more than %d keys in one call", maxPresses)
		}
		keys = append(keys, string(s))
	}
	return keys, nil
}

// pressKey presses one key (or "ctrl+c"-style combo) with the held keys.
func (m *pyState) pressKey(th *starlark.Thread, key string) error {
	parts := []string{key}
	if len(key) > 1 && strings.Contains(key, "+") {
		parts = splitKeys(key)
	}
	k, err := combo(parts)
	if err != nil {
		return err
	}
	if m.held.any() {
		k = m.held.combo(k)
		m.held.used = true
	}
	_, err = m.call(th, "press", starlark.Tuple{starlark.String(k)}, nil)
	return err
}

// write types a string; typewrite's list form presses each key.
func (m *pyState) write(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m.begin(th)
	var msg starlark.Value
	ignore := starlark.Value(nil)
	if err := starlark.UnpackArgs(name, args, kwargs, "message", &msg, "interval?", &ignore,
		"logScreenshot?", &ignore, "_pause?", &ignore); err != nil {
		return nil, err
	}
	if s, ok := msg.(starlark.String); ok {
		if err := m.noHeld(); err != nil {
			return nil, err
		}
		if s == "" {
			return starlark.None, nil
		}
		return m.call(th, "type_text", starlark.Tuple{s}, nil)
	}
	keys, err := keyStrings(msg)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if err := m.pressKey(th, k); err != nil {
			return nil, err
		}
	}
	return starlark.None, nil
}

// press presses each key in turn, presses times.
func (m *pyState) press(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m.begin(th)
	var keysV starlark.Value
	presses, ignore := 1, starlark.Value(nil)
	if err := starlark.UnpackArgs(name, args, kwargs, "keys", &keysV, "presses?", &presses, "interval?", &ignore,
		"logScreenshot?", &ignore, "_pause?", &ignore); err != nil {
		return nil, err
	}
	if presses < 0 || presses > maxPresses {
		return nil, fmt.Errorf("presses must be 0 to %d, got %d", maxPresses, presses)
	}
	keys, err := keyStrings(keysV)
	if err != nil {
		return nil, err
	}
	for range presses {
		for _, k := range keys {
			if err := m.pressKey(th, k); err != nil {
				return nil, err
			}
		}
	}
	return starlark.None, nil
}

// hotkey presses its keys together: hotkey('ctrl', 'c') or hotkey(['ctrl', 'c']).
func (m *pyState) hotkey(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m.begin(th)
	var keys []string
	for _, a := range args {
		ks, err := keyStrings(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		keys = append(keys, ks...)
	}
	for _, kv := range kwargs {
		switch k, _ := starlark.AsString(kv[0]); k {
		case "keys":
			ks, err := keyStrings(kv[1])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			keys = append(keys, ks...)
		case "interval", "logScreenshot", "_pause":
		default:
			return nil, fmt.Errorf("%s: unexpected keyword argument %q", name, k)
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no keys given, e.g. pyautogui.hotkey('ctrl', 'c')", name)
	}
	k, err := combo(keys)
	if err != nil {
		return nil, err
	}
	if m.held.any() {
		k = m.held.combo(k)
		m.held.used = true
	}
	return m.call(th, "press", starlark.Tuple{starlark.String(k)}, nil)
}

func (m *pyState) oneKey(name string, args starlark.Tuple, kwargs []starlark.Tuple) (string, error) {
	var key string
	ignore := starlark.Value(nil)
	if err := starlark.UnpackArgs(name, args, kwargs, "key", &key, "logScreenshot?", &ignore, "_pause?", &ignore); err != nil {
		return "", err
	}
	return combo([]string{key})
}

// keyDown holds a key for the keys pressed after it (see heldKeys).
func (m *pyState) keyDown(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m.begin(th)
	k, err := m.oneKey(name, args, kwargs)
	if err != nil {
		return nil, err
	}
	m.held.down(k)
	return starlark.None, nil
}

// keyUp releases a held key; one nothing used is tapped.
func (m *pyState) keyUp(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m.begin(th)
	k, err := m.oneKey(name, args, kwargs)
	if err != nil {
		return nil, err
	}
	if tap := m.held.up(k); tap != "" {
		return m.call(th, "press", starlark.Tuple{starlark.String(tap)}, nil)
	}
	return starlark.None, nil
}

// sleep waits; while keys are held it holds them.
func (m *pyState) sleep(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m.begin(th)
	var secs starlark.Value
	if err := starlark.UnpackPositionalArgs(name, args, kwargs, 1, &secs); err != nil {
		return nil, err
	}
	if _, ok := starlark.AsFloat(secs); !ok {
		return nil, fmt.Errorf("seconds must be a number, got %s", secs.Type())
	}
	if m.held.any() {
		m.held.used = true
		return m.call(th, "hold", starlark.Tuple{starlark.String(m.held.combo("")), secs}, nil)
	}
	return m.call(th, "wait", starlark.Tuple{secs}, nil)
}

// computerWait is OpenCUA's computer.wait(): five seconds unless told.
func (m *pyState) computerWait(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m.begin(th)
	secs := starlark.Value(starlark.MakeInt(5))
	if err := starlark.UnpackArgs(name, args, kwargs, "seconds?", &secs); err != nil {
		return nil, err
	}
	return m.call(th, "wait", starlark.Tuple{secs}, nil)
}

// terminate is OpenCUA's computer.terminate(status, answer): final_answer.
func (m *pyState) terminate(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m.begin(th)
	status, answer := "success", ""
	if err := starlark.UnpackArgs(name, args, kwargs, "status?", &status, "answer?", &answer); err != nil {
		return nil, err
	}
	text := answer
	switch status {
	case "success":
	case "failure", "fail":
		text = strings.TrimSpace("The task could not be done. " + answer)
	default:
		return nil, fmt.Errorf("status %q: use 'success' or 'failure'", status)
	}
	return m.call(th, "final_answer", starlark.Tuple{starlark.String(text)}, nil)
}

// builtin passes a query straight through (position, size).
func (m *pyState) builtin(b string) pyFunc {
	return func(th *starlark.Thread, name string, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackPositionalArgs(name, args, kwargs, 0); err != nil {
			return nil, err
		}
		return m.call(th, b, nil, nil)
	}
}
